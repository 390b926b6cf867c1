package index

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/airvsx/airvsx/internal/strictjson"
)

// Shard sizes. A bin is named by the first ShardDigits hex digits of the
// sha256 of an extension's lower-case ID, so a registry has at most
// 16^ShardDigits shards.
const (
	// MinShardDigits and MaxShardDigits bound Catalog.ShardDigits.
	MinShardDigits = 1
	MaxShardDigits = 4
	// ShardTarget is about how many entries a shard holds on average
	// before ShardDigitsFor picks one more digit.
	ShardTarget = 1024
)

// ShardRef pins one shard of a format-2 catalog.
type ShardRef struct {
	Bin     string `json:"bin"`     // ShardDigits lower-case hex digits
	Digest  string `json:"digest"`  // sha256:<hex> of the shard file
	Size    int64  `json:"size"`    // the shard file's length in bytes
	Entries int    `json:"entries"` // how many entries it lists
}

// Shard is the file of one bin of a format-2 catalog: the entries of the
// extensions whose ID hashes to Bin.
type Shard struct {
	Format  int     `json:"format"`
	Bin     string  `json:"bin"`
	Entries []Entry `json:"entries"`
}

// ShardFile is one encoded shard, as Split returns it.
type ShardFile struct {
	Ref  ShardRef
	Data []byte
}

// BinOf returns the bin of id: the first digits lower-case hex digits of
// the sha256 of its lower-case form (ID.Key).
func BinOf(id ID, digits int) string {
	sum := sha256.Sum256([]byte(id.Key()))
	return hex.EncodeToString(sum[:])[:digits]
}

// ShardDigitsFor returns the bin width for a catalog of n entries whose
// previous publish used prev digits: the fewest digits that keep shards
// at about ShardTarget entries, and never fewer than prev, so a registry
// is re-binned (every shard rewritten) only when it grows past 16 times
// its size at the last re-binning.
func ShardDigitsFor(n, prev int) int {
	d := MinShardDigits
	for bins := 16; d < MaxShardDigits && n > bins*ShardTarget; bins *= 16 {
		d++
	}
	return min(max(d, prev), MaxShardDigits)
}

// Split returns the format-2 encoding of c for publishing: the shard files
// of its entries grouped by bin (digits hex digits; only bins with entries
// have a shard), and the head, which pins them and lists no entries. c is
// normalized in place and its Format, ShardDigits and Shards are set to
// what was written.
func (c *Catalog) Split(digits int) (head []byte, shards []ShardFile, err error) {
	if digits < MinShardDigits || digits > MaxShardDigits {
		return nil, nil, fmt.Errorf("split catalog: %d shard digits outside %d..%d", digits, MinShardDigits, MaxShardDigits)
	}
	c.Format, c.ShardDigits = CatalogFormat, digits
	c.Normalize()
	byBin := make(map[string][]Entry)
	for _, e := range c.Entries {
		b := BinOf(e.ID, digits)
		byBin[b] = append(byBin[b], e)
	}
	c.Shards = make([]ShardRef, 0, len(byBin))
	for _, b := range slices.Sorted(maps.Keys(byBin)) {
		data, err := EncodeShard(b, byBin[b])
		if err != nil {
			return nil, nil, err
		}
		ref := ShardRef{Bin: b, Digest: DigestBytes(data), Size: int64(len(data)), Entries: len(byBin[b])}
		c.Shards = append(c.Shards, ref)
		shards = append(shards, ShardFile{Ref: ref, Data: data})
	}
	h := *c
	h.Entries = nil
	head, err = strictjson.Marshal(&h)
	if err != nil {
		return nil, nil, fmt.Errorf("encode catalog: %w", err)
	}
	return head, shards, nil
}

// EncodeShard returns the shard file of bin listing entries, as Split
// writes it: the entries normalized and sorted in canonical order (in
// place), so the same entries always give the same bytes. It is how a
// shard changed by a few entries is made again from the shard before
// (a bundle's shard delta), byte for byte.
func EncodeShard(bin string, entries []Entry) ([]byte, error) {
	for i := range entries {
		entries[i].normalize()
	}
	SortEntries(entries)
	data, err := strictjson.Marshal(&Shard{Format: CatalogFormat, Bin: bin, Entries: entries})
	if err != nil {
		return nil, fmt.Errorf("encode shard %s: %w", bin, err)
	}
	return data, nil
}

