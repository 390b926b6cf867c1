package vsix_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/index/vsix"
	"github.com/airvsx/airvsx/index/vsix/vsixtest"
)

// fuzzOptions keep every execution small: no archive can make Open or
// Extract handle more than a few megabytes.
var fuzzOptions = vsix.Options{
	MaxArchiveBytes: 4 << 20,
	MaxEntries:      256,
	MaxTotalBytes:   4 << 20,
}

// FuzzOpen checks that an archive NewReader accepts is safe to unpack:
// Extract succeeds, writes only regular files and directories inside the
// target, no links, each file exactly as large as its entry declares and
// equal to ReadFile. A rejection must be a *ProblemsError.
func FuzzOpen(f *testing.F) {
	f.Add(build(f, vsixtest.Sample()))
	f.Add(build(f, vsixtest.ManifestMismatch()))
	f.Add(build(f, vsixtest.Minimal(map[string]string{"a/": "", "a/b": "b", "c": ""})))
	for _, c := range vsixtest.Hostile() {
		if data := build(f, c.Build); len(data) <= 64<<10 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := vsix.NewReader(bytes.NewReader(data), int64(len(data)), fuzzOptions)
		if err != nil {
			var pe *vsix.ProblemsError
			if !errors.As(err, &pe) || len(pe.Problems) == 0 || a != nil {
				t.Fatalf("NewReader = %v, %v; want nil and a *ProblemsError with problems", a, err)
			}
			return
		}
		dir := filepath.Join(t.TempDir(), "out")
		if err := a.Extract(t.Context(), dir); err != nil {
			t.Fatalf("Extract of an accepted archive: %v", err)
		}
		files := 0
		for _, e := range a.Entries() {
			p := filepath.Join(dir, filepath.FromSlash(e.Name))
			if rel, err := filepath.Rel(dir, p); err != nil || !filepath.IsLocal(rel) {
				t.Fatalf("entry %q extracts outside the target", e.Name)
			}
			fi, err := os.Lstat(p)
			if err != nil {
				t.Fatalf("entry %q: %v", e.Name, err)
			}
			if e.Dir {
				if !fi.IsDir() {
					t.Fatalf("entry %q: mode %v; want a directory", e.Name, fi.Mode())
				}
				continue
			}
			files++
			if !fi.Mode().IsRegular() || fi.Size() != e.Size {
				t.Fatalf("entry %q: mode %v, %d bytes; want a regular file of %d", e.Name, fi.Mode(), fi.Size(), e.Size)
			}
			got, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			want, err := a.ReadFile(e.Name)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("entry %q: extracted content differs from ReadFile (%v)", e.Name, err)
			}
		}
		// Nothing else was written: no links, only the entries' files.
		found := 0
		err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type()&os.ModeType&^os.ModeDir != 0 {
				t.Fatalf("%s: mode %v; want a regular file or directory", p, d.Type())
			}
			if d.Type().IsRegular() {
				found++
			}
			return nil
		})
		if err != nil || found != files {
			t.Fatalf("walk: %v; found %d files, want %d", err, found, files)
		}
	})
}
