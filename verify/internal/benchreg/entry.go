package benchreg

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"sync"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/vsix/vsixtest"
	"github.com/airvsx/airvsx/testkit/synthreg"
)

// maxInMemory is the largest vsix an entry builds in memory; larger ones
// go through a temp file.
const maxInMemory = 8 << 20

// maker makes the entries of one registry.
type maker struct {
	o      Options
	first  int                // the number of the first entry made (Add)
	upPriv ed25519.PrivateKey // signs every vsix when set
	tmp    string             // where vsix files over maxInMemory are built
	flates sync.Pool          // *flate.Writer, reused across zips
}

// entry stores entry i (bench.ext-NNNN 1.0.V, with N = i / Versions and
// V = i % Versions) in st and returns its catalog entry. Entry i's bytes
// are the same in every registry made with the same Size, Versions, Now
// and upstream key.
func (m *maker) entry(ctx context.Context, st store.Store, i int) (index.Entry, error) {
	o := m.o
	versions := max(o.Versions, 1)
	name := fmt.Sprintf("ext-%04d", i/versions)
	id := index.ID{Namespace: publisher, Name: name}
	version := fmt.Sprintf("1.0.%d", i%versions)
	pkgJSON := fmt.Sprintf(`{"name":%q,"displayName":%[1]q,"publisher":%q,"version":%q,"engines":{"vscode":"^1.80.0"}}`, name, publisher, version)

	// The vsix: in memory, or for a large one in a temp file.
	var (
		buf  bytes.Buffer
		file *os.File
		sink io.Writer = &buf
	)
	if o.Size > maxInMemory {
		f, err := os.Create(filepath.Join(m.tmp, name+".vsix"))
		if err != nil {
			return index.Entry{}, err
		}
		defer os.Remove(f.Name())
		defer f.Close()
		file, sink = f, f
	}
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(sink, h)}
	if err := m.writeVsix(cw, i, name, version, pkgJSON); err != nil {
		return index.Entry{}, err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	content := store.BytesContent(buf.Bytes())
	if file != nil {
		content = store.SeekContent(file)
		if err := content.Rewind(); err != nil {
			return index.Entry{}, err
		}
	}
	a := synthreg.NewArtifact(st, id)
	if err := a.AddContent(ctx, artifact.RoleVsix, fmt.Sprintf("%s.%s-%s.vsix", publisher, name, version), index.SHA256Digest(sum), cw.n, content); err != nil {
		return index.Entry{}, err
	}
	if err := a.Add(ctx, artifact.RoleUpstreamMetadata, "openvsx.json", []byte(`{"bench":true}`)); err != nil {
		return index.Entry{}, err
	}
	e := index.Entry{ID: id, Version: version, Platform: index.Universal, Published: o.Now, VsixSHA256: sum, VsixSize: cw.n, Engine: "^1.80.0", DisplayName: name}
	if m.upPriv != nil {
		data := buf.Bytes()
		if file != nil {
			var err error
			if data, err = os.ReadFile(file.Name()); err != nil {
				return index.Entry{}, err
			}
		}
		sz, err := m.sigzip(ed25519.Sign(m.upPriv, data))
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
	man, err := a.Put(ctx, artifact.ArtifactInfo{ID: id, Version: version, Platform: index.Universal, Created: o.Now, UpstreamSHA256: sum})
	if err != nil {
		return index.Entry{}, err
	}
	e.ManifestDigest, e.ManifestSize = man.Digest, man.Size
	return e, nil
}

// writeVsix writes entry i's vsix to w: its manifests, deflated, and
// Size random bytes (seeded by i), stored.
func (m *maker) writeVsix(w io.Writer, i int, name, version, pkgJSON string) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, m.deflate)
	add := func(n string, r io.Reader, method uint16) error {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: method, Modified: m.o.Now})
		if err != nil {
			return err
		}
		_, err = io.Copy(fw, r)
		return err
	}
	err := add("extension.vsixmanifest", bytes.NewReader([]byte(vsixtest.VSIXManifest(publisher, name, version))), zip.Deflate)
	if err == nil {
		err = add("extension/package.json", bytes.NewReader([]byte(pkgJSON)), zip.Deflate)
	}
	if err == nil {
		err = add("extension/data.bin", io.LimitReader(mrand.NewChaCha8(seed(i)), m.o.Size), zip.Store)
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return fmt.Errorf("vsix of %s: %w", name, err)
	}
	return nil
}

// deflate is archive/zip's compressor (flate level 5) with its writers
// reused: a new flate.Writer allocates about 1 MB, which for hundreds of
// thousands of small zips is most of the work.
func (m *maker) deflate(w io.Writer) (io.WriteCloser, error) {
	if fw, ok := m.flates.Get().(*flate.Writer); ok {
		fw.Reset(w)
		return &pooledFlate{fw, &m.flates}, nil
	}
	fw, err := flate.NewWriter(w, 5)
	if err != nil {
		return nil, err
	}
	return &pooledFlate{fw, &m.flates}, nil
}

// pooledFlate returns its writer to the pool when closed.
type pooledFlate struct {
	*flate.Writer
	pool *sync.Pool
}

func (p *pooledFlate) Close() error {
	err := p.Writer.Close()
	p.pool.Put(p.Writer)
	return err
}

// seed is entry i's random seed (i's four low bytes).
func seed(i int) [32]byte {
	var s [32]byte
	s[0], s[1], s[2], s[3] = byte(i), byte(i>>8), byte(i>>16), byte(i>>24)
	return s
}

// sigzip packs an Ed25519 signature as Open VSX does.
func (m *maker) sigzip(sig []byte) ([]byte, error) {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	zw.RegisterCompressor(zip.Deflate, m.deflate)
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
