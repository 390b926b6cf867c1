package place_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/place"
)

// TestDryRun: a dry run plans against the place itself when it
// exists or is an OCI registry, else against an empty directory registry
// in a temporary directory, leaving nothing at the place; remove removes
// that directory.
func TestDryRun(t *testing.T) {
	root := t.TempDir()
	existing := filepath.Join(root, "registry")
	if err := os.Mkdir(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(root, "new")
	tests := []struct {
		name  string
		place string
		temp  bool   // the dry run gets a temporary registry
		check string // a path that must not exist afterwards ("" for none)
	}{
		{"existing directory", existing, false, ""},
		{"missing directory", missing, true, missing},
		{"existing git repository", "git:" + existing + "#main", false, ""},
		{"missing git repository", "git:" + missing + ".git", true, missing + ".git"},
		{"OCI registry", "docker://127.0.0.1:5000/airvsx", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, remove, err := place.DryRun(tt.place)
			if err != nil {
				t.Fatalf("DryRun(%q): %v", tt.place, err)
			}
			if !tt.temp {
				if got != tt.place {
					t.Errorf("DryRun(%q) = %q; want the place itself", tt.place, got)
				}
				remove()
				return
			}
			if got == tt.place {
				t.Fatalf("DryRun(%q) = the place itself; want a temporary registry", tt.place)
			}
			st, err := dirstore.Open(got, dirstore.Options{ReadOnly: true})
			if err != nil {
				t.Fatalf("the temporary registry %s does not open as a directory registry: %v", got, err)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Lstat(tt.check); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("DryRun(%q) made %s (Lstat: %v); want nothing at the place", tt.place, tt.check, err)
			}
			remove()
			if _, err := os.Lstat(filepath.Dir(got)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("remove left the temporary directory %s (Lstat: %v)", filepath.Dir(got), err)
			}
		})
	}
}
