package openvsxtest

import (
	"archive/zip"
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sigzipEntries unzips a .sigzip into name → content, in zip order.
func sigzipEntries(t *testing.T, b []byte) ([]string, map[string][]byte) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("sigzip: %v", err)
	}
	var names []string
	content := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, f.Name)
		content[f.Name] = data
	}
	return names, content
}

// fetchKey fetches and parses the Ed25519 public key at url.
func fetchKey(t *testing.T, url string) ed25519.PublicKey {
	t.Helper()
	status, b := get(t, url)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d", url, status)
	}
	block, rest := pem.Decode(b)
	if block == nil || block.Type != "PUBLIC KEY" || len(bytes.TrimSpace(rest)) != 0 {
		t.Fatalf("GET %s: not one PUBLIC KEY PEM block: %q", url, b)
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	k, ok := pub.(ed25519.PublicKey)
	if !ok {
		t.Fatalf("key is %T; want ed25519.PublicKey", pub)
	}
	return k
}

// TestSignatures: every signed fixture's .sigzip verifies with
// crypto/ed25519 against the key from /api/-/public-key/{id}; its manifest
// describes the package; .signature.p7s is empty.
func TestSignatures(t *testing.T) {
	s := New(t, Options{})
	fx, err := LoadFixtures(DefaultDir())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(s.PublicKeyPEM(), PublicKeyPEM()) || s.KeyID() != KeyID {
		t.Fatal("Server.PublicKeyPEM/KeyID differ from the package's")
	}
	signed := 0
	for _, f := range fx {
		if f.NoFiles || f.Unsigned {
			continue
		}
		signed++
		t.Run(f.FileBase(), func(t *testing.T) {
			tp := ""
			if f.TargetPlatform() != "universal" {
				tp = "/" + string(f.TargetPlatform())
			}
			fs := files(t, getJSON(t, s.URL+"/api/"+f.Namespace+"/"+f.Name+tp+"/"+f.Version))
			if want := s.URL + "/api/-/public-key/" + s.KeyID(); fs["publicKey"] != want {
				t.Errorf("publicKey = %q; want %q", fs["publicKey"], want)
			}
			key := fetchKey(t, fs["publicKey"])
			_, vsix := get(t, fs["download"])
			_, sz := get(t, fs["signature"])
			names, content := sigzipEntries(t, sz)
			if want := []string{".signature.sig", ".signature.manifest", ".signature.p7s"}; !cmp.Equal(names, want) {
				t.Errorf("sigzip entries = %q; want %q", names, want)
			}
			sig := content[".signature.sig"]
			if len(sig) != ed25519.SignatureSize || !ed25519.Verify(key, vsix, sig) {
				t.Errorf(".signature.sig (%d bytes) does not verify over the package", len(sig))
			}
			if len(content[".signature.p7s"]) != 0 {
				t.Errorf(".signature.p7s has %d bytes; want 0", len(content[".signature.p7s"]))
			}
			var man struct {
				Package struct {
					Size    int64
					Digests struct{ SHA256 string }
				}
				Entries map[string]struct {
					Size    int64
					Digests struct{ SHA256 string }
				}
			}
			if err := json.Unmarshal(content[".signature.manifest"], &man); err != nil {
				t.Fatalf(".signature.manifest: %v", err)
			}
			sum := sha256.Sum256(vsix)
			if man.Package.Size != int64(len(vsix)) || man.Package.Digests.SHA256 != base64.StdEncoding.EncodeToString(sum[:]) {
				t.Errorf(".signature.manifest package = %+v; want size %d sha256 %s", man.Package, len(vsix), base64.StdEncoding.EncodeToString(sum[:]))
			}
			zr, _ := zip.NewReader(bytes.NewReader(vsix), int64(len(vsix)))
			if len(man.Entries) != len(zr.File) {
				t.Errorf(".signature.manifest has %d entries; package has %d files", len(man.Entries), len(zr.File))
			}
			for _, zf := range zr.File {
				e, ok := man.Entries[base64.StdEncoding.EncodeToString([]byte(zf.Name))]
				if !ok || e.Size != int64(zf.UncompressedSize64) {
					t.Errorf(".signature.manifest entry %s = %+v; want size %d", zf.Name, e, zf.UncompressedSize64)
				}
			}
		})
	}
	if signed < 8 {
		t.Errorf("only %d signed fixtures", signed)
	}
}

// TestUnsigned: the unsigned fixture lists neither signature nor publicKey,
// in its ExtensionJson, its version reference and its search entry.
func TestUnsigned(t *testing.T) {
	s := New(t, Options{})
	j := getJSON(t, s.URL+"/api/other-pub/unsigned-tool")
	r := getJSON(t, s.URL+"/api/other-pub/unsigned-tool/version-references")
	q := getJSON(t, s.URL+"/api/-/search?query=publisher:other-pub")
	for name, fs := range map[string]map[string]string{
		"extension":         files(t, j),
		"version-reference": files(t, r["versions"].([]any)[0].(map[string]any)),
		"search":            files(t, q["extensions"].([]any)[0].(map[string]any)),
	} {
		if _, ok := fs["signature"]; ok {
			t.Errorf("%s: files has signature", name)
		}
		if _, ok := fs["publicKey"]; ok {
			t.Errorf("%s: files has publicKey", name)
		}
		if _, ok := fs["download"]; !ok {
			t.Errorf("%s: files has no download", name)
		}
	}
}

// TestKeyDeterministic: the key comes from a fixed seed.
func TestKeyDeterministic(t *testing.T) {
	const want = "-----BEGIN PUBLIC KEY-----\n"
	a, b := PublicKeyPEM(), PublicKeyPEM()
	if !bytes.Equal(a, b) || !bytes.HasPrefix(a, []byte(want)) {
		t.Errorf("PublicKeyPEM() = %q, then %q; want the same SPKI PEM twice", a, b)
	}
}
