package mirror_test

import (
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
	"github.com/google/go-cmp/cmp"
)

// TestSyncUpgradesFlatCatalog: a registry whose catalog is format 1 (every
// entry in the one catalog file, as registries before the sharded format
// were) is read by sync and upgraded in place by it: with nothing new
// upstream, the next catalog is signed anyway, sharded, with the same
// entries, chained to the format-1 catalog.
func TestSyncUpgradesFlatCatalog(t *testing.T) {
	e := newEnv(t, openvsxtest.Options{})
	pol := demoreg.Policy(t)
	e.sync(t, pol, false)

	// Re-sign the same content as a format-1 catalog, serial 2.
	cat, digest := demoreg.ReadCatalog(t, e.dir)
	flat := *cat
	flat.Format, flat.ShardDigits, flat.Shards = index.FlatCatalogFormat, 0, nil
	flat.Serial, flat.Previous = cat.Serial+1, digest
	data, err := flat.Encode()
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.OpenDir(t, e.dir, dirstore.Options{})
	if _, err := trust.Publish(t.Context(), trust.Metadata(t.Context(), st), data, e.signer, trust.PublishOptions{Now: func() time.Time { return demoreg.SyncNow1 }}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	read, flatDigest := demoreg.ReadCatalog(t, e.dir)
	if read.Format != index.FlatCatalogFormat || len(read.Entries) != len(cat.Entries) {
		t.Fatalf("format-1 catalog read as format %d with %d entries; want 1 and %d", read.Format, len(read.Entries), len(cat.Entries))
	}

	rep := e.sync(t, pol, false)
	if rep.Catalog == nil || rep.Catalog.Unchanged || len(rep.Stored) != 0 {
		t.Fatalf("sync of a format-1 registry: catalog %+v, stored %v; want a new catalog and nothing downloaded", rep.Catalog, rep.Stored)
	}
	up, _ := demoreg.ReadCatalog(t, e.dir)
	if up.Format != index.CatalogFormat || len(up.Shards) == 0 || up.Serial != 3 || up.Previous != flatDigest {
		t.Errorf("upgraded catalog: format %d, %d shards, serial %d, previous %s; want format %d, shards, serial 3, previous %s",
			up.Format, len(up.Shards), up.Serial, up.Previous, index.CatalogFormat, flatDigest)
	}
	if diff := cmp.Diff(names(cat.Entries), names(up.Entries)); diff != "" {
		t.Errorf("entries changed by the upgrade (-before +after):\n%s", diff)
	}
	// Once upgraded, nothing new means nothing signed.
	if rep := e.sync(t, pol, false); rep.Catalog == nil || !rep.Catalog.Unchanged {
		t.Errorf("sync after the upgrade: catalog %+v; want unchanged", rep.Catalog)
	}
}
