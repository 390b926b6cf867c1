package prune

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/trust"
)

// CollectOptions configure Collect.
type CollectOptions struct {
	// Store is the registry, opened for writing (it holds the writer's
	// lock, so no copy or sync runs meanwhile). Required.
	Store store.Store
	// DryRun counts what would go and changes nothing. Default false.
	DryRun bool
	// ForgetPending drops the records of unfinished writers (a copy or
	// sync killed and never to be run again) and collects what they had
	// written like anything else no catalog refers to; each is logged as
	// a warning and listed in CollectReport.Forgotten. Default false:
	// their repositories are left as they are.
	ForgetPending bool
	// Waiting is called once when readers still have the registry open
	// and the collection waits for them. Default nil.
	Waiting func()
	// Logger receives a record per tag removed and blob deleted (debug)
	// and the totals (info). Default nil: discard.
	Logger *slog.Logger
}

// CollectReport is what a collection did, or with DryRun would do.
type CollectReport struct {
	DryRun bool `json:"dryRun"`
	// Unsupported says why nothing was deleted when the store cannot
	// delete (a git registry keeps every blob in its history); "" when
	// it can.
	Unsupported string `json:"unsupported,omitempty"`
	Serial      int64  `json:"serial"` // the catalog collected against
	Untagged    []Tag  `json:"untagged"`
	Blobs       int    `json:"blobs"`      // blobs deleted
	Freed       int64  `json:"freedBytes"` // their bytes
	Repos       int    `json:"repos"`      // repositories removed: no entry is in them any more
	// Pending are the records of unfinished writers whose repositories
	// were left as they were, and PendingBlobs and PendingBytes the
	// unreferenced blobs kept there.
	Pending []store.PendingRecord `json:"pending,omitempty"`
	// Forgotten are the records ForgetPending dropped (with DryRun, would
	// drop).
	Forgotten    []store.PendingRecord `json:"forgotten,omitempty"`
	PendingBlobs int                   `json:"pendingBlobs"`
	PendingBytes int64                 `json:"pendingBytes"`
	Duration     time.Duration         `json:"duration"`
}

// Tag is a tag a collection removes.
type Tag struct {
	Repo string `json:"repo"`
	Tag  string `json:"tag"`
}

// Collect deletes what the registry's current catalog does not refer to
// (see the package comment). The registry's catalog is read through its
// own chain from its first root (signatures and hashes, not expiry, as
// sync reads it); a registry without one is refused, and so is one whose
// pinned manifest cannot be read: what its blobs are is then unknown.
// The report is returned with the error too, as far as it came.
func Collect(ctx context.Context, opts CollectOptions) (*CollectReport, error) {
	if opts.Store == nil {
		return nil, errors.New("gc: no store")
	}
	cat, _, err := current(ctx, opts.Store)
	if err != nil {
		return nil, fmt.Errorf("gc: %w", err)
	}
	if cat == nil {
		return nil, errors.New("gc: the registry has no catalog yet, so nothing tells which blobs are live; sync or copy into it first")
	}
	return collect(ctx, opts, cat.Serial, cat.Entries)
}

// current reads the registry's current catalog through its own chain
// (expiry not checked); nil when it has none.
func current(ctx context.Context, s store.Store) (*index.Catalog, string, error) {
	cat, tr, err := trust.ReadOwnCatalog(ctx, s)
	if errors.Is(err, trust.ErrNoCatalog) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("the registry's current catalog does not verify: %w (run airvsx verify on it)", err)
	}
	return cat, tr.CatalogDigest, nil
}

// collect keeps what entries refer to (the catalog's, or with a dry run
// of prune the entries it would keep) and deletes the rest.
func collect(ctx context.Context, opts CollectOptions, serial int64, entries []index.Entry) (*CollectReport, error) {
	start := time.Now()
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	rep := &CollectReport{DryRun: opts.DryRun, Serial: serial, Untagged: []Tag{}}
	defer func() { rep.Duration = time.Since(start) }()
	s := opts.Store
	bd, ok := store.As[store.BlobDeleter](s)
	if !ok {
		rep.Unsupported = "this place cannot delete blobs"
		if _, ok := store.As[store.History](s); ok {
			rep.Unsupported = "git history keeps every blob; nothing deleted"
		}
		return rep, nil
	}
	live, pinned, err := liveSet(ctx, s, entries)
	if err != nil {
		return rep, fmt.Errorf("gc: %w", err)
	}
	pending := map[string]bool{}
	if pw, ok := store.As[store.PendingWriter](s); ok {
		if rep.Pending, err = pw.Pending(ctx); err != nil {
			return rep, fmt.Errorf("gc: %w", err)
		}
		if opts.ForgetPending {
			for _, r := range rep.Pending {
				log.Warn("forgetting an unfinished writer's record: what it wrote is collected", "writer", r.Name, "started", r.Started, "repositories", len(r.Repos))
				if !opts.DryRun {
					if err := pw.EndPending(ctx, r.Name); err != nil {
						return rep, fmt.Errorf("gc: %w", err)
					}
				}
			}
			rep.Forgotten, rep.Pending = rep.Pending, nil
		}
		for _, r := range rep.Pending {
			for _, repo := range r.Repos {
				pending[repo] = true
			}
		}
	}
	repos, err := s.Repos(ctx)
	if err != nil {
		return rep, fmt.Errorf("gc: %w", err)
	}
	if !opts.DryRun {
		// Readers that read an earlier catalog finish first; those that
		// open from now on read this one, whose blobs stay.
		release, err := bd.ExcludeReaders(ctx, opts.Waiting)
		if err != nil {
			return rep, fmt.Errorf("gc: %w", err)
		}
		defer release()
	}
	for _, repo := range repos {
		if live[repo] == nil {
			live[repo] = map[string]bool{}
		}
		if err := collectRepo(ctx, opts, bd, repo, live[repo], pinned[repo], pending[repo], rep, log); err != nil {
			return rep, fmt.Errorf("gc: %s: %w", repo, err)
		}
	}
	log.Info("collected", "untagged", len(rep.Untagged), "blobs", rep.Blobs, "bytes", rep.Freed, "dry_run", opts.DryRun)
	return rep, nil
}

