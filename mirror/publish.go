package mirror

import (
	"context"
	"fmt"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
)

// publish signs the new catalog (what stays, what was added by hand,
// what was stored, and what leaves unless pruned) as the next serial, or, when it would say what
// the current one says, leaves the registry as it is unless its metadata
// must be signed again.
func (r *syncRun) publish(ctx context.Context, plan *Plan, entries []index.Entry, keys []index.UpstreamKey) (*Report, error) {
	opts, rep, prev, prevDigest, prevExpires, now, log := r.opts, r.rep, r.prev, r.prevDigest, r.prevExpires, r.now, r.log
	// The new catalog: what stays, what was stored, and what leaves
	// (unless pruned).
	cat := &index.Catalog{
		Format:       index.CatalogFormat,
		Serial:       1,
		Created:      now().UTC().Truncate(time.Second),
		Upstream:     opts.Client.BaseURL(),
		PolicyDigest: opts.Policy.Digest(),
		UpstreamKeys: keys,
		Control:      r.control.refs,
	}
	prevDigits := 0
	if prev != nil {
		cat.Serial = prev.Serial + 1
		cat.Previous = prevDigest
		prevDigits = prev.ShardDigits
	}
	n := len(plan.Unchanged) + len(plan.Local) + len(entries)
	if !opts.Prune {
		n += len(plan.Leaving)
	}
	cat.Entries = make([]index.Entry, 0, n) // one copy of every entry, not one a growth
	cat.Entries = append(cat.Entries, plan.Unchanged...)
	cat.Entries = append(cat.Entries, plan.Local...) // added by hand: kept, pruned or not
	cat.Entries = append(cat.Entries, entries...)
	if !opts.Prune {
		cat.Entries = append(cat.Entries, plan.Leaving...)
	}
	var renewReason string
	if prev != nil {
		same, err := sameContent(prev, cat)
		if err != nil {
			return rep, err
		}
		if same && !sameControl(prev.Control, cat.Control) {
			same = false
			log.Info("the control lists changed: signing a new catalog")
		}
		if same {
			renewReason = renewal(opts.Renew, prevExpires, now(), opts.Policy.CatalogExpires)
			if renewReason == "" {
				renewReason = controlRenewal(prev.Control, r.control.refs, now(), opts.Policy.Control.MaxAge)
			}
			if renewReason == "" {
				// The catalog read may be one a killed run signed but did
				// not commit (a git registry takes over the change it
				// left): committing finishes it; with nothing pending it
				// writes nothing.
				if err := store.Commit(ctx, opts.Store, syncMessage(rep, prev.Serial)); err != nil {
					return rep, err
				}
				rep.Catalog = &CatalogInfo{Serial: prev.Serial, Digest: prevDigest, Entries: len(prev.Entries), Expires: prevExpires, Unchanged: true}
				log.Info("nothing new: registry unchanged", "serial", prev.Serial, "expires", prevExpires.Format(time.RFC3339))
				return rep, nil
			}
			log.Info("nothing new, signing the catalog again", "reason", renewReason)
		}
		if prev.Format == index.FlatCatalogFormat {
			log.Info("upgrading the catalog to the sharded format", "from_format", prev.Format, "to_format", index.CatalogFormat)
		}
	}
	if err := cat.Validate(); err != nil {
		return rep, fmt.Errorf("new catalog: %w", err)
	}
	// A format-1 registry is upgraded here: the next catalog is sharded.
	cat.ShardDigits = index.ShardDigitsFor(len(cat.Entries), prevDigits)
	if err := r.control.put(ctx, trust.Metadata(ctx, opts.Store)); err != nil {
		return rep, fmt.Errorf("store control lists: %w", err)
	}
	res, err := trust.PublishCatalog(ctx, trust.Metadata(ctx, opts.Store), cat, opts.Signer, trust.PublishOptions{Expires: opts.Policy.CatalogExpires, Now: now})
	if err != nil {
		return rep, fmt.Errorf("sign catalog: %w", err)
	}
	if err := store.Commit(ctx, opts.Store, syncMessage(rep, cat.Serial)); err != nil {
		return rep, err
	}
	rep.Catalog = &CatalogInfo{Serial: cat.Serial, Digest: res.CatalogDigest, Entries: len(cat.Entries), Expires: res.Expires,
		Renewed: renewReason != "", RenewReason: renewReason}
	log.Info("catalog signed", "serial", cat.Serial, "entries", len(cat.Entries), "digest", res.CatalogDigest)
	return rep, nil
}

// syncMessage describes a sync's change to a store that records changes
// (a git store's commit message).
func syncMessage(rep *Report, serial int64) string {
	entries := "entries"
	if len(rep.Stored) == 1 {
		entries = "entry"
	}
	msg := fmt.Sprintf("airvsx sync: catalog serial %d, %d %s stored", serial, len(rep.Stored), entries)
	if len(rep.Quarantined) > 0 {
		msg += fmt.Sprintf(", %d quarantined", len(rep.Quarantined))
	}
	return msg + "\n\nUpstream: " + rep.Upstream + "\n"
}
