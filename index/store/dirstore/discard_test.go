package dirstore_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
)

// TestDirDiscard: Discard removes what Open made for a new registry
// that still holds nothing (its directory, the missing parents made for
// it, or in an empty directory that existed only the marker and the
// subdirectories), and keeps a registry that holds something or that
// this open did not create.
func TestDirDiscard(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup returns the registry's path under base.
		setup func(t *testing.T, base string) string
		// fill writes into the open registry before Discard.
		fill        func(t *testing.T, d *dirstore.Store)
		wantRemoved bool
		// gone are the paths under base that must not exist afterward,
		// kept those that must.
		gone, kept []string
	}{
		{
			name:        "new directory",
			setup:       func(t *testing.T, base string) string { return filepath.Join(base, "reg") },
			wantRemoved: true,
			gone:        []string{"reg"},
		},
		{
			name:        "new directory and parents",
			setup:       func(t *testing.T, base string) string { return filepath.Join(base, "a", "b", "reg") },
			wantRemoved: true,
			gone:        []string{"a"},
		},
		{
			name: "empty directory that existed",
			setup: func(t *testing.T, base string) string {
				if err := os.Mkdir(filepath.Join(base, "reg"), 0o755); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(base, "reg")
			},
			wantRemoved: true,
			gone:        []string{"reg/airvsx-registry", "reg/metadata", "reg/extensions", "reg/quarantine"},
			kept:        []string{"reg"},
		},
		{
			name:  "a blob stored",
			setup: func(t *testing.T, base string) string { return filepath.Join(base, "reg") },
			fill:  func(t *testing.T, d *dirstore.Store) { putBlob(t, d, "pub/ext", []byte("stored")) },
			kept:  []string{"reg/airvsx-registry", "reg/extensions/pub/ext"},
		},
		{
			name:  "metadata written",
			setup: func(t *testing.T, base string) string { return filepath.Join(base, "reg") },
			fill: func(t *testing.T, d *dirstore.Store) {
				if err := d.WriteMetadata(t.Context(), "1.root.json", []byte("{}")); err != nil {
					t.Fatal(err)
				}
			},
			kept: []string{"reg/airvsx-registry", "reg/metadata/1.root.json"},
		},
		{
			name: "registry that existed",
			setup: func(t *testing.T, base string) string {
				d := storetest.OpenDir(t, filepath.Join(base, "reg"), dirstore.Options{Create: true})
				if err := d.Close(); err != nil {
					t.Fatal(err)
				}
				return filepath.Join(base, "reg")
			},
			kept: []string{"reg/airvsx-registry", "reg/metadata"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			d := storetest.OpenDir(t, tc.setup(t, base), dirstore.Options{Create: true})
			if tc.fill != nil {
				tc.fill(t, d)
			}
			if removed := storetest.DiscardAndClose(t, d); removed != tc.wantRemoved {
				t.Errorf("Discard removed it: %v; want %v", removed, tc.wantRemoved)
			}
			for _, p := range tc.gone {
				if _, err := os.Lstat(filepath.Join(base, p)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s is left (%v)", p, err)
				}
			}
			for _, p := range tc.kept {
				if _, err := os.Lstat(filepath.Join(base, p)); err != nil {
					t.Errorf("%s is gone: %v", p, err)
				}
			}
			if _, err := os.Lstat(base); err != nil {
				t.Errorf("the parent that existed is gone: %v", err)
			}
		})
	}
}

// TestDirDiscardHoldsLock: a new registry is locked until it is
// discarded (no second writer opens it), a writer after Discard creates
// it afresh, and the discarded Store still closes cleanly.
func TestDirDiscardHoldsLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "reg")
	d := storetest.OpenDir(t, path, dirstore.Options{Create: true})
	if _, err := dirstore.Open(path, dirstore.Options{Create: true}); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("second writer: %v; want ErrLocked", err)
	}
	if removed, err := d.Discard(); err != nil || !removed {
		t.Fatalf("Discard: %v, %v; want removed", removed, err)
	}
	d2, err := dirstore.Open(path, dirstore.Options{Create: true})
	if err != nil {
		t.Fatalf("a writer after Discard: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close after Discard: %v", err)
	}
	if err := d2.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(path, artifact.MarkerFile)); err != nil {
		t.Errorf("the new writer's registry: %v", err)
	}
}
