package trust

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/airvsx/airvsx/index"
	"github.com/sigstore/sigstore/pkg/signature"
)

// A format-2 catalog (index.CatalogFormat) is a head, the TUF target
// "catalog.json" as before, that pins its shards by sha256; each shard is
// stored by content beside it as targets/<sha256hex>.shard-<bin>.json.
// The targets, snapshot and timestamp roles pin the head, and the head
// pins every shard, so each shard has the head's protection: a shard of
// another serial, one left out, or one changed and signed again under
// another key fails like a changed catalog did. A publish writes only the
// shards whose bytes the current head does not already pin.

// shardFile matches the names of the content-addressed shards.
var shardFile = regexp.MustCompile(`^targets/([0-9a-f]{64})\.shard-[0-9a-f]{1,4}\.json$`)

// ShardName is the metadata name of the shard ref pins:
// "targets/<hex>.shard-<bin>.json".
func ShardName(ref index.ShardRef) string {
	return TargetsDir + "/" + strings.TrimPrefix(ref.Digest, "sha256:") + ".shard-" + ref.Bin + ".json"
}

// ShardPath is how reports name a shard's file:
// "metadata/targets/<hex>.shard-<bin>.json".
func ShardPath(ref index.ShardRef) string { return displayName(ShardName(ref)) }

// ContentNamed reports whether data is what the content-addressed
// metadata file name (a catalog, a shard or a control list under
// targets/) says it is:
// the sha256 in its name is data's. Other names are not content-named.
func ContentNamed(name string, data []byte) bool {
	hexSum := ""
	if m := shardFile.FindStringSubmatch(name); m != nil {
		hexSum = m[1]
	} else if m := controlFile.FindStringSubmatch(name); m != nil {
		hexSum = m[1]
	} else if catalogFile.MatchString(name) {
		hexSum = strings.TrimSuffix(strings.TrimPrefix(name, TargetsDir+"/"), "."+CatalogTarget)
	}
	return hexSum != "" && index.SHA256Hex(data) == hexSum
}

// PublishCatalog publishes cat in the sharded format: it splits cat into
// shards (cat.ShardDigits hex digits a bin; 0 picks
// index.ShardDigitsFor), writes the shards the current head does not pin
// already, then signs the head with Publish (whose order and crash rules
// apply: nothing is committed until timestamp.json). cat is normalized in
// place and its Format, ShardDigits and Shards set to what was published.
func PublishCatalog(ctx context.Context, fsys MetadataFS, cat *index.Catalog, signer signature.Signer, opts PublishOptions) (*PublishResult, error) {
	digits := cat.ShardDigits
	if digits == 0 {
		digits = index.ShardDigitsFor(len(cat.Entries), 0)
	}
	head, shards, err := cat.Split(digits)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	if err := cat.Validate(); err != nil {
		return nil, fmt.Errorf("publish: catalog: %w", err)
	}
	pinned := publishedShards(ctx, fsys)
	w := &writer{ctx: ctx, fsys: fsys}
	for _, s := range shards {
		if pinned[s.Ref.Digest] {
			continue
		}
		if err := w.write(ShardName(s.Ref), s.Data); err != nil {
			return nil, err
		}
	}
	res, err := Publish(ctx, fsys, head, signer, opts)
	if err != nil {
		return nil, err
	}
	res.Written = append(w.written, res.Written...)
	return res, nil
}

// publishedShards returns the digests of the shards the current head
// pins, when the current chain verifies (signatures and hashes, not
// expiry) and is sharded; otherwise none, and every shard is written.
func publishedShards(ctx context.Context, fsys MetadataFS) map[string]bool {
	root, err := readCapped(fsys, rootName(1), MaxRootBytes, ErrMalformed)
	if err != nil {
		return nil
	}
	c, err := verifyChain(ctx, fsys, root, chainOptions{catalog: true, allowNoTimestamp: true})
	if err != nil || c.catalog == nil {
		return nil
	}
	head, err := index.DecodeCatalog(bytes.NewReader(c.catalog))
	if err != nil {
		return nil
	}
	pinned := make(map[string]bool, len(head.Shards))
	for _, r := range head.Shards {
		pinned[r.Digest] = true
	}
	return pinned
}

// Head decodes the verified catalog file: a format-1 catalog with all its
// entries, or a format-2 head, which lists none (Shard and Lookup read
// them).
func (t *Trusted) Head() (*index.Catalog, error) {
	cat, err := index.DecodeCatalog(bytes.NewReader(t.Catalog))
	if err != nil {
		return nil, &FileError{File: CatalogPath(t.CatalogDigest), Err: err}
	}
	return cat, nil
}

