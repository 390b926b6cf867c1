package transfer

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
)

// checkRepairable refuses a copy whose destination holds damage it cannot
// replace, before anything is written.
func (c *copier) checkRepairable() error {
	if len(c.rep.Damaged) == 0 || c.opts.DryRun {
		return nil
	}
	_, blobs := store.As[store.BlobReplacer](c.dst)
	_, layouts := store.As[store.LayoutRepairer](c.dst)
	if blobs && layouts {
		return nil
	}
	names := make([]string, 0, len(c.rep.Damaged))
	for _, d := range c.rep.Damaged {
		names = append(names, strings.TrimSpace(d.Repo+" "+d.Digest))
	}
	return fmt.Errorf("copy: %s holds %d damaged files (%s) and cannot replace them (only a directory registry can be repaired): copy into a new place instead: %w",
		c.opts.Dest, len(names), strings.Join(names, ", "), ErrRefused)
}

// repairLayouts writes anew the layouts the plan found damaged, before
// the tags are written again.
func (c *copier) repairLayouts(ctx context.Context) error {
	for _, repo := range c.plan.layouts {
		loc, err := layoutRepairer(c.dst).ReplaceLayout(ctx, repo, c.repairReason())
		if err != nil {
			return fmt.Errorf("copy to %s: %w", c.opts.Dest, err)
		}
		c.kept(repo, "", loc)
	}
	return nil
}

// repairReason is the reason recorded with what a repair replaced.
func (c *copier) repairReason() string {
	return "damaged in " + c.opts.Dest + "; replaced from " + c.opts.Source + " by airvsx copy --repair"
}

// kept records where the damaged blob (or, digest "", layout) went.
func (c *copier) kept(repo, digest, loc string) {
	c.repairedMu.Lock()
	defer c.repairedMu.Unlock()
	for i := range c.rep.Damaged {
		if d := &c.rep.Damaged[i]; d.Repo == repo && d.Digest == digest {
			d.Quarantine = loc
		}
	}
	if digest == "" {
		c.opts.Logger.Info("replaced a damaged layout", "repo", repo, "kept", loc)
		return
	}
	c.opts.Logger.Info("replaced a damaged blob", "repo", repo, "digest", digest, "kept", loc)
}

// put writes a blob to the destination: PutBlob, or for one the
// destination holds damaged, ReplaceBlob.
func (c *copier) put(ctx context.Context, repo, digest string, size int64, damaged bool, content store.Content) error {
	if !damaged {
		return c.dst.PutBlob(ctx, repo, digest, size, content)
	}
	loc, err := blobReplacer(c.dst).ReplaceBlob(ctx, repo, digest, size, c.repairReason(), content)
	if err != nil {
		return err
	}
	c.kept(repo, digest, loc)
	return nil
}

// copyBlobs copies the planned blobs on Workers goroutines, then the
// manifests. A blob that is not what its digest says (or is missing from
// the source) is recorded and the others go on; the copy then fails once,
// naming every one, before any tag or metadata is written. Any other
// error (the destination's) stops the copy at once.
func (c *copier) copyBlobs(ctx context.Context) error {
	var (
		mu     sync.Mutex // bad, progress calls
		bad    []error
		done   int
		nbytes atomic.Int64
	)
	p := Progress{Step: "blobs", PlannedBlobs: c.rep.Blobs, PlannedBytes: c.rep.Bytes}
	report := func() {
		mu.Lock()
		defer mu.Unlock()
		done++
		p.Blobs, p.Bytes = done, nbytes.Load()
		c.progress(p)
	}
	c.progress(p)
	// pool copies items on workers goroutines: a source fault is
	// collected, any other error stops them all.
	pool := func(items []blobItem, workers int) error {
		return parallel(ctx, len(items), workers, func(ctx context.Context, i int) error {
			err := c.copyBlob(ctx, items[i], &nbytes)
			switch {
			case err == nil:
				report()
			case isSourceFault(err):
				mu.Lock()
				bad = append(bad, err)
				mu.Unlock()
			default:
				return err
			}
			return nil
		})
	}
	// The config blobs first, each making its repository's layout (see
	// makePlan): small writes that wait on the disk or the network, not
	// the CPU, so more at once.
	items := c.plan.blobs
	n := 0
	for n < len(items) && items[n].digest == artifact.EmptyConfigDigest {
		n++
	}
	err := pool(items[:n], max(c.opts.Workers, layoutWorkers))
	if err == nil {
		err = pool(items[n:], c.opts.Workers)
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("copy to %s: %w", c.opts.Dest, err)
	}
	if len(bad) > 0 {
		return fmt.Errorf("copy: %s: %w (%s's catalog is unchanged): %w", c.opts.Source, ErrSource, c.opts.Dest, errors.Join(bad...))
	}
	for _, m := range c.plan.manifests {
		if err := c.put(ctx, m.repo, m.digest, int64(len(m.data)), m.damaged, store.BytesContent(m.data)); err != nil {
			return fmt.Errorf("copy to %s: manifest: %w", c.opts.Dest, err)
		}
		nbytes.Add(int64(len(m.data)))
		report()
	}
	return nil
}

