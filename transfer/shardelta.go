package transfer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/internal/safefile"
	"github.com/airvsx/airvsx/internal/strictjson"
)

// bundleDeltas is the folder of a bundle's shard deltas: a changed shard
// of the far side's is carried as the entries it gains and loses,
// deltas/<the new shard's metadata name>, rather than whole. A shard
// lists about a thousand entries; a change of a hundred entries touches
// up to a hundred shards, whose whole bytes would outweigh the change.
const bundleDeltas = "deltas"

// shardMeta matches a shard's metadata name; the groups are its sha256
// and its bin.
var shardMeta = regexp.MustCompile(`^targets/([0-9a-f]{64})\.shard-([0-9a-f]{1,4})\.json$`)

// maxDeltaBytes caps a shard delta read from a bundle: never more than
// a shard itself.
const maxDeltaBytes = index.MaxCatalogBytes

// shardDelta is what turns the far side's shard of Bin (Base, BaseSize
// bytes) into the new one: its entries less those Remove names, plus Add.
// The result is encoded as every shard is (index.EncodeShard), and must be
// the bytes the signed catalog pins: a delta only says how to make them.
type shardDelta struct {
	Format   int           `json:"format"`
	Bin      string        `json:"bin"`
	Base     string        `json:"base"`
	BaseSize int64         `json:"baseSize"`
	Remove   []entryKey    `json:"remove"`
	Add      []index.Entry `json:"add"`
}

// deltaFormat is shardDelta's format.
const deltaFormat = 1

// entryKey names one entry.
type entryKey struct {
	ID       index.ID       `json:"id"`
	Version  string         `json:"version"`
	Platform index.Platform `json:"platform"`
}

func keyOf(e *index.Entry) entryKey { return entryKey{e.ID, e.Version, e.Platform} }

func (k entryKey) String() string { return index.EntryName(k.ID, k.Version, k.Platform) }

// key is the catalog key of the entry k names (index.EntryKey).
func (k entryKey) key() string { return index.EntryKey(k.ID, k.Version, k.Platform) }

// makeDelta returns the delta from the far side's shard (base, listing
// old) to the shard want (listing cur), checked to give want's bytes,
// or nil when none would be smaller than want itself.
func makeDelta(bin string, base index.ShardRef, old, cur []index.Entry, want []byte) ([]byte, error) {
	d := shardDelta{Format: deltaFormat, Bin: bin, Base: base.Digest, BaseSize: base.Size, Remove: []entryKey{}, Add: []index.Entry{}}
	enc := func(e *index.Entry) string {
		b, _ := json.Marshal(e)
		return string(b)
	}
	had := map[string]string{} // key (lower-case ID) → the old entry's JSON
	for i := range old {
		had[old[i].Key()] = enc(&old[i])
	}
	kept := map[string]bool{}
	for i := range cur {
		k := cur[i].Key()
		if j, ok := had[k]; ok && j == enc(&cur[i]) {
			kept[k] = true
			continue
		}
		d.Add = append(d.Add, cur[i])
	}
	for i := range old {
		if !kept[old[i].Key()] {
			d.Remove = append(d.Remove, keyOf(&old[i]))
		}
	}
	data, err := json.Marshal(&d)
	if err != nil || len(data) >= len(want) {
		return nil, err
	}
	// The delta must make want exactly; else the whole shard goes.
	oldCopy := append([]index.Entry(nil), old...)
	got, err := d.apply(oldCopy)
	if err != nil || !bytes.Equal(got, want) {
		return nil, nil
	}
	return data, nil
}

// apply returns the shard made from the base's entries.
func (d *shardDelta) apply(base []index.Entry) ([]byte, error) {
	gone, err := d.removeKeys()
	if err != nil {
		return nil, err
	}
	out := make([]index.Entry, 0, len(base)+len(d.Add))
	for i := range base {
		if k := base[i].Key(); gone[k] {
			delete(gone, k)
			continue
		}
		out = append(out, base[i])
	}
	for k := range gone {
		return nil, fmt.Errorf("remove: %s is not in the base shard", k)
	}
	have := map[string]bool{}
	for i := range out {
		have[out[i].Key()] = true
	}
	for i := range d.Add {
		k := keyOf(&d.Add[i])
		if have[k.key()] {
			return nil, fmt.Errorf("add: %s is in the shard already", k)
		}
		have[k.key()] = true
		out = append(out, d.Add[i])
	}
	return index.EncodeShard(d.Bin, out)
}

// removeKeys is the set of the catalog keys Remove names; a key named
// twice is an error.
func (d *shardDelta) removeKeys() (map[string]bool, error) {
	keys := make(map[string]bool, len(d.Remove))
	for _, k := range d.Remove {
		if keys[k.key()] {
			return nil, fmt.Errorf("remove: %s named twice", k)
		}
		keys[k.key()] = true
	}
	return keys, nil
}

// shardFromDelta makes the shard named name (a metadata name) from the
// delta f of the bundle and the shard it names in under (the far side),
// and checks that its bytes are the ones name's sha256 says.
func (o *overlay) shardFromDelta(ctx context.Context, name string, f BundleFile) ([]byte, error) {
	if v, ok := o.made.Load(name); ok {
		return v.([]byte), nil
	}
	d, sum, err := o.readDelta(name, f)
	if err != nil {
		return nil, err
	}
	base, err := o.baseEntries(ctx, f, d)
	if err != nil {
		return nil, err
	}
	data, err := d.apply(base)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %s: %w", o.name, f.Path, err)
	}
	if index.DigestBytes(data) != sum {
		return nil, fmt.Errorf("bundle %s: %s does not make the shard metadata/%s: %w", o.name, f.Path, name, store.ErrMismatch)
	}
	return data, nil
}

