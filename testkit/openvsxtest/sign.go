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
	"fmt"
	"io"
	"time"
)

// KeyID is the public id of the fixture server's signing key pair, shaped
// like upstream's (a random UUID there; fixed here).
const KeyID = "5b1c7e2a-0f3d-4e69-9a8b-7c2d1e0f4a36"

// keySeed makes the Ed25519 key deterministic, so runs are reproducible.
var keySeed = sha256.Sum256([]byte("airvsx mirror/openvsxtest Ed25519 fixture signing key v1"))

// signingKey returns the server's Ed25519 private key.
func signingKey() ed25519.PrivateKey { return ed25519.NewKeyFromSeed(keySeed[:]) }

// PublicKeyPEM returns the fixture public key as upstream publishes it at
// /api/-/public-key/{id}: a "PUBLIC KEY" PEM block holding the SPKI DER.
func PublicKeyPEM() []byte {
	der, err := x509.MarshalPKIXPublicKey(signingKey().Public())
	if err != nil {
		panic(err) // an Ed25519 key always marshals
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// makeSigzip builds upstream's .sigzip for vsix: a zip (deflate) with
// .signature.sig (the raw 64-byte Ed25519 signature over sigInput),
// .signature.manifest (package and per-entry sizes and base64 sha256s) and
// an empty .signature.p7s, in that order. Entry times are mtime, so the
// bytes are reproducible. For a valid sigzip sigInput is vsix itself.
func makeSigzip(vsix, sigInput []byte, mtime time.Time) ([]byte, error) {
	sig := ed25519.Sign(signingKey(), sigInput)
	manifest, err := signatureManifest(vsix)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range []struct {
		name string
		data []byte
	}{
		{".signature.sig", sig},
		{".signature.manifest", manifest},
		{".signature.p7s", nil},
	} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: mtime})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// signatureManifest is the JSON of .signature.manifest:
// {"package":{"size":N,"digests":{"sha256":"<base64>"}},
// "entries":{"<base64(name)>":{"size":N,"digests":{"sha256":"<base64>"}},…}},
// entries in zip order, directories skipped.
func signatureManifest(vsix []byte) ([]byte, error) {
	type digests struct {
		SHA256 string `json:"sha256"`
	}
	type sized struct {
		Size    int64   `json:"size"`
		Digests digests `json:"digests"`
	}
	b64 := base64.StdEncoding.EncodeToString
	sum := sha256.Sum256(vsix)
	pkg, _ := json.Marshal(sized{Size: int64(len(vsix)), Digests: digests{b64(sum[:])}})

	zr, err := zip.NewReader(bytes.NewReader(vsix), int64(len(vsix)))
	if err != nil {
		return nil, fmt.Errorf("signature manifest: %w", err)
	}
	var out bytes.Buffer
	out.WriteString(`{"package":`)
	out.Write(pkg)
	out.WriteString(`,"entries":{`)
	n := 0
	for _, zf := range zr.File {
		if zf.FileInfo().IsDir() {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			return nil, fmt.Errorf("signature manifest: %s: %w", zf.Name, err)
		}
		h := sha256.New()
		size, err := io.Copy(h, rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("signature manifest: %s: %w", zf.Name, err)
		}
		if n > 0 {
			out.WriteByte(',')
		}
		n++
		k, _ := json.Marshal(b64([]byte(zf.Name)))
		v, _ := json.Marshal(sized{Size: size, Digests: digests{b64(h.Sum(nil))}})
		out.Write(k)
		out.WriteByte(':')
		out.Write(v)
	}
	out.WriteString(`}}`)
	return out.Bytes(), nil
}
