package dirstore

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"testing/fstest"
	"time"
)

// heldTree makes a directory with what a hostile registry may hold: a
// regular file, a nested one, a symlink to a file outside, a symlinked
// directory leading outside, a named pipe, and a file over a cap.
func heldTree(t *testing.T) (dir string) {
	t.Helper()
	dir = t.TempDir()
	outside := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(outside, "secret"), []byte("outside"), 0o644))
	must(os.MkdirAll(filepath.Join(outside, "sub"), 0o755))
	must(os.WriteFile(filepath.Join(outside, "sub", "secret"), []byte("outside"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "file"), []byte("inside"), 0o644))
	must(os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "a", "b", "nested"), []byte("nested"), 0o644))
	must(os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "link")))
	must(os.Symlink(outside, filepath.Join(dir, "out")))
	must(os.Symlink("a", filepath.Join(dir, "in"))) // inside, but a symlink all the same
	must(syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "big"), make([]byte, 100), 0o644))
	return dir
}

// TestFDDir checks every access of a held directory against a hostile
// tree, once with openat2 and once one component at a time (a kernel
// before 5.6, or a sandbox that refuses openat2): a regular file below
// it is read; a symlink (final or on the way), "..", an absolute path, a
// named pipe (without blocking) and a file over its cap are refused,
// never read.
func TestFDDir(t *testing.T) {
	for _, mode := range []string{"openat2", "component walk"} {
		t.Run(mode, func(t *testing.T) {
			dir := heldTree(t)
			r, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			top, err := topDir(r)
			if err != nil {
				t.Fatal(err)
			}
			defer top.close()
			d := top.(*fdDir)
			d.res.noOpenat2.Store(mode != "openat2")

			reads := []struct {
				name string
				max  int64
				want string // "" for a refusal
			}{
				{"file", -1, "inside"},
				{"a/b/nested", -1, "nested"},
				{"file", 6, "inside"},
				{"file", 5, ""},
				{"big", 99, ""},
				{"link", -1, ""},
				{"out/secret", -1, ""},
				{"out/sub/secret", -1, ""},
				{"in/b/nested", -1, ""},
				{"../" + filepath.Base(dir) + "/file", -1, ""},
				{"a/../file", -1, ""},
				{dir + "/file", -1, ""},
				{"fifo", -1, ""},
				{"a", -1, ""},
				{"missing", -1, ""},
			}
			for _, tt := range reads {
				done := make(chan struct{})
				var got []byte
				var err error
				go func() {
					defer close(done)
					got, err = d.readFile(tt.name, tt.max)
				}()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					t.Fatalf("readFile(%q) blocked", tt.name)
				}
				switch {
				case tt.want != "" && (err != nil || string(got) != tt.want):
					t.Errorf("readFile(%q, %d) = %q, %v; want %q", tt.name, tt.max, got, err, tt.want)
				case tt.want == "" && err == nil:
					t.Errorf("readFile(%q, %d) = %q; want a refusal", tt.name, tt.max, got)
				}
				if tt.max < 0 {
					rc, _, err := d.openReader(tt.name)
					if err == nil {
						b, _ := io.ReadAll(rc)
						rc.Close()
						if string(b) != tt.want {
							t.Errorf("openReader(%q) read %q; want %q", tt.name, b, tt.want)
						}
					} else if tt.want != "" {
						t.Errorf("openReader(%q): %v", tt.name, err)
					}
				}
			}

			// lstat does not follow a final symlink, and never one on the way.
			if fi, err := d.lstat("link"); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("lstat(link) = %v, %v; want the symlink itself", fi, err)
			}
			if fi, err := d.lstat("a/b/nested"); err != nil || !fi.Mode().IsRegular() || fi.Size() != 6 {
				t.Errorf("lstat(a/b/nested) = %v, %v; want a 6-byte file", fi, err)
			}
			if fi, err := d.lstat("fifo"); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
				t.Errorf("lstat(fifo) = %v, %v; want a named pipe", fi, err)
			}
			for _, name := range []string{"out/secret", "out/sub/secret", "in/b/nested", "..", "a/..", dir} {
				if fi, err := d.lstat(name); err == nil {
					t.Errorf("lstat(%q) = %v; want a refusal", name, fi)
				}
			}
			if sub, err := d.sub("out"); err == nil {
				sub.close()
				t.Errorf("sub(out), a symlink to a directory outside: opened")
			}
			sub, err := d.sub("a")
			if err != nil {
				t.Fatalf("sub(a): %v", err)
			}
			defer sub.close()
			if b, err := sub.readFile("b/nested", -1); err != nil || string(b) != "nested" {
				t.Errorf("sub(a).readFile(b/nested) = %q, %v", b, err)
			}
			if _, err := sub.readFile("../file", -1); err == nil {
				t.Errorf("sub(a).readFile(../file): read")
			}

			// As a file system: io/fs's own checks over the part without
			// symlinks, and the hostile names refused.
			fsys := d.fsys()
			if err := fstest.TestFS(subFS(t, fsys, "a"), "b/nested"); err != nil {
				t.Error(err)
			}
			if _, err := fs.ReadFile(fsys, "out/secret"); err == nil {
				t.Errorf("ReadFile(out/secret): read through a symlink")
			}
			if _, err := fs.ReadDir(fsys, "out"); err == nil {
				t.Errorf("ReadDir(out): listed a directory through a symlink")
			}
			if _, err := fs.Stat(fsys, "link"); err == nil {
				t.Errorf("Stat(link): followed a symlink")
			}
			entries, err := fs.ReadDir(fsys, ".")
			if err != nil {
				t.Fatal(err)
			}
			types := map[string]fs.FileMode{}
			for _, e := range entries {
				types[e.Name()] = e.Type()
			}
			want := map[string]fs.FileMode{"file": 0, "a": fs.ModeDir, "link": fs.ModeSymlink, "out": fs.ModeSymlink, "in": fs.ModeSymlink, "fifo": fs.ModeNamedPipe, "big": 0}
			for name, typ := range want {
				if got, ok := types[name]; !ok || got != typ {
					t.Errorf("ReadDir(.): %s has type %v (listed %v); want %v", name, got, ok, typ)
				}
			}
			if len(types) != len(want) {
				t.Errorf("ReadDir(.) = %v; want %v", types, want)
			}
		})
	}
}

// subFS is fs.Sub, failing the test on error.
func subFS(t *testing.T, fsys fs.FS, dir string) fs.FS {
	t.Helper()
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}
