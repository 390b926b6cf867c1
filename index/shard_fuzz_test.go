package index

import (
	"bytes"
	"testing"
)

// FuzzDecodeShard feeds DecodeShard any bytes as the shard a head pins.
// Invariant: it never panics, and what it accepts is as many entries as
// the head says, each valid, listed once and of the pinned bin.
func FuzzDecodeShard(f *testing.F) {
	head, shards, err := testCatalog().Split(1)
	if err != nil {
		f.Fatal(err)
	}
	h, err := DecodeCatalog(bytes.NewReader(head))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range shards {
		f.Add(uint8(0), s.Data)
	}
	f.Add(uint8(1), []byte(`{"format":2,"bin":"0","entries":[]}`))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		ref := h.Shards[int(which)%len(h.Shards)]
		ref.Size = int64(len(data))
		entries, err := DecodeShard(bytes.NewReader(data), h, ref)
		if err != nil {
			return
		}
		if len(entries) != ref.Entries {
			t.Fatalf("accepted %d entries; the head says %d", len(entries), ref.Entries)
		}
		seen := map[string]bool{}
		for i := range entries {
			e := &entries[i]
			if err := e.Validate(); err != nil || BinOf(e.ID, len(ref.Bin)) != ref.Bin || seen[e.Key()] {
				t.Fatalf("accepted %s (valid: %v, bin %s of %s, repeated %v)", e, err, BinOf(e.ID, len(ref.Bin)), ref.Bin, seen[e.Key()])
			}
			seen[e.Key()] = true
		}
	})
}

// FuzzDecodeCatalog feeds DecodeCatalog any bytes as a catalog file.
// Invariant: it never panics, and what it accepts validates, is format 1
// or a format-2 head without entries, and encodes again.
func FuzzDecodeCatalog(f *testing.F) {
	flat, err := testCatalog().Encode()
	if err != nil {
		f.Fatal(err)
	}
	head, _, err := testCatalog().Split(2)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(flat)
	f.Add(head)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeCatalog(bytes.NewReader(data))
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted a catalog that does not validate: %v", err)
		}
		if c.Format == CatalogFormat && (len(c.Entries) > 0 || c.ShardDigits == 0) {
			t.Fatalf("accepted a format-2 head with %d entries and %d shard digits", len(c.Entries), c.ShardDigits)
		}
		if _, err := c.Encode(); err != nil {
			t.Fatalf("accepted a catalog that does not encode: %v", err)
		}
	})
}
