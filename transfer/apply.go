package transfer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/internal/safefile"
)

// Errors of Apply callers branch on.
var (
	// ErrIncompleteBundle is wrapped when a bundle lacks its manifest or
	// a file its manifest lists, or holds one of another size (a stick
	// pulled out while it was written): the destination is untouched.
	ErrIncompleteBundle = errors.New("the bundle is incomplete")
	// ErrNotNextStep is wrapped when a bundle is not the next step for
	// the destination: made for another registry, from another catalog
	// than the destination's, or already applied. The destination is
	// untouched.
	ErrNotNextStep = errors.New("the bundle is not the next step for the destination")
)

// IsBundle reports whether dir is a bundle's directory: it holds a
// bundle's marker or its manifest (complete or not, it is not a
// registry).
func IsBundle(dir string) bool {
	for _, n := range []string{BundleMarkerName, BundleManifestName} {
		if fi, err := os.Lstat(filepath.Join(dir, n)); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// ReadBundle reads and checks the bundle in dir without a destination:
// its manifest parses, and every file it lists is there as a regular file
// of the listed size (the blobs are hashed when applied; the metadata
// files are hashed here). Errors name every missing or short file and
// wrap ErrIncompleteBundle.
func ReadBundle(ctx context.Context, dir string) (*BundleManifest, *os.Root, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("bundle %s: %w", dir, err)
	}
	m, err := readBundle(ctx, root, dir)
	if err != nil {
		root.Close()
		return nil, nil, err
	}
	return m, root, nil
}

func readBundle(ctx context.Context, root *os.Root, dir string) (*BundleManifest, error) {
	data, err := safefile.ReadIn(root, BundleManifestName, MaxBundleManifestBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("bundle %s: %s is missing: the bundle was not finished (the stick pulled out while it was written?); write it again with airvsx bundle: %w",
			dir, BundleManifestName, ErrIncompleteBundle)
	}
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", dir, err)
	}
	m, err := ParseBundleManifest(data)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", dir, err)
	}
	var bad []string
	for _, f := range m.Files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		fi, err := root.Lstat(f.Path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			bad = append(bad, f.Path+" is missing")
		case err != nil:
			return nil, fmt.Errorf("bundle %s: %w", dir, err)
		case !fi.Mode().IsRegular():
			bad = append(bad, fmt.Sprintf("%s is %s, not a regular file", f.Path, safefile.Describe(fi.Mode())))
		case fi.Size() != f.Size:
			bad = append(bad, fmt.Sprintf("%s has %d bytes of %d", f.Path, fi.Size(), f.Size))
		case strings.HasPrefix(f.Path, bundleMetadata+"/"), strings.HasPrefix(f.Path, bundleDeltas+"/"):
			b, err := safefile.ReadIn(root, f.Path, f.Size)
			if err == nil {
				err = checkSum(f, b)
			}
			if err != nil {
				bad = append(bad, err.Error())
			}
		}
	}
	if len(bad) > 0 {
		more := ""
		if len(bad) > 10 {
			more = fmt.Sprintf("; and %d more", len(bad)-10)
			bad = bad[:10]
		}
		return nil, fmt.Errorf("bundle %s: %s%s; nothing was applied: write the bundle again with airvsx bundle: %w", dir, strings.Join(bad, "; "), more, ErrIncompleteBundle)
	}
	return m, nil
}

// Apply applies the bundle in dir (see Bundle) to dst, the registry it
// was made for: it checks that the bundle is complete (ReadBundle) and
// the next step for dst (dst's first root is the bundle's registry, and
// dst's catalog the bundle's From; else ErrNotNextStep, naming both),
// then copies the bundle laid over dst into dst as Copy copies (the
// trust chain from opts.Anchor, every manifest, every blob hashed, the
// metadata last, the state recorded), so dst is at every moment its
// previous catalog or the bundle's To. The report is Copy's.
func Apply(ctx context.Context, dir string, dst store.Store, opts Options) (*Report, *BundleManifest, error) {
	if dst == nil {
		return nil, nil, errors.New("apply: no destination")
	}
	if opts.Source == "" {
		opts.Source = dir
	}
	if opts.Dest == "" {
		opts.Dest = "destination"
	}
	m, root, err := ReadBundle(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	dr, err := checkNextStep(ctx, m, dst, opts)
	if err != nil {
		return nil, m, err
	}
	opts.dest = dr
	ov := newOverlay(root, dir, m, dst)
	opts.bundle = ov
	rep, err := Copy(ctx, ov, dst, opts)
	if err == nil && dr.cat != nil {
		rep.Dropped = max(dr.cat.EntryCount()-rep.Held, 0)
	}
	if err == nil && (rep.Serial != m.To.Serial || rep.Digest != m.To.Digest) {
		log := opts.Logger
		if log == nil {
			log = slog.New(slog.DiscardHandler)
		}
		log.Warn("the bundle's manifest names another catalog than its signed metadata; the signed one was applied",
			"manifest_to", m.To.String(), "applied", CatalogRef{rep.Serial, rep.Digest}.String())
	}
	return rep, m, err
}

// checkNextStep refuses a bundle made for another registry, or from
// another catalog than dst's (out of order, or already applied). It
// returns dst's catalog as it read it.
func checkNextStep(ctx context.Context, m *BundleManifest, dst store.Store, opts Options) (*destRead, error) {
	first, err := dst.ReadMetadata(ctx, "1.root.json", trust.MaxRootBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("apply %s: %s holds no registry (no metadata/1.root.json); a bundle applies to the registry it was made from a state of: copy the full registry there first: %w",
			opts.Source, opts.Dest, ErrNotNextStep)
	case err != nil:
		return nil, fmt.Errorf("apply %s: read %s: %w", opts.Source, opts.Dest, err)
	}
	if id := index.SHA256Hex(first); id != m.Registry {
		return nil, fmt.Errorf("apply %s: the bundle is for registry %s (the sha256 of its 1.root.json); %s is registry %s: another registry: %w",
			opts.Source, m.Registry, opts.Dest, id, ErrNotNextStep)
	}
	cat, tr, err := trust.OpenOwnCatalog(ctx, dst)
	var at CatalogRef
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, trust.ErrNoCatalog):
	case err != nil:
		return nil, fmt.Errorf("apply %s: %s's metadata does not verify (%w); run airvsx verify on it, or copy the full registry: %w", opts.Source, opts.Dest, err, ErrNotNextStep)
	default:
		at = CatalogRef{Serial: cat.Serial, Digest: tr.CatalogDigest}
	}
	switch {
	case at == m.To:
		return nil, fmt.Errorf("apply %s: %s is already at %s, where the bundle leads; nothing was applied: %w", opts.Source, opts.Dest, at, ErrNotNextStep)
	case at != m.From:
		hint := "apply the bundles in order"
		if at.Serial > m.From.Serial {
			hint = "it is newer than this bundle's start: this bundle is stale"
		}
		return nil, fmt.Errorf("apply %s: the bundle goes from %s to %s; %s is at %s: %s; nothing was applied: %w",
			opts.Source, m.From, m.To, opts.Dest, at, hint, ErrNotNextStep)
	}
	return &destRead{cat: cat, tr: tr, err: err}, nil
}