// layoutWorkers is how many config blobs (each making a repository's
// layout) are put at once, at least.
const layoutWorkers = 8

// isSourceFault reports whether err says the source's blob is not what
// the catalog pins: another content, or missing.
func isSourceFault(err error) bool {
	return errors.Is(err, store.ErrMismatch) || errors.Is(err, fs.ErrNotExist)
}

// copyBlob copies one blob from the source to the destination, which
// hashes it while writing. A directory source gives the blob's own file,
// which PutBlob's hash checks; any other source reads through its
// verifying reader, rewound by reopening it.
func (c *copier) copyBlob(ctx context.Context, b blobItem, n *atomic.Int64) error {
	var content store.Content
	// A source with the blob's own file (store.BlobFiler) is read without
	// a second hash: the destination's PutBlob hashes every byte it writes.
	if bf, ok := store.As[store.BlobFiler](c.rawSrc); ok {
		f, err := bf.OpenBlobFile(ctx, b.repo, b.digest)
		if err != nil {
			return fmt.Errorf("blob %s in %s: %w", b.digest, b.repo, err)
		}
		defer f.Close()
		content = store.SeekContent(f)
	} else {
		rc, err := store.Reopen(func() (io.ReadCloser, error) { return c.rawSrc.OpenBlob(ctx, b.repo, b.digest, b.size) })
		if err != nil {
			return fmt.Errorf("blob %s in %s: %w", b.digest, b.repo, err)
		}
		defer rc.Close()
		content = rc
	}
	cr := &countContent{Content: content, n: n}
	if err := c.put(ctx, b.repo, b.digest, b.size, b.damaged, cr); err != nil {
		var mm *store.MismatchError
		if errors.As(err, &mm) {
			return fmt.Errorf("%s: blob %s in %s: %w", c.opts.Source, b.digest, b.repo, err)
		}
		return err
	}
	return nil
}

// countContent counts the bytes read, for progress; a rewind takes back
// what was counted.
type countContent struct {
	store.Content
	n    *atomic.Int64
	read int64
}

func (c *countContent) Read(p []byte) (int, error) {
	n, err := c.Content.Read(p)
	c.n.Add(int64(n))
	c.read += int64(n)
	return n, err
}

func (c *countContent) Rewind() error {
	c.n.Add(-c.read)
	c.read = 0
	return c.Content.Rewind()
}

// writeTags points every planned tag at its manifest.
func (c *copier) writeTags(ctx context.Context) error {
	var (
		mu   sync.Mutex // done, progress calls
		done int
	)
	total := len(c.plan.tags)
	c.progress(Progress{Step: "tags", PlannedBlobs: total})
	// Each tag waits on the destination (an fsync, a commit to the
	// journal, an HTTP round trip), so several go at once; a store
	// serializes what must be (the tags of one repository).
	return parallel(ctx, total, max(c.opts.Workers, tagWorkers), func(ctx context.Context, i int) error {
		t := c.plan.tags[i]
		if err := c.dst.Tag(ctx, t.repo, t.tag, t.desc); err != nil {
			return fmt.Errorf("copy to %s: %w", c.opts.Dest, err)
		}
		mu.Lock()
		defer mu.Unlock()
		done++
		c.progress(Progress{Step: "tags", Blobs: done, PlannedBlobs: total})
		return nil
	})
}

// tagWorkers is how many tags are written at once, at least.
const tagWorkers = 8

// parallel calls do for each i in [0, n) on at most workers goroutines
// and returns the first error; after one, the others take no more work
// and their ctx is cancelled.
func parallel(ctx context.Context, n, workers int, do func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for range min(workers, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := do(ctx, i); err != nil {
					cancel(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}

// writeMetadata writes the planned metadata files in order, timestamp.json
// last. A file read again (history the trust chain does not reach) must
// be the bytes planned.
func (c *copier) writeMetadata(ctx context.Context) error {
	for i, m := range c.plan.meta {
		c.progress(Progress{Step: "metadata", Blobs: i, PlannedBlobs: len(c.plan.meta)})
		data, err := c.src.ReadMetadata(ctx, m.name, index.MaxCatalogBytes)
		if err != nil {
			return fmt.Errorf("copy: %s: %w", c.opts.Source, err)
		}
		if sha256.Sum256(data) != m.sum {
			return fmt.Errorf("copy: %s: metadata/%s changed during the copy: %w", c.opts.Source, m.name, ErrSource)
		}
		if err := c.dst.WriteMetadata(ctx, m.name, data); err != nil {
			return fmt.Errorf("copy to %s: %w", c.opts.Dest, err)
		}
	}
	return nil
}

// blobReplacer returns what st offers as a store.BlobReplacer; the caller
// has checked it offers it (checkRepairable).
func blobReplacer(st store.Store) store.BlobReplacer {
	r, _ := store.As[store.BlobReplacer](st)
	return r
}

// layoutRepairer returns what st offers as a store.LayoutRepairer; the
// caller has checked it offers it (checkRepairable).
func layoutRepairer(st store.Store) store.LayoutRepairer {
	r, _ := store.As[store.LayoutRepairer](st)
	return r
}
