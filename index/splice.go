package index

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// ErrNotCanonical is returned by SpliceShard when the base is not laid out
// as EncodeShard lays a shard out: the caller decodes it instead.
var ErrNotCanonical = errors.New("the shard is not in EncodeShard's layout")

// SpliceShard returns the shard file EncodeShard would make of the entries
// of base (a shard file of bin as EncodeShard writes it) less those whose
// keys (Entry.Key) are in remove, plus add, without decoding base: each
// of base's entries is kept as its bytes, found by the layout EncodeShard
// gives them (one entry an object at the same indentation, and no line
// break but the indenter's, since JSON strings hold none) and read for
// its ID, version and platform only, which order the entries. add is
// normalized in place. kept is how many of base's entries the result
// keeps.
//
// A shard whose bytes differ from EncodeShard's layout anywhere SpliceShard
// looks gives an error wrapping ErrNotCanonical, as does a result with no
// entries. A key of remove that base does not list, or an entry of add
// whose key base (less remove) or add already lists, is an error.
//
// SpliceShard checks nothing of what the entries it keeps say: the caller
// checks the result against the digest that pins it, and holds base's
// entries for checked already (base is a shard a verified catalog pins).
func SpliceShard(base []byte, bin string, remove map[string]bool, add []Entry) (data []byte, kept int, err error) {
	prefix, suffix := shardPrefix(bin), []byte("\n  ]\n}\n")
	if !bytes.HasPrefix(base, prefix) || !bytes.HasSuffix(base, suffix) || len(base) < len(prefix)+len(suffix) {
		return nil, 0, fmt.Errorf("shard %s: its head or tail: %w", bin, ErrNotCanonical)
	}
	chunks, err := shardChunks(base[len(prefix):len(base)-len(suffix)+1], bin)
	if err != nil {
		return nil, 0, err
	}
	found := 0
	have := make(map[string]bool, len(chunks))
	keptChunks := chunks[:0]
	for _, c := range chunks {
		k := c.e.Key()
		if remove[k] {
			found++
			continue
		}
		have[k] = true
		keptChunks = append(keptChunks, c)
	}
	if found != len(remove) {
		return nil, 0, fmt.Errorf("shard %s: %d of the %d entries to remove are not in it", bin, len(remove)-found, len(remove))
	}
	added := make([]shardChunk, 0, len(add))
	for i := range add {
		e := &add[i]
		e.normalize()
		if have[e.Key()] {
			return nil, 0, fmt.Errorf("shard %s: %s is in it already", bin, e)
		}
		have[e.Key()] = true
		b, err := encodeShardEntry(e)
		if err != nil {
			return nil, 0, fmt.Errorf("shard %s: %w", bin, err)
		}
		added = append(added, shardChunk{e: Entry{ID: e.ID, Version: e.Version, Platform: e.Platform}, b: b})
	}
	if len(keptChunks)+len(added) == 0 {
		return nil, 0, fmt.Errorf("shard %s: no entries left: %w", bin, ErrNotCanonical)
	}
	// Both in catalog order (base's checked so), merged.
	slices.SortFunc(added, func(a, b shardChunk) int { return compareEntries(&a.e, &b.e) })
	var buf bytes.Buffer
	buf.Grow(len(base) + len(added)*1024)
	buf.Write(prefix)
	for i, k, a := 0, keptChunks, added; len(k) > 0 || len(a) > 0; i++ {
		if i > 0 {
			buf.WriteString(",\n")
		}
		if len(a) == 0 || len(k) > 0 && compareEntries(&k[0].e, &a[0].e) < 0 {
			buf.Write(k[0].b)
			k = k[1:]
		} else {
			buf.Write(a[0].b)
			a = a[1:]
		}
	}
	buf.Write(suffix)
	return buf.Bytes(), len(keptChunks), nil
}

// shardPrefix is what EncodeShard writes before a shard's first entry.
func shardPrefix(bin string) []byte {
	b, _ := json.Marshal(bin)
	return fmt.Appendf(nil, "{\n  \"format\": %d,\n  \"bin\": %s,\n  \"entries\": [\n", CatalogFormat, b)
}

// shardChunk is one entry of a shard: its ID, version and platform, which
// order it, and its bytes as EncodeShard writes them (from its opening
// brace's indentation to its closing brace).
type shardChunk struct {
	e Entry
	b []byte
}