// EntryCount is how many entries the catalog has: those its head's
// shards list (format 2, read or not), or those in Entries (format 1).
func (c *Catalog) EntryCount() int {
	n := len(c.Entries)
	if c.Format == CatalogFormat {
		n = 0
		for _, r := range c.Shards {
			n += r.Entries
		}
	}
	return n
}

// Shard returns the reference of the shard that holds id's entries, or
// nil when the catalog is format 2 and has none (no entry of id).
func (c *Catalog) Shard(id ID) *ShardRef {
	b := BinOf(id, c.ShardDigits)
	i, ok := slices.BinarySearchFunc(c.Shards, b, func(r ShardRef, bin string) int { return strings.Compare(r.Bin, bin) })
	if !ok {
		return nil
	}
	return &c.Shards[i]
}

// validateShards checks the shard list of a format-2 catalog: the digit
// count, bins sorted, unique and of that width, digests, sizes and entry
// counts. A format-1 catalog has none, and neither has a format-2 catalog
// built in memory and not yet split (ShardDigits 0; DecodeCatalog
// refuses that in a file).
func (c *Catalog) validateShards() []error {
	if c.Format != CatalogFormat || (c.ShardDigits == 0 && len(c.Shards) == 0) {
		if c.ShardDigits != 0 || len(c.Shards) > 0 {
			return []error{fmt.Errorf("shards: a format-%d catalog has none", c.Format)}
		}
		return nil
	}
	if c.ShardDigits < MinShardDigits || c.ShardDigits > MaxShardDigits {
		return []error{fmt.Errorf("shardDigits: %d outside %d..%d", c.ShardDigits, MinShardDigits, MaxShardDigits)}
	}
	var errs []error
	for i, r := range c.Shards {
		switch {
		case len(r.Bin) != c.ShardDigits || strings.Trim(r.Bin, "0123456789abcdef") != "":
			errs = append(errs, fmt.Errorf("shards[%d].bin: %q is not %d lower-case hex digits", i, r.Bin, c.ShardDigits))
		case i > 0 && r.Bin <= c.Shards[i-1].Bin:
			errs = append(errs, fmt.Errorf("shards[%d].bin: %q is not after %q (bins are sorted and unique)", i, r.Bin, c.Shards[i-1].Bin))
		}
		if !validDigest(r.Digest) {
			errs = append(errs, fmt.Errorf("shards[%d].digest: %q is not sha256:<64 lowercase hex>", i, r.Digest))
		}
		if r.Size < 1 || r.Size > MaxCatalogBytes {
			errs = append(errs, fmt.Errorf("shards[%d].size: %d outside 1..%d", i, r.Size, MaxCatalogBytes))
		}
		if r.Entries < 1 {
			errs = append(errs, fmt.Errorf("shards[%d].entries: %d, want at least 1 (a bin without entries has no shard)", i, r.Entries))
		}
	}
	return errs
}

// DecodeShard reads the shard ref names strictly (at most ref.Size bytes;
// the caller has checked them against ref.Digest) and checks it against
// the head that pins it: format, bin, entry count, every entry valid and
// in that bin, each listed once, and each upstream key among the head's.
func DecodeShard(r io.Reader, head *Catalog, ref ShardRef) ([]Entry, error) {
	var s Shard
	if err := strictjson.Read(r, ref.Size, &s); err != nil {
		return nil, fmt.Errorf("decode shard: %w", err)
	}
	var errs []error
	if s.Format != CatalogFormat {
		errs = append(errs, fmt.Errorf("format: %d, want %d", s.Format, CatalogFormat))
	}
	if s.Bin != ref.Bin {
		errs = append(errs, fmt.Errorf("bin: %q, but the catalog lists it as bin %q", s.Bin, ref.Bin))
	}
	if len(s.Entries) != ref.Entries {
		errs = append(errs, fmt.Errorf("entries: %d, but the catalog says %d", len(s.Entries), ref.Entries))
	}
	if s.Bin == ref.Bin {
		errs = append(errs, validateEntries(s.Entries, head.upstreamKeyIDs(), ref.Bin)...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("shard %s: %w", ref.Bin, err)
	}
	for i := range s.Entries {
		s.Entries[i].normalize()
	}
	return s.Entries, nil
}