// Shard reads the shard ref of head (a head this chain verified): at most
// ref.Size bytes, which must be ref's length and sha256, decoded and
// checked against head (index.DecodeShard). Errors name the shard's file;
// a changed or truncated shard wraps ErrMismatch, a missing one
// ErrMissing.
func (t *Trusted) Shard(ctx context.Context, head *index.Catalog, ref index.ShardRef) ([]index.Entry, error) {
	data, err := t.readShard(ctx, ref)
	if err != nil {
		return nil, err
	}
	return t.decodeShard(head, ref, data)
}

// readShard reads the bytes of a shard (at most ref.Size).
func (t *Trusted) readShard(ctx context.Context, ref index.ShardRef) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if t.meta == nil {
		return nil, errors.New("read shard: the chain was not loaded from a registry")
	}
	return readCapped(withContext(ctx, t.meta), ShardName(ref), ref.Size, ErrMismatch)
}

// decodeShard checks the bytes of a shard against ref and decodes them.
func (t *Trusted) decodeShard(head *index.Catalog, ref index.ShardRef, data []byte) ([]index.Entry, error) {
	name := ShardName(ref)
	if int64(len(data)) != ref.Size || index.DigestBytes(data) != ref.Digest {
		return nil, fileError(name, ErrMismatch, "length or sha256 differs from %s shards[%q] (length %d, %s)",
			CatalogPath(t.CatalogDigest), ref.Bin, ref.Size, ref.Digest)
	}
	entries, err := index.DecodeShard(bytes.NewReader(data), head, ref)
	if err != nil {
		return nil, &FileError{File: displayName(name), Err: err}
	}
	return entries, nil
}

// Lookup returns the entries of id in head: for a format-2 head it reads
// id's shard alone. None is an empty result, not an error.
func (t *Trusted) Lookup(ctx context.Context, head *index.Catalog, id index.ID) ([]index.Entry, error) {
	var all []index.Entry
	if head.Format == index.FlatCatalogFormat {
		all = head.Entries
	} else if ref := head.Shard(id); ref != nil {
		var err error
		if all, err = t.Shard(ctx, head, *ref); err != nil {
			return nil, err
		}
	}
	var out []index.Entry
	for _, e := range all {
		if e.ID.Equal(id) {
			out = append(out, e)
		}
	}
	return out, nil
}

// Decode decodes the verified catalog whole: the head and, for a format-2
// catalog, every shard's entries, in canonical order (Head, Lookup and
// Shard read less).
func (t *Trusted) Decode(ctx context.Context) (*index.Catalog, error) { return decodeCatalog(ctx, t) }

// decodeCatalog is Trusted.Decode.
func decodeCatalog(ctx context.Context, tr *Trusted) (*index.Catalog, error) {
	head, err := tr.Head()
	if err != nil || head.Format == index.FlatCatalogFormat {
		return head, err
	}
	// Shards are read one at a time (a store need not read concurrently)
	// and checked and decoded on every CPU.
	parts := make([][]index.Entry, len(head.Shards))
	errs := make([]error, len(head.Shards))
	var (
		mu   sync.Mutex
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for range min(runtime.GOMAXPROCS(0), len(head.Shards)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(head.Shards) {
					return
				}
				ref := head.Shards[i]
				mu.Lock()
				data, err := tr.readShard(ctx, ref)
				mu.Unlock()
				if err == nil {
					parts[i], err = tr.decodeShard(head, ref, data)
				}
				if err != nil {
					errs[i] = err
					return
				}
			}
		})
	}
	wg.Wait()
	n := 0
	for i, p := range parts {
		if errs[i] != nil {
			return nil, errs[i]
		}
		n += len(p)
	}
	head.Entries = make([]index.Entry, 0, n)
	for _, p := range parts {
		head.Entries = append(head.Entries, p...)
	}
	index.SortEntries(head.Entries)
	return head, nil
}

// withContext returns fsys reading under ctx, when it is a store's
// adapter (Metadata), which carries the context of the call that made it.
func withContext(ctx context.Context, fsys MetadataFS) MetadataFS {
	if m, ok := fsys.(*metadataFS); ok {
		c := *m
		c.ctx = ctx
		return &c
	}
	return fsys
}
