package atomicfile_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/internal/atomicfile"
)

// wantOnly fails t unless dir holds name and nothing else: no temporary
// file is left behind.
func wantOnly(t *testing.T, dir, name string) {
	t.Helper()
	ds, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range ds {
		names = append(names, d.Name())
	}
	if len(names) != 1 || names[0] != name {
		t.Errorf("directory holds %q; want only %s", names, name)
	}
}

// place is where a test writes: through the OS's paths, or inside an
// *os.Root.
type place struct {
	name string
	// open returns the FS for dir and the name by which it knows
	// dir/base.
	open func(t *testing.T, dir, base string) (atomicfile.FS, string)
}

var places = []place{
	{"os", func(t *testing.T, dir, base string) (atomicfile.FS, string) {
		return atomicfile.FS{}, filepath.Join(dir, base)
	}},
	{"root", func(t *testing.T, dir, base string) (atomicfile.FS, string) {
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { root.Close() })
		return atomicfile.In(root), base
	}},
}

// record records the hook's events, each as "event name" with name
// relative to dir, until the test ends.
func record(t *testing.T, dir string) *[]string {
	var events []string
	restore := atomicfile.SetTestHook(func(event, name string) {
		if rel, err := filepath.Rel(dir, name); err == nil && filepath.IsAbs(name) {
			name = rel
		}
		events = append(events, event+" "+filepath.ToSlash(name))
	})
	t.Cleanup(restore)
	return &events
}

// isTemp reports whether event names the temporary file of base.
func isTemp(event, base string) bool {
	return strings.HasPrefix(event, "sync file ."+base+".tmp-")
}

func TestWriteFile(t *testing.T) {
	for _, pl := range places {
		for _, perm := range []fs.FileMode{0o600, 0o644, 0o640} {
			t.Run(pl.name+"/"+perm.String(), func(t *testing.T) {
				dir := t.TempDir()
				fsys, p := pl.open(t, dir, "state.json")
				for _, content := range []string{"one", "two, longer", ""} {
					if err := fsys.WriteFile(p, []byte(content), perm); err != nil {
						t.Fatal(err)
					}
					got, err := os.ReadFile(filepath.Join(dir, "state.json"))
					if err != nil || string(got) != content {
						t.Fatalf("after WriteFile(%q): %q, %v", content, got, err)
					}
				}
				fi, err := os.Stat(filepath.Join(dir, "state.json"))
				if err != nil {
					t.Fatal(err)
				}
				if runtime.GOOS != "windows" && fi.Mode().Perm() != perm {
					t.Errorf("mode = %v; want %v", fi.Mode(), perm)
				}
				wantOnly(t, dir, "state.json")
			})
		}
	}
}

// TestWriteSyncs: the temporary file is fsynced before it is renamed into
// place, and the directory after.
func TestWriteSyncs(t *testing.T) {
	for _, pl := range places {
		for _, exclusive := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/exclusive=%v", pl.name, exclusive), func(t *testing.T) {
				dir := t.TempDir()
				fsys, p := pl.open(t, dir, "f")
				events := record(t, dir)
				put := "rename f"
				var err error
				if exclusive {
					put = "link f"
					err = fsys.WriteExclusive(p, []byte("x"), 0o644)
				} else {
					err = fsys.WriteFile(p, []byte("x"), 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
				if len(*events) != 3 || !isTemp((*events)[0], "f") || (*events)[1] != put || (*events)[2] != "sync dir ." {
					t.Errorf("events %q; want the temporary file synced, %q, the directory synced", *events, put)
				}
			})
		}
	}
}

func TestWriteFailureLeavesOld(t *testing.T) {
	boom := errors.New("boom")
	for _, pl := range places {
		for _, tc := range []struct {
			name string
			fill func(w io.Writer) error
		}{
			{"fill fails", func(w io.Writer) error {
				w.Write([]byte("half"))
				return boom
			}},
			{"fill fails at once", func(io.Writer) error { return boom }},
		} {
			t.Run(pl.name+"/"+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				fsys, p := pl.open(t, dir, "f")
				if err := fsys.WriteFile(p, []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
				events := record(t, dir)
				err := fsys.Write(p, 0o644, tc.fill)
				if !errors.Is(err, boom) {
					t.Fatalf("Write = %v; want boom", err)
				}
				if !strings.Contains(err.Error(), "f") {
					t.Errorf("Write = %v; want the file named", err)
				}
				if got, _ := os.ReadFile(filepath.Join(dir, "f")); string(got) != "old" {
					t.Errorf("after a failed write the file holds %q; want old", got)
				}
				if len(*events) > 0 {
					t.Errorf("a failed write did %q", *events)
				}
				wantOnly(t, dir, "f")
			})
		}
	}
}

// TestRenameFailureLeavesNoTemp: a target that cannot be replaced (a
// directory with something in it) fails the write, and the temporary
// file goes.
func TestRenameFailureLeavesNoTemp(t *testing.T) {
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "f", "inside"), 0o755); err != nil {
				t.Fatal(err)
			}
			fsys, p := pl.open(t, dir, "f")
			if err := fsys.WriteFile(p, []byte("new"), 0o644); err == nil {
				t.Fatal("WriteFile over a full directory succeeded")
			}
			wantOnly(t, dir, "f")
		})
	}
}