// collectRepo deletes repo's blobs live does not hold and untags its
// tags pinned does not name (in the order below); a repository an
// unfinished writer is writing (pending) is only counted.
func collectRepo(ctx context.Context, opts CollectOptions, bd store.BlobDeleter, repo string, live map[string]bool, pinned map[string]string, pending bool, rep *CollectReport, log *slog.Logger) error {
	s := opts.Store
	blobs, err := bd.Blobs(ctx, repo)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if pending {
		for _, b := range blobs {
			if !live[b.Digest] {
				rep.PendingBlobs++
				rep.PendingBytes += b.Size
			}
		}
		return nil
	}
	tags, err := s.Tags(ctx, repo)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var drop []store.TagEntry
	manifests := map[string]bool{} // those the tags that go point at
	for _, t := range tags {
		if want, ok := pinned[t.Tag]; ok {
			if t.Manifest.Digest != want {
				// Damage verify reports (tag-mismatch): the tag stays,
				// and so does what it points at.
				log.Warn("a tag the catalog pins points at another manifest; keeping it", "repo", repo, "tag", t.Tag, "manifest", t.Manifest.Digest, "pinned", want)
				live[t.Manifest.Digest] = true
			}
			continue
		}
		drop = append(drop, t)
		manifests[t.Manifest.Digest] = true
	}
	del := func(which func(digest string) bool) error {
		for _, b := range blobs {
			if live[b.Digest] || !which(b.Digest) {
				continue
			}
			n := b.Size
			if !opts.DryRun {
				if n, err = bd.DeleteBlob(ctx, repo, b.Digest); err != nil {
					return err
				}
			}
			log.Debug("deleted", "repo", repo, "sha256", b.Digest, "bytes", n)
			rep.Blobs++
			rep.Freed += n
		}
		return nil
	}
	// The layers and configs first, while the tags that go still lead
	// to them (a registry lists blobs only through its tags); then the
	// manifests, each with the tags that point at it (DeleteBlob), so no
	// tag points at a missing manifest; then what tags are left (one
	// whose manifest was missing already).
	if err := del(func(d string) bool { return !manifests[d] }); err != nil {
		return err
	}
	if err := del(func(d string) bool { return manifests[d] }); err != nil {
		return err
	}
	for _, t := range drop {
		if !opts.DryRun {
			if err := s.Untag(ctx, repo, t.Tag); err != nil {
				return err
			}
		}
		log.Debug("untagged", "repo", repo, "tag", t.Tag, "manifest", t.Manifest.Digest)
		rep.Untagged = append(rep.Untagged, Tag{Repo: repo, Tag: t.Tag})
	}
	// A repository no entry is in any more goes, layout files and all.
	if len(live) == 0 && len(pinned) == 0 {
		if !opts.DryRun {
			if err := bd.DeleteRepo(ctx, repo); err != nil {
				return err
			}
		}
		rep.Repos++
	}
	return nil
}

// liveSet reads the manifest of every entry and returns, by repository,
// the digests of the blobs they refer to (the manifest, its config, its
// layers) and the tags they pin (with the manifest each pins).
func liveSet(ctx context.Context, s store.Store, entries []index.Entry) (live map[string]map[string]bool, pinned map[string]map[string]string, err error) {
	// The manifests are read on several workers (a registry has one per
	// entry, each a read that waits on the disk or the network), then
	// merged in order.
	ms := make([]*artifact.Manifest, len(entries))
	errs := make([]error, len(entries))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(max(runtime.GOMAXPROCS(0), 4), len(entries)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(entries) && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				ms[i], errs[i] = artifact.EntryManifest(ctx, s, &entries[i])
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	live, pinned = map[string]map[string]bool{}, map[string]map[string]string{}
	for i := range entries {
		m, err := ms[i], errs[i]
		if err != nil {
			return nil, nil, fmt.Errorf("%w: what the catalog pins must be readable before anything is deleted; run airvsx verify, and repair the registry first", err)
		}
		repo := artifact.Repo(entries[i].ID)
		if live[repo] == nil {
			live[repo], pinned[repo] = map[string]bool{}, map[string]string{}
		}
		live[repo][m.Digest] = true
		live[repo][artifact.EmptyConfigDigest] = true
		for _, l := range m.Layers {
			live[repo][l.Digest] = true
		}
		pinned[repo][m.Tag()] = m.Digest
	}
	return live, pinned, nil
}
