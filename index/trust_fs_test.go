package index

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDirMetadata(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "metadata")
	d := DirMetadata(dir)
	if _, err := d.Open("timestamp.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open in a missing directory = %v; want fs.ErrNotExist", err)
	}
	for _, name := range []string{"targets/abc.catalog.json", "timestamp.json", "timestamp.json"} {
		if err := d.WriteFile(name, []byte(name+"!")); err != nil {
			t.Fatalf("WriteFile(%q): %v", name, err)
		}
		rc, err := d.Open(name)
		if err != nil {
			t.Fatalf("Open(%q): %v", name, err)
		}
		got, _ := io.ReadAll(rc)
		rc.Close()
		if string(got) != name+"!" {
			t.Errorf("Open(%q) read %q", name, got)
		}
	}
	// No temporary files are left behind.
	if diff := strings.Join(sortedFiles(t, dir), " "); diff != "targets/abc.catalog.json timestamp.json" {
		t.Errorf("files = %s; want targets/abc.catalog.json timestamp.json", diff)
	}
	if fi, err := os.Stat(filepath.Join(dir, "timestamp.json")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("timestamp.json mode = %v, %v; want 0644", fi.Mode(), err)
	}

	for _, name := range []string{"../x", "/etc/passwd", "a/../b", "", ".", `a\b`, "a\x00b"} {
		if err := d.WriteFile(name, nil); err == nil {
			t.Errorf("WriteFile(%q) = nil; want an error", name)
		}
		if _, err := d.Open(name); err == nil {
			t.Errorf("Open(%q) = nil; want an error", name)
		}
	}
	// A symbolic link out of the directory is not followed.
	writeFile(t, filepath.Join(base, "secret"), []byte("secret"))
	if err := os.Symlink(filepath.Join(base, "secret"), filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Open("link.json"); err == nil {
		t.Errorf("Open(link out of the directory) = nil; want an error")
	}
	if _, err := d.Open("targets"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Open(directory) = %v; want not a regular file", err)
	}
}

func sortedFiles(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	for name := range snapshotDir(t, dir) {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
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
	key := newTestSigner(f)
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