func TestWriteExclusive(t *testing.T) {
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			dir := t.TempDir()
			fsys, p := pl.open(t, dir, "k.key")
			if err := fsys.WriteExclusive(p, []byte("first"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := fsys.WriteExclusive(p, []byte("second"), 0o600); !errors.Is(err, fs.ErrExist) {
				t.Errorf("second WriteExclusive = %v; want fs.ErrExist", err)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "k.key")); string(got) != "first" {
				t.Errorf("file holds %q; want first", got)
			}
			wantOnly(t, dir, "k.key")
		})
	}
}

// TestPackageFunctions: WriteFile, Write, WriteExclusive and SyncDir of
// the package are those of the OS's FS.
func TestPackageFunctions(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	events := record(t, dir)
	if err := atomicfile.WriteFile(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(p, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, "two"); return err }); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteExclusive(p, []byte("three"), 0o644); !errors.Is(err, fs.ErrExist) {
		t.Errorf("WriteExclusive over a file = %v; want fs.ErrExist", err)
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "two" {
		t.Errorf("file holds %q; want two", got)
	}
	if n := strings.Count(strings.Join(*events, "\n"), "sync dir ."); n != 3 {
		t.Errorf("events %q: want 3 directory syncs", *events)
	}
	wantOnly(t, dir, "f")
}

// TestRoot: an FS on a root refuses names that lead outside it.
func TestRoot(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "in")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(parent, filepath.Join(dir, "out")); err != nil {
		t.Skip("no symlinks:", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	fsys := atomicfile.In(root)
	for _, name := range []string{"../escaped", "out/escaped", filepath.Join(parent, "escaped")} {
		if err := fsys.WriteFile(name, []byte("x"), 0o644); err == nil {
			t.Errorf("WriteFile(%q) inside a root succeeded", name)
		}
	}
	if ds, _ := os.ReadDir(parent); len(ds) != 1 {
		t.Errorf("the root's parent holds %d entries; want only the root", len(ds))
	}
}

// TestTemp: the steps of a write, for writers that need them.
func TestTemp(t *testing.T) {
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			fsys, base := pl.open(t, dir, "")
			at := func(name string) string { return filepath.Join(base, name) }
			events := record(t, dir)

			// A pattern's "*" becomes random text; no two names alike.
			a, err := fsys.Create(base, "tmp_obj_*.part", 0o444)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Cleanup()
			b, err := fsys.Create(base, "tmp_obj_", 0o444)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Cleanup()
			an, bn := filepath.Base(a.Name()), filepath.Base(b.Name())
			if !strings.HasPrefix(an, "tmp_obj_") || !strings.HasSuffix(an, ".part") || len(an) <= len("tmp_obj_.part") ||
				!strings.HasPrefix(bn, "tmp_obj_") || len(bn) <= len("tmp_obj_") {
				t.Errorf("temporary files %q and %q; want tmp_obj_<random>.part and tmp_obj_<random>", an, bn)
			}
			if _, err := fsys.Create(base, "a/*", 0o644); err == nil {
				t.Error("Create with a pattern holding a separator succeeded")
			}

			// Rename: another directory, no fsync (the caller makes it
			// durable), and Cleanup afterwards keeps the file.
			io.WriteString(a, "object")
			if err := a.Rename(at(filepath.Join("sub", "obj"))); err != nil {
				t.Fatal(err)
			}
			a.Cleanup()
			if got, err := os.ReadFile(filepath.Join(dir, "sub", "obj")); string(got) != "object" {
				t.Errorf("renamed file holds %q, %v; want object", got, err)
			}
			if !slices.Equal(*events, []string{"rename sub/obj"}) {
				t.Errorf("events %q; want only the rename, no fsync", *events)
			}
			if _, err := a.Write([]byte("more")); !errors.Is(err, os.ErrClosed) {
				t.Errorf("Write after Rename = %v; want os.ErrClosed", err)
			}

			// Cleanup of a file not put in place removes it.
			b.Cleanup()
			if _, err := os.Lstat(filepath.Join(dir, bn)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("after Cleanup the temporary file: %v; want gone", err)
			}

			// CreateNamed: a lock file, exclusive.
			*events = nil
			l, err := fsys.CreateNamed(at("index.lock"), 0o644)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Cleanup()
			if _, err := fsys.CreateNamed(at("index.lock"), 0o644); !errors.Is(err, fs.ErrExist) {
				t.Errorf("second CreateNamed = %v; want fs.ErrExist", err)
			}
			io.WriteString(l, "index")
			if err := l.Commit(at("index")); err != nil {
				t.Fatal(err)
			}
			want := []string{"sync file index.lock", "rename index", "sync dir ."}
			if !slices.Equal(*events, want) {
				t.Errorf("events %q; want %q", *events, want)
			}
			if _, err := os.Lstat(filepath.Join(dir, "index.lock")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("after Commit the lock: %v; want gone", err)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "index")); string(got) != "index" {
				t.Errorf("index holds %q; want index", got)
			}
		})
	}
}