// changedEntries is the source's catalog, when applying a bundle, with
// only the entries of the shards the destination's catalog does not pin
// (the others are the destination's own, byte for byte): the head with
// those entries, and Options.held set to the destination's entries of the
// same bins. The work grows with the change, not with the registry. A
// flat catalog, a destination with none, or shards of another width are
// decoded whole.
func (c *copier) changedEntries(ctx context.Context, ch *trust.Checked) (*index.Catalog, error) {
	d := c.opts.dest
	c.opts.held = map[string]bool{}
	held := func(entries []index.Entry) {
		for _, e := range entries {
			c.opts.held[artifact.Repo(e.ID)+"@"+e.ManifestDigest] = true
		}
	}
	head, err := ch.Head()
	if err != nil {
		return nil, err
	}
	if d.cat == nil || head.Format != index.CatalogFormat || d.cat.Format != index.CatalogFormat || head.ShardDigits != d.cat.ShardDigits {
		if d.cat != nil {
			all, err := d.tr.Decode(ctx)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.opts.Dest, err)
			}
			held(all.Entries)
		}
		return ch.Decode(ctx)
	}
	pinned := make(map[string]index.ShardRef, len(d.cat.Shards))
	for _, r := range d.cat.Shards {
		pinned[r.Bin] = r
	}
	var changed []index.ShardRef
	for _, ref := range head.Shards {
		if old, ok := pinned[ref.Bin]; ok && old == ref {
			c.rep.Held += ref.Entries
			continue
		}
		changed = append(changed, ref)
	}
	// Each changed shard is read (made from its delta), checked and
	// decoded, and so is the destination's of the same bin, on every CPU:
	// both stores are safe for concurrent use. A shard the bundle makes
	// from the destination's by a delta is made without decoding either
	// (splice): only the entries it adds are planned, the others are the
	// destination's, checked when it took them, and still valid while the
	// source's head keeps every upstream key the destination's lists.
	splice := c.opts.bundle != nil && head.KeepsUpstreamKeys(d.cat)
	type result struct {
		entries, had []index.Entry
		spliced      bool
		kept         int // of the destination's, when spliced
	}
	results := make([]result, len(changed))
	errs := make([]error, len(changed))
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for range min(runtime.GOMAXPROCS(0), len(changed)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(changed) && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				ref := changed[i]
				old, hasOld := pinned[ref.Bin]
				if hasOld && splice {
					added, kept, ok, err := c.opts.bundle.splice(ctx, head, ref, old)
					if err != nil {
						errs[i] = err
						return
					}
					if ok {
						results[i] = result{entries: added, spliced: true, kept: kept}
						continue
					}
				}
				// The destination's first: a delta made on it (its
				// base) then uses these entries instead of decoding
				// them again.
				if hasOld {
					had, err := d.tr.Shard(ctx, d.cat, old)
					if err != nil {
						errs[i] = fmt.Errorf("%s: %w", c.opts.Dest, err)
						return
					}
					results[i].had = had
					if c.opts.bundle != nil {
						c.opts.bundle.primeBase(old.Digest, had)
					}
				}
				entries, err := ch.Shard(ctx, head, ref)
				if err != nil {
					errs[i] = err
					return
				}
				results[i].entries = entries
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	spliced := 0
	for i, r := range results {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if r.spliced {
			spliced++
		}
		head.Entries = append(head.Entries, r.entries...)
		held(r.had)
		c.rep.Held += r.kept
	}
	index.SortEntries(head.Entries)
	c.opts.Logger.Debug("read the changed shards", "shards", len(changed), "spliced", spliced, "entries", len(head.Entries))
	return head, nil
}
