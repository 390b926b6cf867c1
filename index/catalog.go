package index

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/airvsx/airvsx/internal/strictjson"
)

// Catalog formats. CatalogFormat is the one written; FlatCatalogFormat is
// still read, and the next sync of such a registry writes CatalogFormat.
const (
	// FlatCatalogFormat is the first format: one catalog file listing every
	// entry.
	FlatCatalogFormat = 1
	// CatalogFormat is the sharded format: the catalog file (the head)
	// holds the catalog's own fields and a list of shards, each pinned by
	// its sha256; a shard holds the entries of the extensions whose ID
	// hashes to its bin (BinOf). A change rewrites the head and the shards
	// it touches.
	CatalogFormat = 2
)

// MaxCatalogBytes caps how much of a catalog file DecodeCatalog reads.
const MaxCatalogBytes = 256 << 20

// UpstreamKey is a public key upstream signs packages with, pinned in the
// catalog the first time sync sees it.
type UpstreamKey struct {
	ID  string `json:"id"`  // upstream's key id
	PEM string `json:"pem"` // the public key, PEM-encoded
}

// Catalog lists every entry of a registry. It is the single target the
// registry's TUF metadata signs, so it pins every byte of the registry.
type Catalog struct {
	Format       int           `json:"format"`
	Serial       int64         `json:"serial"` // 1 for the first catalog, +1 per change
	Created      time.Time     `json:"created"`
	Upstream     string        `json:"upstream,omitempty"`     // the URL synced from
	PolicyDigest string        `json:"policyDigest,omitempty"` // sha256:<hex> of the policy file used
	Previous     string        `json:"previous,omitempty"`     // sha256:<hex> of the previous catalog's bytes
	UpstreamKeys []UpstreamKey `json:"upstreamKeys,omitempty"`
	// ShardDigits is how many hex digits of an ID's hash name its bin
	// (format 2; 0 in format 1).
	ShardDigits int `json:"shardDigits,omitempty"`
	// Shards pins the shard files of a format-2 catalog, sorted by bin.
	Shards []ShardRef `json:"shards,omitempty"`
	// Control pins the extension control lists (kill lists) the registry
	// carries, sorted by origin; none in a registry that carries none.
	Control []ControlRef `json:"control,omitempty"`
	// Entries are the catalog's entries: in the file itself in format 1;
	// in format 2 the file (the head) lists none and a reader fills them
	// from the shards.
	Entries []Entry `json:"entries,omitempty"`
}

