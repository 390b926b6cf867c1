package prune

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/policies"
)

// Options configure Prune.
type Options struct {
	// Store is the registry, opened for writing. Required.
	Store store.Store
	// Policy decides which entries stay. Required.
	Policy *policies.Policy
	// Signer signs the new catalog: the operator's key, one the
	// registry's root trusts. Required unless DryRun.
	Signer signature.Signer
	// DryRun decides and counts, and writes nothing. Default false.
	DryRun bool
	// Waiting is called once when the collection waits for readers.
	// Default nil.
	Waiting func()
	// Logger receives the progress records. Default nil: discard.
	Logger *slog.Logger
	// Now is the clock of the new catalog. Default nil: time.Now.
	Now func() time.Time
}

// Report is what Prune did, or with DryRun would do.
type Report struct {
	DryRun bool  `json:"dryRun"`
	Serial int64 `json:"serial"` // the catalog pruned
	// NewSerial and Digest are the catalog signed without the dropped
	// entries; 0 and "" when nothing was dropped (or a dry run).
	NewSerial int64  `json:"newSerial,omitempty"`
	Digest    string `json:"digest,omitempty"`
	Kept      int    `json:"kept"`
	// Dropped are the entries removed, Needed those the policy drops but
	// a kept entry needs, which stay.
	Dropped []Dropped `json:"dropped"`
	Needed  []Needed  `json:"needed"`
	// GC is the collection that followed.
	GC *CollectReport `json:"gc"`
}

// Prune removes the entries the policy no longer selects from the
// registry's catalog and then collects (see the package comment). The
// report is returned with the error too, as far as it came.
func Prune(ctx context.Context, opts Options) (*Report, error) {
	if opts.Store == nil || opts.Policy == nil {
		return nil, errors.New("prune: Store and Policy are required")
	}
	if opts.Signer == nil && !opts.DryRun {
		return nil, errors.New("prune: a signing key is required")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	s := opts.Store
	prev, prevDigest, err := current(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("prune: %w", err)
	}
	if prev == nil {
		return nil, errors.New("prune: the registry has no catalog yet: nothing to prune")
	}
	if !opts.DryRun {
		pub, err := opts.Signer.PublicKey()
		if err != nil {
			return nil, fmt.Errorf("prune: signing key: %w", err)
		}
		// Checked before anything changes: a key the root does not trust
		// stops the prune naming the key it trusts.
		if err := trust.CheckPublisher(ctx, "", trust.Metadata(ctx, s), pub); err != nil {
			return nil, err // a *trust.KeyError names both keys
		}
	}
	d := decide(opts.Policy, prev.Entries)
	rep := &Report{DryRun: opts.DryRun, Serial: prev.Serial, Kept: len(d.kept), Dropped: []Dropped{}, Needed: d.needed}
	if rep.Needed == nil {
		rep.Needed = []Needed{}
	}
	for i := range d.dropped {
		e := &d.dropped[i]
		rep.Dropped = append(rep.Dropped, Dropped{Entry: e.String(), Reason: d.reasons[e.Key()]})
	}
	for _, n := range d.needed {
		log.Warn("kept: a kept entry needs it", "ext", n.Entry, "required_by", n.RequiredBy, "policy", n.Reason)
	}
	if err := entryBytes(ctx, s, d, rep); err != nil {
		return rep, fmt.Errorf("prune: %w", err)
	}
	co := CollectOptions{Store: s, DryRun: opts.DryRun, Waiting: opts.Waiting, Logger: log}
	if opts.DryRun {
		rep.GC, err = collect(ctx, co, prev.Serial, d.kept)
		return rep, err
	}
	serial := prev.Serial
	var untagged []Tag
	if len(d.dropped) > 0 {
		cat := &index.Catalog{
			Format: index.CatalogFormat, Serial: prev.Serial + 1, Created: now().UTC().Truncate(time.Second),
			Upstream: prev.Upstream, PolicyDigest: opts.Policy.Digest(), Previous: prevDigest,
			UpstreamKeys: prev.UpstreamKeys, Control: prev.Control, Entries: d.kept,
		}
		cat.ShardDigits = index.ShardDigitsFor(len(cat.Entries), prev.ShardDigits)
		res, err := trust.PublishCatalog(ctx, trust.Metadata(ctx, s), cat, opts.Signer, trust.PublishOptions{Expires: opts.Policy.CatalogExpires, Now: now})
		if err != nil {
			return rep, fmt.Errorf("prune: sign catalog: %w", err)
		}
		serial, rep.NewSerial, rep.Digest = cat.Serial, cat.Serial, res.CatalogDigest
		log.Info("catalog signed", "serial", cat.Serial, "entries", len(cat.Entries), "dropped", len(d.dropped), "digest", res.CatalogDigest)
		// A store that cannot delete keeps the dropped entries' blobs
		// but not their tags, removed after the catalog that no longer
		// pins them; one that can has them removed by the collection,
		// in its order.
		_, deletes := store.As[store.BlobDeleter](s)
		for i := range d.dropped {
			if deletes {
				break
			}
			e := &d.dropped[i]
			tag, _ := artifact.Tag(e.Platform, e.Version) // entries validated: never fails
			if err := s.Untag(ctx, artifact.Repo(e.ID), tag); err != nil {
				return rep, fmt.Errorf("prune: untag %s: %w", e, err)
			}
			untagged = append(untagged, Tag{Repo: artifact.Repo(e.ID), Tag: tag})
		}
		msg := fmt.Sprintf("airvsx prune: catalog serial %d, %d entries dropped\n", cat.Serial, len(d.dropped))
		if err := store.Commit(ctx, s, msg); err != nil {
			return rep, fmt.Errorf("prune: %w", err)
		}
	}
	rep.GC, err = collect(ctx, co, serial, d.kept)
	if rep.GC != nil {
		rep.GC.Untagged = append(untagged, rep.GC.Untagged...)
	}
	return rep, err
}

// entryBytes sets each dropped entry's Bytes: its blobs that no kept
// entry of its repository refers to (a blob two dropped entries share
// counts for the first).
func entryBytes(ctx context.Context, s store.Store, d *decision, rep *Report) error {
	byRepo := map[string][]index.Entry{}
	for _, e := range d.kept {
		r := artifact.Repo(e.ID)
		byRepo[r] = append(byRepo[r], e)
	}
	counted := map[string]bool{}
	lives := map[string]map[string]bool{} // by repository, read once
	for i := range d.dropped {
		e := &d.dropped[i]
		repo := artifact.Repo(e.ID)
		live, ok := lives[repo]
		if !ok {
			l, _, err := liveSet(ctx, s, byRepo[repo])
			if err != nil {
				return err
			}
			live = l[repo]
			lives[repo] = live
		}
		m, err := artifact.EntryManifest(ctx, s, e)
		if err != nil {
			return fmt.Errorf("%w: run airvsx verify, and repair the registry first", err)
		}
		blobs := map[string]int64{m.Digest: m.Size, artifact.EmptyConfigDigest: int64(len(artifact.EmptyConfig))}
		for _, l := range m.Layers {
			blobs[l.Digest] = l.Size
		}
		for dg, n := range blobs {
			if live[dg] || counted[repo+"@"+dg] {
				continue
			}
			counted[repo+"@"+dg] = true
			rep.Dropped[i].Bytes += n
		}
	}
	return nil
}
