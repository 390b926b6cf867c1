package vsix_test

import (
	"archive/zip"
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index/vsix"
)

func sigzipOf(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{vsix.SigzipManifest, vsix.SigzipSignature, vsix.SigzipP7S, "extra"} {
		data, ok := files[name]
		if !ok {
			continue
		}
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pubPEM(t testing.TB, pub any) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

func TestVerifyUpstreamSignature(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	otherPub, _, _ := ed25519.GenerateKey(rand.Reader)
	pkg := []byte("PK\x03\x04 pretend this is a vsix")
	dir := t.TempDir()
	path := filepath.Join(dir, "x.vsix")
	if err := os.WriteFile(path, pkg, 0o644); err != nil {
		t.Fatal(err)
	}
	good := sigzipOf(t, map[string][]byte{vsix.SigzipManifest: []byte("{}"), vsix.SigzipSignature: ed25519.Sign(priv, pkg), vsix.SigzipP7S: nil})
	tests := []struct {
		name    string
		sigzip  []byte
		pub     ed25519.PublicKey
		wantErr string
	}{
		{"good", good, pub, ""},
		{"other key", good, otherPub, "does not verify"},
		{"signature over other bytes", sigzipOf(t, map[string][]byte{vsix.SigzipSignature: ed25519.Sign(priv, []byte("other"))}), pub, "does not verify"},
		{"short signature", sigzipOf(t, map[string][]byte{vsix.SigzipSignature: []byte("short")}), pub, "want an Ed25519 signature of 64"},
		{"no signature file", sigzipOf(t, map[string][]byte{vsix.SigzipManifest: []byte("{}")}), pub, ".signature.sig"},
		{"not a zip", []byte("nope"), pub, "not-zip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := vsix.VerifyUpstreamSignature(tt.sigzip, tt.pub, path)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("VerifyUpstreamSignature = %v; want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("VerifyUpstreamSignature = %v; want error containing %q", err, tt.wantErr)
			}
		})
	}
	// A flipped byte in the package breaks the signature.
	pkg[5] ^= 1
	os.WriteFile(path, pkg, 0o644)
	if err := vsix.VerifyUpstreamSignature(good, pub, path); !errors.Is(err, vsix.ErrUpstreamSignature) {
		t.Fatalf("tampered package: %v; want ErrUpstreamSignature", err)
	}
}

func TestParseUpstreamKey(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	good := pubPEM(t, pub)
	got, err := vsix.ParseUpstreamKey(good)
	if err != nil || !got.Equal(pub) {
		t.Fatalf("ParseUpstreamKey = %v, %v", got, err)
	}
	for name, in := range map[string][]byte{
		"empty":        nil,
		"garbage":      []byte("not pem"),
		"trailing":     append(append([]byte{}, good...), []byte("junk")...),
		"wrong type":   pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1}}),
		"bad der":      pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: []byte{1, 2, 3}}),
		"not ed25519 ": pubPEM(t, mustECDSAPub(t)),
	} {
		if _, err := vsix.ParseUpstreamKey(in); err == nil {
			t.Errorf("ParseUpstreamKey(%s) = nil error; want error", name)
		}
	}
}

// FuzzParseUpstreamKey: an accepted key re-encodes to a PEM that parses
// to the same key.
func FuzzParseUpstreamKey(f *testing.F) {
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	f.Add(pubPEM(f, pub))
	f.Add([]byte("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := vsix.ParseUpstreamKey(data)
		if err != nil {
			return
		}
		if len(k) != ed25519.PublicKeySize {
			t.Fatalf("accepted a key of %d bytes", len(k))
		}
		again, err := vsix.ParseUpstreamKey(pubPEM(t, k))
		if err != nil || !again.Equal(k) {
			t.Fatalf("re-encoded key: %v, %v", again, err)
		}
	})
}

func mustECDSAPub(t testing.TB) any {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &k.PublicKey
}
