package trust

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/testkit/signtest"
	"github.com/google/go-cmp/cmp"
)

// countFS counts the opens of each metadata file.
type countFS struct {
	memFS
	opened map[string]int
}

func (c *countFS) Open(name string) (io.ReadCloser, error) {
	c.opened[name]++
	return c.memFS.Open(name)
}

func shardEntry(id, version string) index.Entry {
	return index.Entry{
		ID: index.MustParseID(id), Version: version, Platform: index.Universal, Published: t0.UTC().Truncate(1e9),
		ManifestDigest: index.DigestBytes([]byte(id + version)), ManifestSize: 100,
		VsixSHA256: index.SHA256Hex([]byte(id + version + "vsix")), VsixSize: 1000,
	}
}

func shardCatalog(serial int64, n int) *index.Catalog {
	c := &index.Catalog{Format: index.CatalogFormat, Serial: serial, Created: t0.UTC().Truncate(1e9), Upstream: "https://open-vsx.example", ShardDigits: 1}
	for i := range n {
		c.Entries = append(c.Entries, shardEntry(fmt.Sprintf("pub.ext%d", i), "1.0.0"))
	}
	return c
}

// TestPublishCatalogWritesTheChange: a second publish that adds one
// entry writes that entry's shard and the signed metadata, and no other
// shard; readers see every entry through the shards.
func TestPublishCatalogWritesTheChange(t *testing.T) {
	fsys := &countFS{memFS: memFS{}, opened: map[string]int{}}
	key := signtest.Signer(t)
	cat := shardCatalog(1, 200)
	res1, err := PublishCatalog(t.Context(), fsys, cat, key, PublishOptions{Now: at(t0)})
	if err != nil {
		t.Fatal(err)
	}
	if got := countShards(res1.Written); got != 16 {
		t.Fatalf("first publish wrote %d shards; want 16 (200 IDs over 16 bins)", got)
	}
	next := shardCatalog(2, 200)
	added := shardEntry("pub.ext0", "2.0.0")
	next.Entries = append(next.Entries, added)
	res2, err := PublishCatalog(t.Context(), fsys, next, key, PublishOptions{Now: at(t0.Add(1e9))})
	if err != nil {
		t.Fatal(err)
	}
	bin := index.BinOf(added.ID, 1)
	if got := countShards(res2.Written); got != 1 || !strings.Contains(res2.Written[0], ".shard-"+bin+".json") {
		t.Fatalf("second publish wrote %v; want the shard of bin %s alone, then the signed metadata", res2.Written, bin)
	}

	root := fsys.memFS["1.root.json"]
	tr, err := Load(t.Context(), fsys, root, LoadOptions{Now: at(t0.Add(2e9))})
	if err != nil {
		t.Fatal(err)
	}
	head, err := tr.Head()
	if err != nil {
		t.Fatal(err)
	}
	if len(head.Entries) != 0 || len(head.Shards) != 16 || head.Serial != 2 {
		t.Fatalf("head: %d entries, %d shards, serial %d; want 0, 16, 2", len(head.Entries), len(head.Shards), head.Serial)
	}
	clear(fsys.opened)
	got, err := tr.Lookup(t.Context(), head, added.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || countShards(keys(fsys.opened)) != 1 {
		t.Errorf("Lookup(%s) = %d entries reading %v; want 2 entries from one shard", added.ID, len(got), fsys.opened)
	}
	whole, err := tr.Decode(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	next.Normalize()
	if diff := cmp.Diff(next.Entries, whole.Entries); diff != "" {
		t.Errorf("Decode (-published +read):\n%s", diff)
	}
}

// TestShardTamper: a shard changed, truncated, swapped for another of
// its bin, or gone is refused, naming its file, by every reader.
func TestShardTamper(t *testing.T) {
	key := signtest.Signer(t)
	build := func() (memFS, *Trusted, *index.Catalog) {
		fsys := memFS{}
		old := shardCatalog(1, 40)
		if _, err := PublishCatalog(t.Context(), fsys, old, key, PublishOptions{Now: at(t0)}); err != nil {
			t.Fatal(err)
		}
		cat := shardCatalog(2, 40)
		cat.Entries[0].Description = "changed"
		if _, err := PublishCatalog(t.Context(), fsys, cat, key, PublishOptions{Now: at(t0.Add(1e9))}); err != nil {
			t.Fatal(err)
		}
		tr, err := Load(t.Context(), fsys, fsys["1.root.json"], LoadOptions{Now: at(t0.Add(2e9))})
		if err != nil {
			t.Fatal(err)
		}
		head, err := tr.Head()
		if err != nil {
			t.Fatal(err)
		}
		return fsys, tr, head
	}
	id := index.MustParseID("pub.ext0")
	tests := []struct {
		name   string
		tamper func(fsys memFS, name, old string)
		want   error
	}{
		{"byte flipped", func(fsys memFS, name, _ string) { fsys[name][10] ^= 1 }, ErrMismatch},
		{"truncated", func(fsys memFS, name, _ string) { fsys[name] = fsys[name][:len(fsys[name])-2] }, ErrMismatch},
		{"from another serial", func(fsys memFS, name, old string) { fsys[name] = fsys[old] }, ErrMismatch},
		{"left out", func(fsys memFS, name, _ string) { delete(fsys, name) }, ErrMissing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys, tr, head := build()
			name := ShardName(*head.Shard(id))
			old := ""
			for n := range fsys {
				if strings.HasSuffix(n, ".shard-"+index.BinOf(id, 1)+".json") && n != name {
					old = n
				}
			}
			if old == "" {
				t.Fatal("fixture: no shard of the first serial")
			}
			tt.tamper(fsys, name, old)
			_, lerr := tr.Lookup(t.Context(), head, id)
			_, derr := tr.Decode(t.Context())
			for _, err := range []error{lerr, derr} {
				if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), "metadata/"+name) {
					t.Errorf("read = %v; want %v naming metadata/%s", err, tt.want, name)
				}
			}
		})
	}
}

func countShards(names []string) int {
	n := 0
	for _, name := range names {
		if shardFile.MatchString(name) {
			n++
		}
	}
	return n
}

func keys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
