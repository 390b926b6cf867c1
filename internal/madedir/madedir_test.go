package madedir_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/internal/madedir"
)

// TestRemove: the directories MkdirAll made for a path are removed, and
// never one that existed before or that holds something.
func TestRemove(t *testing.T) {
	for _, tc := range []struct {
		name     string
		existing string // made before Missing, under base
		path     string // under base
		fill     string // a file written after MkdirAll, under base ("" none)
		gone     string // must not exist afterward ("" none)
		kept     string // must exist afterward
	}{
		{name: "one new", path: "a", gone: "a", kept: "."},
		{name: "new parents", path: "a/b/c", gone: "a", kept: "."},
		{name: "existing parent", existing: "a", path: "a/b/c", gone: "a/b", kept: "a"},
		{name: "existing path", existing: "a/b", path: "a/b", kept: "a/b"},
		{name: "written in", path: "a/b/c", fill: "a/b/c/f", kept: "a/b/c/f"},
		{name: "written beside", path: "a/b/c", fill: "a/x", gone: "a/b", kept: "a/x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			at := func(p string) string { return filepath.Join(base, filepath.FromSlash(p)) }
			if tc.existing != "" {
				if err := os.MkdirAll(at(tc.existing), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			top := madedir.Missing(at(tc.path))
			if err := os.MkdirAll(at(tc.path), 0o755); err != nil {
				t.Fatal(err)
			}
			if tc.fill != "" {
				if err := os.WriteFile(at(tc.fill), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := madedir.Remove(at(tc.path), top); err != nil {
				t.Fatalf("Remove: %v", err)
			}
			if tc.gone != "" {
				if _, err := os.Lstat(at(tc.gone)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s is left (%v)", tc.gone, err)
				}
			}
			if _, err := os.Lstat(at(tc.kept)); err != nil {
				t.Errorf("%s is gone: %v", tc.kept, err)
			}
		})
	}
}