// shardChunks splits the entries of a shard file (between its head and
// its tail, the last entry followed by its line break) into their bytes,
// checking that they are in catalog order.
func shardChunks(body []byte, bin string) ([]shardChunk, error) {
	const open, closing = "    {\n", "\n    }"
	var chunks []shardChunk
	for len(body) > 0 {
		if !bytes.HasPrefix(body, []byte(open)) {
			return nil, fmt.Errorf("shard %s: entry %d does not open as EncodeShard opens one: %w", bin, len(chunks), ErrNotCanonical)
		}
		end := bytes.Index(body, []byte(closing))
		if end < 0 {
			return nil, fmt.Errorf("shard %s: entry %d does not close: %w", bin, len(chunks), ErrNotCanonical)
		}
		// The first "\n    }" closes the entry: what it holds is indented
		// deeper. Then a comma and the next, or the last line break.
		stop := end + len(closing)
		rest := body[stop:]
		switch {
		case bytes.HasPrefix(rest, []byte(",\n")) && len(rest) > 2:
			rest = rest[2:]
		case len(rest) == 1 && rest[0] == '\n':
			rest = nil
		default:
			return nil, fmt.Errorf("shard %s: entry %d is not followed by another or the end: %w", bin, len(chunks), ErrNotCanonical)
		}
		c := shardChunk{b: body[:stop]}
		if err := chunkKey(c.b, &c.e); err != nil {
			return nil, fmt.Errorf("shard %s: entry %d: %w", bin, len(chunks), err)
		}
		if n := len(chunks); n > 0 && compareEntries(&chunks[n-1].e, &c.e) >= 0 {
			return nil, fmt.Errorf("shard %s: entry %d is out of order: %w", bin, n, ErrNotCanonical)
		}
		chunks = append(chunks, c)
		body = rest
	}
	return chunks, nil
}

// chunkKey reads an entry's ID, version and platform from its first three
// fields, as EncodeShard writes them (the order of Entry's fields).
func chunkKey(b []byte, e *Entry) error {
	b = b[len("    {\n"):]
	field := func(name string) (string, error) {
		p := "      \"" + name + "\": \""
		if !bytes.HasPrefix(b, []byte(p)) {
			return "", fmt.Errorf("no %s field first: %w", name, ErrNotCanonical)
		}
		b = b[len(p):]
		i := bytes.IndexByte(b, '\n')
		if i < 2 || b[i-1] != ',' || b[i-2] != '"' {
			return "", fmt.Errorf("field %s: %w", name, ErrNotCanonical)
		}
		v := b[:i-2]
		b = b[i+1:]
		// Without an escape, the JSON string is its bytes; IDs, versions
		// and platforms need none.
		if bytes.ContainsAny(v, "\\\"") {
			return "", fmt.Errorf("field %s has an escape: %w", name, ErrNotCanonical)
		}
		return string(v), nil
	}
	id, err := field("id")
	if err != nil {
		return err
	}
	if e.ID, err = ParseID(id); err != nil {
		return fmt.Errorf("id: %w", err)
	}
	if e.Version, err = field("version"); err != nil {
		return err
	}
	p, err := field("platform")
	e.Platform = Platform(p)
	return err
}

// encodeShardEntry encodes e as EncodeShard writes an entry in a shard.
func encodeShardEntry(e *Entry) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("    ")
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "  ")
	if err := enc.Encode(e); err != nil {
		return nil, fmt.Errorf("encode %s: %w", e, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// CheckSplice checks a shard SpliceShard made, data, as DecodeShard checks
// a shard it decodes, as shard ref of head: data is the bytes ref pins,
// it lists the entries ref counts (kept of its base's and added), and
// each added entry is valid, signed (if at all) by one of head's upstream
// keys and in ref's bin. The kept entries are the base's, checked when
// the base was (the caller's part: a base pinned by a verified catalog
// whose upstream keys head still lists).
func CheckSplice(head *Catalog, ref ShardRef, data []byte, kept int, added []Entry) error {
	var errs []error
	if int64(len(data)) != ref.Size || DigestBytes(data) != ref.Digest {
		errs = append(errs, fmt.Errorf("length or sha256 differs from the catalog's (length %d, %s)", ref.Size, ref.Digest))
	}
	if n := kept + len(added); n != ref.Entries {
		errs = append(errs, fmt.Errorf("entries: %d, but the catalog says %d", n, ref.Entries))
	}
	errs = append(errs, validateEntries(added, head.upstreamKeyIDs(), ref.Bin)...)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("shard %s: %w", ref.Bin, err)
	}
	return nil
}

// KeepsUpstreamKeys reports whether c lists every upstream key old lists:
// an entry old held for valid is valid in c too (CheckSplice).
func (c *Catalog) KeepsUpstreamKeys(old *Catalog) bool {
	keys := c.upstreamKeyIDs()
	for _, k := range old.UpstreamKeys {
		if !keys[k.ID] {
			return false
		}
	}
	return true
}
