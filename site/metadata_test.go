package site_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/site"
	"github.com/airvsx/airvsx/site/sitetest"
)

// cappedStore records the largest cap each metadata file was read with.
type cappedStore struct {
	store.Store
	mu   sync.Mutex
	caps map[string]int64
}

func (s *cappedStore) ReadMetadata(ctx context.Context, name string, maxSize int64) ([]byte, error) {
	s.mu.Lock()
	s.caps[name] = max(s.caps[name], maxSize)
	s.mu.Unlock()
	return s.Store.ReadMetadata(ctx, name, maxSize)
}

// TestHugeMetadata: a metadata file of 1 GiB (sparse) is refused with an
// error naming it, after reading at most its role's cap of it: never the
// whole file, nor the catalog's 256 MB cap for a small file.
func TestHugeMetadata(t *testing.T) {
	dir, key := synthetic(t, []sitetest.Extension{{ID: mustID("pub.one"), Version: "1.0.0"}})
	catalogs, _ := filepath.Glob(filepath.Join(dir, "metadata", "targets", "*.catalog.json"))
	snapshots, _ := filepath.Glob(filepath.Join(dir, "metadata", "*.snapshot.json"))
	if len(catalogs) != 1 || len(snapshots) != 1 {
		t.Fatalf("catalogs %v, snapshots %v; want one each", catalogs, snapshots)
	}
	rel := func(p string) string {
		r, _ := filepath.Rel(filepath.Join(dir, "metadata"), p)
		return filepath.ToSlash(r)
	}
	for _, tc := range []struct {
		name string
		max  int64 // the most any read of it may ask for
	}{
		{"timestamp.json", trust.MaxTimestampBytes},
		{"1.root.json", trust.MaxRootBytes},
		{rel(snapshots[0]), trust.MaxSnapshotBytes},
		{rel(catalogs[0]), 1 << 20}, // the length the targets role declares
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := filepath.Join(t.TempDir(), "registry")
			if err := os.CopyFS(reg, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(filepath.Join(reg, "metadata", tc.name), os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Truncate(1 << 30); err != nil {
				t.Fatal(err)
			}
			f.Close()
			d := storetest.OpenDir(t, reg, dirstore.Options{ReadOnly: true})
			defer d.Close()
			st := &cappedStore{Store: d, caps: make(map[string]int64)}
			out := filepath.Join(t.TempDir(), "site")
			_, err = site.Render(t.Context(), st, site.Options{Out: out, Anchor: trust.Anchor{Key: key}})
			if !errors.Is(err, site.ErrNotVerified) || !strings.Contains(err.Error(), "metadata/"+tc.name) {
				t.Errorf("Render = %v; want %v naming metadata/%s", err, site.ErrNotVerified, tc.name)
			}
			// Unverified, the file is refused too: the render fails, or
			// (for a file an unverified read can do without) the banner
			// names it.
			res, err := site.Render(t.Context(), st, site.Options{Out: out, Anchor: trust.Anchor{Key: key}, Unverified: true})
			if err == nil && !strings.Contains(res.Reason, "metadata/"+tc.name) || err != nil && !strings.Contains(err.Error(), "metadata/"+tc.name) {
				t.Errorf("unverified: Render = %+v, %v; want metadata/%s named", res, err, tc.name)
			}
			if got := st.caps[tc.name]; got > tc.max {
				t.Errorf("metadata/%s was read with a cap of %d bytes; want at most %d", tc.name, got, tc.max)
			}
		})
	}
}
