package trust

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/testkit/citool"
	"github.com/airvsx/airvsx/testkit/signtest"
	"github.com/google/go-cmp/cmp"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

func TestWriteKeyPairLoad(t *testing.T) {
	// scrypt is slow by design: write two key pairs and share them.
	dir := t.TempDir()
	paths := map[string][2]string{}
	for name, pw := range map[string][]byte{"s3cret": []byte("s3cret"), "empty": nil} {
		keyPath, pubPath, err := WriteKeyPair(filepath.Join(dir, name), pw)
		if err != nil {
			t.Fatalf("WriteKeyPair: %v", err)
		}
		if want := filepath.Join(dir, name) + ".key"; keyPath != want {
			t.Errorf("WriteKeyPair key path = %q; want %q", keyPath, want)
		}
		if want := filepath.Join(dir, name) + ".pub"; pubPath != want {
			t.Errorf("WriteKeyPair pub path = %q; want %q", pubPath, want)
		}
		checkMode(t, keyPath, 0o600)
		checkMode(t, pubPath, 0o644)
		checkPEMType(t, keyPath, "ENCRYPTED SIGSTORE PRIVATE KEY") // even with an empty password
		checkPEMType(t, pubPath, "PUBLIC KEY")
		paths[name] = [2]string{keyPath, pubPath}
	}
	tests := []struct {
		name    string
		key     string // which key pair
		load    []byte // password for LoadSigner
		wantErr error
	}{
		{name: "right password", key: "s3cret", load: []byte("s3cret")},
		{name: "wrong password", key: "s3cret", load: []byte("guess"), wantErr: ErrPassword},
		{name: "password, loaded with none", key: "s3cret", load: nil, wantErr: ErrPassword},
		{name: "empty password, loaded with nil", key: "empty", load: nil},
		{name: "empty password, loaded with empty", key: "empty", load: []byte{}},
		{name: "empty password, loaded with a password", key: "empty", load: []byte("x"), wantErr: ErrPassword},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keyPath, pubPath := paths[tt.key][0], paths[tt.key][1]
			sv, err := LoadSigner(keyPath, tt.load)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("LoadSigner(%q) = %v; want %v", tt.load, err, tt.wantErr)
			}
			if err != nil {
				for _, want := range []string{keyPath, "wrong password"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("LoadSigner error %q does not mention %q", err, want)
					}
				}
				return
			}
			v, err := LoadVerifier(pubPath)
			if err != nil {
				t.Fatalf("LoadVerifier: %v", err)
			}
			msg := []byte("catalog bytes")
			sig, err := sv.SignMessage(bytes.NewReader(msg))
			if err != nil {
				t.Fatalf("SignMessage: %v", err)
			}
			if err := v.VerifySignature(bytes.NewReader(sig), bytes.NewReader(msg)); err != nil {
				t.Errorf("VerifySignature(own signature) = %v; want nil", err)
			}
			if err := v.VerifySignature(bytes.NewReader(sig), bytes.NewReader([]byte("catalog bytez"))); err == nil {
				t.Errorf("VerifySignature(other message) = nil; want an error")
			}
		})
	}
}

func checkMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s: mode %v; want %v", path, got, want)
	}
}

func checkPEMType(t *testing.T, path, want string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := pem.Decode(data)
	if b == nil || b.Type != want {
		t.Errorf("%s: PEM block %v; want type %q", path, b, want)
	}
}

func TestWriteKeyPairRefusesOverwrite(t *testing.T) {
	for _, existing := range []string{".key", ".pub"} {
		t.Run(existing, func(t *testing.T) {
			dir := t.TempDir()
			prefix := filepath.Join(dir, "airvsx")
			old := []byte("do not touch")
			if err := os.WriteFile(prefix+existing, old, 0o600); err != nil {
				t.Fatal(err)
			}
			if _, _, err := WriteKeyPair(prefix, []byte("pw")); !errors.Is(err, fs.ErrExist) {
				t.Fatalf("WriteKeyPair over %s = %v; want fs.ErrExist", existing, err)
			}
			if got, _ := os.ReadFile(prefix + existing); !bytes.Equal(got, old) {
				t.Errorf("%s was changed to %q", existing, got)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("directory holds %d files after a refused WriteKeyPair; want 1", len(entries))
			}
		})
	}
}