// readDelta reads the delta f of the bundle, which makes the shard named
// name, and checks it against its manifest line and name. It returns the
// delta and the digest of the shard it makes.
func (o *overlay) readDelta(name string, f BundleFile) (shardDelta, string, error) {
	var d shardDelta
	m := shardMeta.FindStringSubmatch(name)
	if m == nil {
		return d, "", fmt.Errorf("bundle %s: %s: not a shard", o.name, f.Path)
	}
	if f.Size > maxDeltaBytes {
		return d, "", fmt.Errorf("bundle %s: %s: %d bytes, more than a shard may hold (%d): %w", o.name, f.Path, f.Size, int64(maxDeltaBytes), store.ErrTooLarge)
	}
	raw, err := safefile.ReadIn(o.root, f.Path, f.Size)
	if err != nil {
		return d, "", fmt.Errorf("bundle %s: %w", o.name, err)
	}
	if err := checkSum(f, raw); err != nil {
		return d, "", fmt.Errorf("bundle %s: %w: %w", o.name, err, store.ErrMismatch)
	}
	if err := strictjson.Unmarshal(raw, &d); err != nil {
		return d, "", fmt.Errorf("bundle %s: %s: %w", o.name, f.Path, err)
	}
	if d.Format != deltaFormat || d.Bin != m[2] || !store.ValidDigest(d.Base) || d.BaseSize < 1 || d.BaseSize > index.MaxCatalogBytes {
		return d, "", fmt.Errorf("bundle %s: %s: format %d, bin %q, base %q of %d bytes: not a delta of bin %s", o.name, f.Path, d.Format, d.Bin, d.Base, d.BaseSize, m[2])
	}
	return d, "sha256:" + m[1], nil
}

// splice makes the shard ref of the source's head from its delta in the
// bundle and the far side's shard of the same bin, base, which its
// verified catalog pins, without decoding base (index.SpliceShard): it
// returns the entries the delta adds, checked as a shard's entries are
// (index.CheckSplice), and how many of base's it keeps. The shard's bytes
// are kept for the metadata's copy. ok is false, with no error, when the
// bundle carries no delta for ref made on base, or base is not laid out as
// a shard is encoded (an older writer's): the caller then decodes both
// shards. Any other fault is an error.
func (o *overlay) splice(ctx context.Context, head *index.Catalog, ref, base index.ShardRef) (added []index.Entry, kept int, ok bool, err error) {
	name := trust.ShardName(ref)
	f, has := o.delta[name]
	if !has {
		return nil, 0, false, nil
	}
	d, _, err := o.readDelta(name, f)
	if err != nil {
		return nil, 0, false, err
	}
	if d.Base != base.Digest || d.BaseSize != base.Size {
		return nil, 0, false, nil
	}
	baseData, err := o.readBase(ctx, f, d)
	if err != nil {
		return nil, 0, false, err
	}
	remove, err := d.removeKeys()
	if err != nil {
		return nil, 0, false, fmt.Errorf("bundle %s: %s: %w", o.name, f.Path, err)
	}
	data, kept, err := index.SpliceShard(baseData, d.Bin, remove, d.Add)
	switch {
	case errors.Is(err, index.ErrNotCanonical):
		return nil, 0, false, nil
	case err != nil:
		return nil, 0, false, fmt.Errorf("bundle %s: %s: %w", o.name, f.Path, err)
	}
	if err := index.CheckSplice(head, ref, data, kept, d.Add); err != nil {
		return nil, 0, false, fmt.Errorf("bundle %s: %s does not make the shard metadata/%s: %w: %w", o.name, f.Path, name, err, store.ErrMismatch)
	}
	o.made.Store(name, data)
	return d.Add, kept, true, nil
}

// baseName is the metadata name of the delta's base shard.
func (d *shardDelta) baseName() string {
	return trust.ShardName(index.ShardRef{Digest: d.Base, Bin: d.Bin})
}

// readBase reads the base shard of the delta d (the bundle's file f) from
// under and checks it against the digest and size d names.
func (o *overlay) readBase(ctx context.Context, f BundleFile, d shardDelta) ([]byte, error) {
	baseName := d.baseName()
	baseData, err := o.under.ReadMetadata(ctx, baseName, d.BaseSize)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %s: its base metadata/%s: %w", o.name, f.Path, baseName, err)
	}
	if int64(len(baseData)) != d.BaseSize || index.DigestBytes(baseData) != d.Base {
		return nil, fmt.Errorf("bundle %s: %s: its base metadata/%s is not the shard its name says: %w", o.name, f.Path, baseName, store.ErrMismatch)
	}
	return baseData, nil
}

// baseEntries returns the entries of the base shard of the delta d (the
// bundle's file f): the ones primeBase recorded, else those of the
// shard read from under and checked against the digest and size d names.
func (o *overlay) baseEntries(ctx context.Context, f BundleFile, d shardDelta) ([]index.Entry, error) {
	if v, ok := o.bases.Load(d.Base); ok {
		return v.([]index.Entry), nil
	}
	baseData, err := o.readBase(ctx, f, d)
	if err != nil {
		return nil, err
	}
	var base index.Shard
	if err := strictjson.Unmarshal(baseData, &base); err != nil {
		return nil, fmt.Errorf("bundle %s: %s: its base metadata/%s: %w", o.name, f.Path, d.baseName(), err)
	}
	return base.Entries, nil
}
