package mirror

import (
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
)

// TestSameContent: a catalog is the same as the one before when only its
// serial, creation time, chain link and shards differ, whatever the
// order of its entries; any entry, key, upstream or format that differs,
// or an entry more or less, makes it new.
func TestSameContent(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	entry := func(id, version string) index.Entry {
		return index.Entry{
			ID: index.MustParseID(id), Version: version, Platform: index.Universal, Published: t0,
			ManifestDigest: index.DigestBytes([]byte(id + version)), ManifestSize: 100,
			VsixSHA256: index.SHA256Hex([]byte(id + version + "vsix")), VsixSize: 1000,
		}
	}
	base := func() *index.Catalog {
		return &index.Catalog{Format: index.CatalogFormat, Serial: 4, Created: t0, Upstream: "https://open-vsx.example", ShardDigits: 1,
			Previous: index.DigestBytes([]byte("3")),
			Entries:  []index.Entry{entry("a.one", "1.0.0"), entry("b.two", "2.0.0"), entry("c.three", "3.0.0")}}
	}
	tests := []struct {
		name   string
		change func(c *index.Catalog)
		same   bool
	}{
		{"identical", func(*index.Catalog) {}, true},
		{"serial, created, previous and shards", func(c *index.Catalog) {
			c.Serial, c.Created, c.Previous = 5, t0.Add(time.Hour), index.DigestBytes([]byte("4"))
			c.Shards = []index.ShardRef{{Bin: "0", Digest: index.DigestBytes(nil), Size: 1, Entries: 3}}
		}, true},
		{"entries in another order", func(c *index.Catalog) { c.Entries[0], c.Entries[2] = c.Entries[2], c.Entries[0] }, true},
		{"an entry more", func(c *index.Catalog) { c.Entries = append(c.Entries, entry("d.four", "4.0.0")) }, false},
		{"an entry less", func(c *index.Catalog) { c.Entries = c.Entries[1:] }, false},
		{"an entry replaced", func(c *index.Catalog) { c.Entries[1] = entry("b.two", "2.0.1") }, false},
		{"an entry's field", func(c *index.Catalog) { c.Entries[2].DisplayName = "Three" }, false},
		{"the upstream", func(c *index.Catalog) { c.Upstream = "https://other.example" }, false},
		{"the policy", func(c *index.Catalog) { c.PolicyDigest = index.DigestBytes([]byte("policy")) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := base()
			tt.change(next)
			if got, err := sameContent(base(), next); err != nil || got != tt.same {
				t.Errorf("sameContent = %v, %v; want %v", got, err, tt.same)
			}
		})
	}
	t.Run("format 1 before", func(t *testing.T) {
		prev := base()
		prev.Format, prev.ShardDigits = index.FlatCatalogFormat, 0
		if got, err := sameContent(prev, base()); err != nil || got {
			t.Errorf("sameContent(format 1, format 2) = %v, %v; want false: the sync upgrades it", got, err)
		}
	})
}
