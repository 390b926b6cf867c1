package verify_test

import (
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/testkit/demoreg"
)

// TestCatalogFormats: verify reads both catalog formats, checks every
// entry of each, and says which one it read: the sharded format with its
// shard count, or format 1, whose next sync shards it.
func TestCatalogFormats(t *testing.T) {
	sharded := fresh(t)
	flat := fresh(t)
	cat, digest := demoreg.ReadCatalog(t, flat)
	shards := len(cat.Shards)
	cat.Format, cat.ShardDigits, cat.Shards = index.FlatCatalogFormat, 0, nil
	cat.Serial, cat.Previous = cat.Serial+1, digest
	data, err := cat.Encode()
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.OpenDir(t, flat, dirstore.Options{})
	if _, err := trust.Publish(t.Context(), trust.Metadata(t.Context(), st), data, base(t).Signer, trust.PublishOptions{Now: func() time.Time { return demoreg.SyncNow2 }}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	tests := []struct {
		dir    string
		format int
		shards int
		text   string
	}{
		{sharded, index.CatalogFormat, shards, "format 2 ("},
		{flat, index.FlatCatalogFormat, 0, "format 1 (every entry in the catalog file; the next sync shards it)"},
	}
	for _, tt := range tests {
		rep := check(t, tt.dir)
		if !rep.OK() || rep.Catalog == nil || rep.Catalog.Entries != len(cat.Entries) || rep.Summary.EntryOK != len(cat.Entries) {
			t.Fatalf("format %d: ok %v, catalog %+v, %d entries ok; want every one of %d", tt.format, rep.OK(), rep.Catalog, rep.Summary.EntryOK, len(cat.Entries))
		}
		if rep.Catalog.Format != tt.format || rep.Catalog.Shards != tt.shards {
			t.Errorf("catalog format %d with %d shards; want %d with %d", rep.Catalog.Format, rep.Catalog.Shards, tt.format, tt.shards)
		}
		var b strings.Builder
		if err := rep.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tt.text) {
			t.Errorf("format %d: the text report does not say %q:\n%s", tt.format, tt.text, b.String())
		}
	}
	if shards < 2 {
		t.Errorf("the demo registry has %d shards; want several", shards)
	}
}
