// Package benchreg makes large registries for benchmarks at run time,
// through the store API and trust.PublishCatalog directly (no upstream): entries
// whose vsix files are real zips that pass every vsix rule, holding one
// stored (uncompressed) file of random bytes, so making gigabytes is
// fast. Nothing it makes belongs in the repository.
package benchreg

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/vsix/vsixtest"
	"github.com/airvsx/airvsx/testkit/synthreg"
)

// Options size the registry. The zero value makes 400 entries of 5 MiB.
type Options struct {
	Entries int   // default 400
	Size    int64 // bytes of random data per vsix; default 5 MiB
	// Signed gives every entry an upstream Ed25519 signature (a sigzip),
	// as Open VSX signs every package; verify then checks it too.
	Signed  bool
	Workers int // parallel writers; default 2
	Now     time.Time
}

// Result says where the registry's trust anchor is.
type Result struct {
	PubKey string // PREFIX.pub of the signing key (for --key)
	Bytes  int64  // bytes of vsix files written
}

const (
	publisher = "bench"
	upKeyID   = "bench-upstream"
)

// Make creates a registry at dir (which must not exist) and writes the
// signing key's public half to keyPrefix+".pub".
func Make(ctx context.Context, dir, keyPrefix string, o Options) (*Result, error) {
	if o.Entries <= 0 {
		o.Entries = 400
	}
	if o.Size <= 0 {
		o.Size = 5 << 20
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	if o.Now.IsZero() {
		o.Now = time.Now().UTC().Truncate(time.Second)
	}
	signer, pubPEM, err := synthreg.NewSigner()
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(keyPrefix+".pub", pubPEM, 0o644); err != nil {
		return nil, err
	}
	upPub, upPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKIXPublicKey(upPub)
	if err != nil {
		return nil, err
	}
	upPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "benchreg-tmp-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if !o.Signed {
		upPriv = nil
	}
	head := index.Catalog{Serial: 1, Created: o.Now, Upstream: "https://open-vsx.invalid"}
	if o.Signed {
		head.UpstreamKeys = []index.UpstreamKey{{ID: upKeyID, PEM: string(upPEM)}}
	}
	cat, err := synthreg.Build(ctx, dir, synthreg.Options{Entries: o.Entries, Workers: o.Workers, Catalog: head, Signer: signer, Now: o.Now},
		func(ctx context.Context, st store.Store, i int) (index.Entry, error) {
			return makeEntry(ctx, st, tmp, i, o, upPriv)
		})
	if err != nil {
		return nil, err
	}
	res := &Result{PubKey: keyPrefix + ".pub"}
	for _, e := range cat.Entries {
		res.Bytes += e.VsixSize
	}
	return res, nil
}

func makeEntry(ctx context.Context, st store.Store, tmp string, i int, o Options, upPriv ed25519.PrivateKey) (index.Entry, error) {
	name := fmt.Sprintf("ext-%04d", i)
	id := index.ID{Namespace: publisher, Name: name}
	version := "1.0.0"
	pkgJSON := fmt.Sprintf(`{"name":%q,"displayName":%[1]q,"publisher":%q,"version":%q,"engines":{"vscode":"^1.80.0"}}`, name, publisher, version)
	path := filepath.Join(tmp, name+".vsix")
	f, err := os.Create(path)
	if err != nil {
		return index.Entry{}, err
	}
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(f, h)}
	zw := zip.NewWriter(cw)
	mod := o.Now
	add := func(n string, r io.Reader, method uint16) error {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: method, Modified: mod})
		if err != nil {
			return err
		}
		_, err = io.Copy(w, r)
		return err
	}
	rng := mrand.NewChaCha8(seed(i))
	err = add("extension.vsixmanifest", bytes.NewReader([]byte(vsixtest.VSIXManifest(publisher, name, version))), zip.Deflate)
	if err == nil {
		err = add("extension/package.json", bytes.NewReader([]byte(pkgJSON)), zip.Deflate)
	}
	if err == nil {
		err = add("extension/data.bin", io.LimitReader(rng, o.Size), zip.Store)
	}
	if err == nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return index.Entry{}, err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	vf, err := os.Open(path)
	if err != nil {
		return index.Entry{}, err
	}
	a := synthreg.NewArtifact(st, id)
	err = a.AddContent(ctx, artifact.RoleVsix, fmt.Sprintf("%s.%s-%s.vsix", publisher, name, version), index.SHA256Digest(sum), cw.n, store.SeekContent(vf))
	vf.Close()
	if err != nil {
		return index.Entry{}, err
	}
	if err := a.Add(ctx, artifact.RoleUpstreamMetadata, "openvsx.json", []byte(`{"bench":true}`)); err != nil {
		return index.Entry{}, err
	}
	e := index.Entry{ID: id, Version: version, Platform: index.Universal, Published: o.Now, VsixSHA256: sum, VsixSize: cw.n, Engine: "^1.80.0", DisplayName: name}
	if upPriv != nil {
		data, err := os.ReadFile(path)
		if err != nil {
			return index.Entry{}, err
		}
		sz, err := sigzip(ed25519.Sign(upPriv, data))
		if err != nil {
			return index.Entry{}, err
		}
		if err := a.Add(ctx, artifact.RoleUpstreamSignature, fmt.Sprintf("%s.%s-%s.sigzip", publisher, name, version), sz); err != nil {
			return index.Entry{}, err
		}
		e.Upstream = index.Signature{Signed: true, KeyID: upKeyID}
	}
	if err := a.Add(ctx, artifact.RoleManifest, "package.json", []byte(pkgJSON)); err != nil {
		return index.Entry{}, err
	}
	os.Remove(path)
	m, err := a.Put(ctx, artifact.ArtifactInfo{ID: id, Version: version, Platform: index.Universal, Created: o.Now, UpstreamSHA256: sum})
	if err != nil {
		return index.Entry{}, err
	}
	e.ManifestDigest, e.ManifestSize = m.Digest, m.Size
	return e, nil
}

func seed(i int) [32]byte {
	var s [32]byte
	s[0], s[1] = byte(i), byte(i>>8)
	return s
}

// sigzip packs an Ed25519 signature as Open VSX does.
func sigzip(sig []byte) ([]byte, error) {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, f := range []struct {
		name string
		data []byte
	}{{".signature.manifest", []byte("{}")}, {".signature.p7s", nil}, {".signature.sig", sig}} {
		w, err := zw.Create(f.name)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
