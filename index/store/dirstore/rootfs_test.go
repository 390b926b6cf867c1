package dirstore

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
)

// TestRootFSReadDir: rootFS lists what os.ReadDir lists, with the same
// types (regular file, directory, symlink, named pipe), sorted, across
// several getdents batches, and passes io/fs's own consistency checks.
func TestRootFSReadDir(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644))
	must(os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "sub", "inner"), []byte("y"), 0o644))
	must(os.Symlink("file", filepath.Join(dir, "link")))
	must(os.Symlink("/etc/passwd", filepath.Join(dir, "escape")))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	many := filepath.Join(dir, "many")
	must(os.Mkdir(many, 0o755))
	for i := range 1500 { // about 100 KB of dirents: several batches
		must(os.WriteFile(filepath.Join(many, fmt.Sprintf("%03d-%s", i, strings.Repeat("n", 40))), nil, 0o644))
	}
	r, err := os.OpenRoot(dir)
	must(err)
	defer r.Close()
	fsys := newRootFS(r)
	for _, name := range []string{".", "sub", "many"} {
		got, err := fs.ReadDir(fsys, name)
		must(err)
		want, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(name)))
		must(err)
		if len(got) != len(want) {
			t.Fatalf("ReadDir(%s): %d entries; want %d", name, len(got), len(want))
		}
		for i := range want {
			if got[i].Name() != want[i].Name() || got[i].Type() != want[i].Type() || got[i].IsDir() != want[i].IsDir() {
				t.Errorf("ReadDir(%s)[%d] = %s %v; want %s %v", name, i, got[i].Name(), got[i].Type(), want[i].Name(), want[i].Type())
			}
			fi, err := got[i].Info()
			if err != nil || fi.Mode().Type() != want[i].Type() {
				t.Errorf("ReadDir(%s)[%d].Info() = %v, %v; want type %v", name, i, fi, err, want[i].Type())
			}
		}
	}
	for _, bad := range []string{"../x", "/etc", "escape"} {
		if _, err := fs.ReadDir(fsys, bad); err == nil {
			t.Errorf("ReadDir(%q) succeeded; want an error (outside the root, or not a directory)", bad)
		}
	}
	// fstest opens every file it finds: not the named pipe, which would
	// wait for a writer.
	// Nor the symlink out of the root, which the root refuses to open.
	must(os.Remove(filepath.Join(dir, "fifo")))
	must(os.Remove(filepath.Join(dir, "escape")))
	if err := fstest.TestFS(fsys, "file", "sub/inner", "many/000-"+strings.Repeat("n", 40)); err != nil {
		t.Error(err)
	}
}
