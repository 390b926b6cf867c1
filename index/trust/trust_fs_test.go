package trust

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/index/store"

	"github.com/airvsx/airvsx/internal/atomicfile"
	"github.com/airvsx/airvsx/testkit/signtest"
)

// metaDir is a MetadataFS on a plain directory, for tests that tamper
// with the files; commands reach metadata through a store.Store
// (Metadata), whose directory store guards every path.
type metaDir string

// DirMetadata returns the metaDir of dir.
func DirMetadata(dir string) metaDir { return metaDir(dir) }

func (d metaDir) Open(name string) (io.ReadCloser, error) {
	if err := store.CheckMetadataName(name); err != nil {
		return nil, err
	}
	return os.Open(filepath.Join(string(d), filepath.FromSlash(name)))
}

func (d metaDir) WriteFile(name string, data []byte) error {
	if err := store.CheckMetadataName(name); err != nil {
		return err
	}
	p := filepath.Join(string(d), filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(p, data, 0o644)
}

// memFS is an in-memory MetadataFS for fast tests.
type memFS map[string][]byte

func (m memFS) Open(name string) (io.ReadCloser, error) {
	b, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

func (m memFS) WriteFile(name string, data []byte) error {
	m[name] = bytes.Clone(data)
	return nil
}

// FuzzLoad replaces one metadata file (or the pinned root) with fuzzed bytes.
// Invariant: Load never panics, and whatever it accepts is the catalog that
// was signed, with the signed versions: bytes nobody signed are never trusted.
func FuzzLoad(f *testing.F) {
	key := signtest.Signer(f)
	files := memFS{}
	cat := []byte(`{"format":1,"serial":1,"entries":[]}` + "\n")
	res, err := Publish(f.Context(), files, cat, key, PublishOptions{Now: at(t0)})
	if err != nil {
		f.Fatal(err)
	}
	names := []string{"pinned root", "timestamp.json", "1.snapshot.json", "1.targets.json", "2.root.json"}
	for i, name := range names {
		seed := files[name]
		if name == "pinned root" {
			seed = files["1.root.json"]
		}
		if name == "2.root.json" {
			seed = files["1.root.json"]
		}
		f.Add(uint8(i), seed)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		fsys := memFS{}
		for k, v := range files {
			fsys[k] = v
		}
		root := files["1.root.json"]
		switch name := names[int(which)%len(names)]; name {
		case "pinned root":
			root = data
		default:
			fsys[name] = data
		}
		got, err := Load(t.Context(), fsys, root, LoadOptions{Now: at(t0)})
		if err != nil {
			return
		}
		if !bytes.Equal(got.Catalog, cat) {
			t.Fatalf("Load accepted catalog %q; want %q", got.Catalog, cat)
		}
		if st := got.State(); st != res.State {
			t.Fatalf("Load accepted state %+v; want %+v", st, res.State)
		}
	})
}
