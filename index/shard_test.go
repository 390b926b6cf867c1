package index

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSplitRoundTrip: the head and shards Split writes decode back to the
// same entries, each shard holds its bin's extensions only, and the same
// content always gives the same bytes.
func TestSplitRoundTrip(t *testing.T) {
	c := testCatalog()
	c.Format = CatalogFormat
	head, shards, err := c.Split(1)
	if err != nil {
		t.Fatal(err)
	}
	h, err := DecodeCatalog(bytes.NewReader(head))
	if err != nil {
		t.Fatalf("DecodeCatalog(head): %v", err)
	}
	if n, flat := h.EntryCount(), testCatalog().EntryCount(); n != len(c.Entries) || flat != len(c.Entries) {
		t.Errorf("EntryCount: head %d, format-1 catalog %d; want %d", n, flat, len(c.Entries))
	}
	if len(h.Entries) != 0 || h.ShardDigits != 1 || len(h.Shards) != len(shards) {
		t.Fatalf("head: %d entries, %d digits, %d shards; want 0, 1, %d", len(h.Entries), h.ShardDigits, len(h.Shards), len(shards))
	}
	var all []Entry
	for i, s := range shards {
		if s.Ref != h.Shards[i] || s.Ref.Digest != DigestBytes(s.Data) || s.Ref.Size != int64(len(s.Data)) {
			t.Errorf("shard %d: ref %+v does not pin its bytes, or differs from the head's %+v", i, s.Ref, h.Shards[i])
		}
		entries, err := DecodeShard(bytes.NewReader(s.Data), h, s.Ref)
		if err != nil {
			t.Fatalf("DecodeShard(%s): %v", s.Ref.Bin, err)
		}
		for _, e := range entries {
			if BinOf(e.ID, 1) != s.Ref.Bin {
				t.Errorf("%s is in shard %s; its bin is %s", e.String(), s.Ref.Bin, BinOf(e.ID, 1))
			}
			if ref := h.Shard(e.ID); ref == nil || ref.Bin != s.Ref.Bin {
				t.Errorf("head.Shard(%s) = %v; want bin %s", e.ID, ref, s.Ref.Bin)
			}
		}
		all = append(all, entries...)
	}
	SortEntries(all)
	want := testCatalog()
	want.Normalize()
	if diff := cmp.Diff(want.Entries, all); diff != "" {
		t.Errorf("entries through the shards (-want +got):\n%s", diff)
	}
	again := testCatalog()
	again.Entries[0], again.Entries[1] = again.Entries[1], again.Entries[0]
	head2, shards2, err := again.Split(1)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(head, head2) || len(shards2) != len(shards) {
		t.Error("the same content split twice gave other bytes")
	}
	// An ID whose bin has no shard has none.
	for i := range 100 {
		id := MustParseID(fmt.Sprintf("nobody.n%d", i))
		if !slices.ContainsFunc(h.Shards, func(r ShardRef) bool { return r.Bin == BinOf(id, 1) }) {
			if ref := h.Shard(id); ref != nil {
				t.Errorf("head.Shard(%s) = %+v; its bin %s has no shard", id, ref, BinOf(id, 1))
			}
			return
		}
	}
	t.Fatal("no ID of an empty bin found")
}

func TestShardDigitsFor(t *testing.T) {
	tests := []struct{ n, prev, want int }{
		{0, 0, 1},
		{16 * ShardTarget, 0, 1},
		{16*ShardTarget + 1, 0, 2},
		{200_000, 0, 2},
		{256*ShardTarget + 1, 0, 3},
		{10, 2, 2}, // never fewer digits than before: no re-binning on a shrink
		{1 << 40, 0, MaxShardDigits},
		{10, 9, MaxShardDigits},
	}
	for _, tt := range tests {
		if got := ShardDigitsFor(tt.n, tt.prev); got != tt.want {
			t.Errorf("ShardDigitsFor(%d, %d) = %d; want %d", tt.n, tt.prev, got, tt.want)
		}
	}
}