func TestParseSignerFormats(t *testing.T) {
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8 := func(k any) []byte {
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	}
	encrypted, _, err := GenerateKeyPair([]byte("pw"))
	if err != nil {
		t.Fatal(err)
	}
	// cosign before v2 wrote the same body under another PEM type.
	b, _ := pem.Decode(encrypted)
	legacy := pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED COSIGN PRIVATE KEY", Bytes: b.Bytes})
	sec1, _ := x509.MarshalECPrivateKey(ecKey)

	tests := []struct {
		name    string
		pem     []byte
		wantErr string // "" means it loads
	}{
		{name: "sigstore encrypted", pem: encrypted},
		{name: "legacy cosign encrypted", pem: legacy},
		{name: "unencrypted PKCS#8 P-256", pem: pkcs8(ecKey)},
		{name: "unencrypted SEC 1 P-256", pem: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1})},
		{name: "RSA PKCS#8", pem: pkcs8(rsaKey), wantErr: "key type RSA-2048 is not supported"},
		{name: "RSA PKCS#1", pem: pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey)}), wantErr: "key type RSA-2048 is not supported"},
		{name: "Ed25519", pem: pkcs8(edKey), wantErr: "key type Ed25519 is not supported"},
		{name: "ECDSA P-384", pem: pkcs8(p384), wantErr: "key type ECDSA P-384 is not supported"},
		{name: "public key", pem: mustPubPEM(t, &ecKey.PublicKey), wantErr: `PEM type "PUBLIC KEY" is not a private key`},
		{name: "not PEM", pem: []byte("hello"), wantErr: "no PEM block"},
		{name: "encrypted garbage", pem: pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED SIGSTORE PRIVATE KEY", Bytes: []byte("{}")}), wantErr: "wrong password"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sv, err := ParseSigner("test.key", tt.pem, []byte("pw"))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("ParseSigner = %v; want nil", err)
				}
				if _, err := KeyID(signtest.PublicKey(t, sv)); err != nil {
					t.Errorf("KeyID: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "test.key") {
				t.Errorf("ParseSigner = %v; want an error naming test.key and containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestParseVerifierRefuses(t *testing.T) {
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	edPub, _, _ := ed25519.GenerateKey(rand.Reader)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tests := []struct {
		name    string
		pem     []byte
		wantErr string
	}{
		{name: "P-256", pem: mustPubPEM(t, &ecKey.PublicKey)},
		{name: "P-384", pem: mustPubPEM(t, &p384.PublicKey), wantErr: "key type ECDSA P-384 is not supported"},
		{name: "Ed25519", pem: mustPubPEM(t, edPub), wantErr: "key type Ed25519 is not supported"},
		{name: "private key", pem: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1}}), wantErr: "is not a public key"},
		{name: "bad DER", pem: pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: []byte{1}}), wantErr: "parse public key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseVerifier("test.pub", tt.pem)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("ParseVerifier = %v; want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "test.pub") {
				t.Errorf("ParseVerifier = %v; want an error naming test.pub and containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestKeyIDMatchesMetadata(t *testing.T) {
	priv, pub, err := GenerateKeyPair(nil)
	if err != nil {
		t.Fatal(err)
	}
	sv, err := ParseSigner("k", priv, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ParseVerifier("p", pub)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := KeyID(signtest.PublicKey(t, sv))
	vp, _ := v.PublicKey()
	b, _ := KeyID(vp)
	if diff := cmp.Diff(a, b); diff != "" || len(a) != 64 {
		t.Errorf("KeyID(private) vs KeyID(public) (-+):\n%s (len %d)", diff, len(a))
	}
}

// TestCosignInterop checks keys against the stock cosign binary. CI
// installs it (.ci/run) and fails without it; elsewhere the test is
// skipped when cosign is not installed.
func TestCosignInterop(t *testing.T) {
	cosign := citool.Need(t, "cosign")
	dir := t.TempDir()
	keyPath, pubPath, err := WriteKeyPair(filepath.Join(dir, "airvsx"), []byte("pw"))
	if err != nil {
		t.Fatal(err)
	}
	blob := filepath.Join(dir, "blob")
	os.WriteFile(blob, []byte("hello"), 0o644)
	sv, err := LoadSigner(keyPath, []byte("pw"))
	if err != nil {
		t.Fatal(err)
	}
	sig, err := sv.SignMessage(bytes.NewReader([]byte("hello")))
	if err != nil {
		t.Fatal(err)
	}
	sigPath := filepath.Join(dir, "blob.sig")
	os.WriteFile(sigPath, []byte(b64(sig)), 0o644)
	cmd := exec.Command(cosign, "verify-blob", "--key", pubPath, "--signature", sigPath, "--insecure-ignore-tlog", blob)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("cosign verify-blob: %v\n%s", err, out)
	}
	cmd = exec.Command(cosign, "generate-key-pair", "--output-key-prefix", filepath.Join(dir, "cosign"))
	cmd.Env = append(os.Environ(), "COSIGN_PASSWORD=pw2")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cosign generate-key-pair: %v\n%s", err, out)
	}
	if _, err := LoadSigner(filepath.Join(dir, "cosign.key"), []byte("pw2")); err != nil {
		t.Errorf("LoadSigner(cosign.key) = %v", err)
	}
}

func mustPubPEM(t *testing.T, pub any) []byte {
	t.Helper()
	p, err := cryptoutils.MarshalPublicKeyToPEM(pub)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