// Normalize puts the catalog into canonical order: entries sorted (by ID,
// newest version first, platform), set-like fields sorted and de-duplicated,
// upstream keys sorted by id, times in UTC.
func (c *Catalog) Normalize() {
	c.Created = c.Created.UTC()
	for i := range c.Entries {
		c.Entries[i].normalize()
	}
	SortEntries(c.Entries)
	slices.SortFunc(c.UpstreamKeys, func(a, b UpstreamKey) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(c.Control, func(a, b ControlRef) int { return strings.Compare(a.Origin, b.Origin) })
	for i := range c.Control {
		c.Control[i].FetchedAt = c.Control[i].FetchedAt.UTC()
	}
	if c.Entries == nil && c.Format == FlatCatalogFormat {
		c.Entries = []Entry{}
	}
}

// Validate checks the format version, every entry, and that entries and
// upstream keys are unique. It returns every problem joined.
func (c *Catalog) Validate() error {
	var errs []error
	if c.Format != CatalogFormat && c.Format != FlatCatalogFormat {
		errs = append(errs, fmt.Errorf("format: %d is not one of the supported %d and %d", c.Format, FlatCatalogFormat, CatalogFormat))
	}
	errs = append(errs, c.validateShards()...)
	errs = append(errs, validateControl(c.Control)...)
	if c.Serial < 1 {
		errs = append(errs, fmt.Errorf("serial: %d is not positive", c.Serial))
	}
	if c.Previous != "" && !validDigest(c.Previous) {
		errs = append(errs, fmt.Errorf("previous: %q is not sha256:<64 lowercase hex>", c.Previous))
	}
	if c.PolicyDigest != "" && !validDigest(c.PolicyDigest) {
		errs = append(errs, fmt.Errorf("policyDigest: %q is not sha256:<64 lowercase hex>", c.PolicyDigest))
	}
	keys := make(map[string]bool)
	for _, k := range c.UpstreamKeys {
		if k.ID == "" {
			errs = append(errs, errors.New("upstreamKeys: a key has no id"))
		}
		if keys[k.ID] {
			errs = append(errs, fmt.Errorf("upstreamKeys: duplicate id %q", k.ID))
		}
		keys[k.ID] = true
	}
	errs = append(errs, validateEntries(c.Entries, keys, "")...)
	return errors.Join(errs...)
}

// validateEntries checks every entry, that each is listed once, that its
// upstream key is among keys, and, when bin is not "", that its ID hashes
// to bin.
func validateEntries(entries []Entry, keys map[string]bool, bin string) []error {
	var errs []error
	seen := make(map[string]bool, len(entries))
	for i := range entries {
		e := &entries[i]
		if err := e.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("entries[%d]: %w", i, err))
		}
		if seen[e.Key()] {
			errs = append(errs, fmt.Errorf("entries[%d]: duplicate entry %s", i, e))
		}
		seen[e.Key()] = true
		if e.Upstream.KeyID != "" && !keys[e.Upstream.KeyID] {
			errs = append(errs, fmt.Errorf("entries[%d]: %s: upstreamSignature.keyId %q is not among upstreamKeys", i, e, e.Upstream.KeyID))
		}
		if bin != "" && BinOf(e.ID, len(bin)) != bin {
			errs = append(errs, fmt.Errorf("entries[%d]: %s belongs in bin %s, not %s", i, e, BinOf(e.ID, len(bin)), bin))
		}
	}
	return errs
}

// upstreamKeyIDs is the set of the catalog's upstream key ids.
func (c *Catalog) upstreamKeyIDs() map[string]bool {
	keys := make(map[string]bool, len(c.UpstreamKeys))
	for _, k := range c.UpstreamKeys {
		keys[k.ID] = true
	}
	return keys
}

// Find returns the entry for (id, version, platform), or nil.
func (c *Catalog) Find(id ID, version string, platform Platform) *Entry {
	for i := range c.Entries {
		e := &c.Entries[i]
		if e.ID.Equal(id) && e.Version == version && e.Platform == platform {
			return e
		}
	}
	return nil
}

// Encode returns the canonical encoding of the catalog: normalized, indented
// JSON with a final newline. The same content always gives the same bytes.
// Encode normalizes c in place.
func (c *Catalog) Encode() ([]byte, error) {
	c.Normalize()
	b, err := strictjson.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encode catalog: %w", err)
	}
	return b, nil
}

// DecodeCatalog reads a catalog file strictly: unknown fields, trailing
// data and more than MaxCatalogBytes are errors, and the result must
// Validate. A format-2 file is a head: it lists shards and no entries
// (a reader fills Entries from the shards it needs; see DecodeShard).
func DecodeCatalog(r io.Reader) (*Catalog, error) {
	var c Catalog
	if err := strictjson.Read(r, MaxCatalogBytes, &c); err != nil {
		return nil, fmt.Errorf("decode catalog: %w", err)
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	if c.Format == CatalogFormat && len(c.Entries) > 0 {
		return nil, fmt.Errorf("catalog: entries: a format-%d catalog lists its entries in its shards, not in the catalog file", CatalogFormat)
	}
	if c.Format == CatalogFormat && c.ShardDigits == 0 {
		return nil, fmt.Errorf("catalog: shardDigits: missing; a format-%d catalog names its bins' width", CatalogFormat)
	}
	if c.Entries == nil {
		c.Entries = []Entry{}
	}
	return &c, nil
}