// TestDecodeShardRejects: a shard that does not fit the head that pins it
// is refused, naming the field.
func TestDecodeShardRejects(t *testing.T) {
	c := testCatalog()
	head, shards, err := c.Split(1)
	if err != nil {
		t.Fatal(err)
	}
	h, err := DecodeCatalog(bytes.NewReader(head))
	if err != nil {
		t.Fatal(err)
	}
	var s ShardFile // a shard of golang.go, which has several entries
	for _, f := range shards {
		if f.Ref.Bin == BinOf(MustParseID("golang.go"), 1) {
			s = f
		}
	}
	other := BinOf(MustParseID("redhat.java"), 1)
	if other == s.Ref.Bin {
		t.Fatal("fixture: redhat.java and golang.go share a bin; pick other IDs")
	}
	tests := []struct {
		name    string
		edit    func(string) string
		ref     func(ShardRef) ShardRef
		wantErr string
	}{
		{"unknown field", func(s string) string { return strings.Replace(s, `"format": 2,`, `"format": 2, "x": 1,`, 1) }, nil, "unknown field"},
		{"format", func(s string) string { return strings.Replace(s, `"format": 2,`, `"format": 1,`, 1) }, nil, "format: 1"},
		{"bin", func(d string) string {
			return strings.Replace(d, fmt.Sprintf(`"bin": %q`, s.Ref.Bin), fmt.Sprintf(`"bin": %q`, other), 1)
		}, nil, "but the catalog lists it as bin"},
		{"entry count", nil, func(r ShardRef) ShardRef { r.Entries++; return r }, "entries:"},
		{"larger than pinned", nil, func(r ShardRef) ShardRef { r.Size--; return r }, "larger than"},
		{"duplicate entry", func(s string) string {
			return strings.Replace(s, `"version": "0.9.0"`, `"version": "0.40.0"`, 1)
		}, nil, "duplicate entry"},
		{"unknown upstream key", func(s string) string {
			return strings.Replace(s, `"signed": false`, `"signed": true, "keyId": "nope"`, 1)
		}, nil, `keyId "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, ref := string(s.Data), s.Ref
			if tt.edit != nil {
				data = tt.edit(data)
				if data == string(s.Data) {
					t.Fatal("edit changed nothing; fix the test")
				}
				ref.Size = int64(len(data))
			}
			if tt.ref != nil {
				ref = tt.ref(ref)
			}
			_, err := DecodeShard(strings.NewReader(data), h, ref)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("DecodeShard = %v; want error containing %q", err, tt.wantErr)
			}
		})
	}
	t.Run("entry of another bin", func(t *testing.T) {
		var moved ShardFile
		for _, f := range shards {
			if f.Ref.Bin == other {
				moved = f
			}
		}
		// The other bin's shard, presented as this bin's: its entries are
		// not of this bin.
		ref := moved.Ref
		ref.Bin = s.Ref.Bin
		data := strings.Replace(string(moved.Data), fmt.Sprintf(`"bin": %q`, other), fmt.Sprintf(`"bin": %q`, s.Ref.Bin), 1)
		ref.Size = int64(len(data))
		_, err := DecodeShard(strings.NewReader(data), h, ref)
		if err == nil || !strings.Contains(err.Error(), "belongs in bin "+other) {
			t.Fatalf("DecodeShard = %v; want an entry that belongs in bin %s", err, other)
		}
	})
}

// TestDecodeHeadRejects: a format-2 head with a broken shard list is
// refused.
func TestDecodeHeadRejects(t *testing.T) {
	head, _, err := testCatalog().Split(1)
	if err != nil {
		t.Fatal(err)
	}
	good := string(head)
	tests := []struct{ name, from, to, wantErr string }{
		{"no digits", `"shardDigits": 1,`, ``, "shardDigits"},
		{"digits", `"shardDigits": 1,`, `"shardDigits": 5,`, "shardDigits: 5"},
		{"bin width", `"bin": "`, `"bin": "0`, "hex digits"},
		{"digest", `"digest": "sha256:`, `"digest": "sha512:`, "digest"},
		{"size", `"size": `, `"size": -`, "size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.Replace(good, tt.from, tt.to, 1)
			if in == good {
				t.Fatal("edit changed nothing; fix the test")
			}
			_, err := DecodeCatalog(strings.NewReader(in))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("DecodeCatalog = %v; want error containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestSortEntries: SortEntries orders as compareEntries does, whatever the
// order it starts from (versions that are not SemVer included).
func TestSortEntries(t *testing.T) {
	var es []Entry
	for _, id := range []string{"b.x", "A.y", "a.y", "a.Y", "c.z"} {
		for _, v := range []string{"1.0.0", "1.10.0", "1.2.0", "2.0.0-pre", "0.9", "x"} {
			for _, p := range []Platform{Universal, LinuxX64} {
				e := testEntry(id, "1.0.0", p)
				e.Version = v
				es = append(es, e)
			}
		}
	}
	want := slices.Clone(es)
	slices.SortStableFunc(want, func(a, b Entry) int { return compareEntries(&a, &b) })
	for i := range 10 {
		got := slices.Clone(es)
		r := rand.New(rand.NewPCG(uint64(i), 2))
		r.Shuffle(len(got), func(a, b int) { got[a], got[b] = got[b], got[a] })
		SortEntries(got)
		if diff := cmp.Diff(names(want), names(got)); diff != "" {
			t.Fatalf("SortEntries (-compareEntries +got):\n%s", diff)
		}
	}
}

func names(es []Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.ID.String()+"@"+e.Version+"@"+string(e.Platform))
	}
	return out
}
