package mirror

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/control"
	"github.com/airvsx/airvsx/index/trust"
)

// ControlFile is an admin's own extension control list, given to sync to
// carry beside the upstream's.
type ControlFile struct {
	// Origin is "file:NAME" (policies.ControlOrigin).
	Origin string
	// Source names the file (its path as the policy gives it).
	Source string
	// Data is the file's bytes.
	Data []byte
}

// ControlReport says which control lists a sync carries.
type ControlReport struct {
	Origin    string    `json:"origin"`
	Source    string    `json:"source"`
	Digest    string    `json:"digest"`
	FetchedAt time.Time `json:"fetchedAt"`
	Malicious int       `json:"malicious"`
	Deprecate int       `json:"deprecated"`
	// Changed is set when the list's bytes are not those the registry
	// carried.
	Changed bool `json:"changed"`
	// Kept is set for the upstream's list carried before and not fetched
	// again (no control URL this time).
	Kept bool `json:"kept,omitempty"`
}

// controlRun is the control lists a sync read, checked, before any
// download.
type controlRun struct {
	refs []index.ControlRef
	data map[string][]byte // by digest
}

// readControl fetches the upstream's list (when the client has a control
// URL) and parses it and every admin list strictly. A malformed list stops
// the sync before anything is written: a list is never half-applied. The
// upstream's list carried before is kept when no URL is given this time
// (a kill list is not dropped by leaving a flag out), and said so.
func (r *syncRun) readControl(ctx context.Context) (*controlRun, error) {
	opts, now := r.opts, r.now().UTC().Truncate(time.Second)
	cr := &controlRun{data: map[string][]byte{}}
	add := func(origin, source string, data []byte) error {
		src, err := control.NewSource(origin, data)
		if err != nil {
			return fmt.Errorf("sync: %s (%s): %w; nothing was written: fix or remove the list and run the sync again", source, origin, err)
		}
		digest := index.DigestBytes(data)
		cr.refs = append(cr.refs, index.ControlRef{Origin: origin, Source: source, FetchedAt: now, Digest: digest, Size: int64(len(data))})
		cr.data[digest] = data
		rep := ControlReport{Origin: origin, Source: source, Digest: digest, FetchedAt: now, Malicious: len(src.List.Malicious), Deprecate: len(src.List.Deprecated), Changed: true}
		if p := r.prevControl(origin); p != nil && p.Digest == digest {
			rep.Changed = false
		}
		r.rep.Control = append(r.rep.Control, rep)
		r.log.Info("control list", "origin", origin, "source", source, "malicious", rep.Malicious, "deprecated", rep.Deprecate, "changed", rep.Changed, "digest", digest)
		return nil
	}
	if u := opts.Client.ControlURL(); u != "" {
		data, err := opts.Client.FetchControl(ctx, index.MaxControlBytes)
		if err != nil {
			return nil, fmt.Errorf("sync: control list %s: %w", u, err)
		}
		if err := add(index.ControlUpstream, u, data); err != nil {
			return nil, err
		}
	} else if p := r.prevControl(index.ControlUpstream); p != nil {
		cr.refs = append(cr.refs, *p)
		r.rep.Control = append(r.rep.Control, ControlReport{Origin: p.Origin, Source: p.Source, Digest: p.Digest, FetchedAt: p.FetchedAt, Kept: true})
		r.log.Warn("no control URL given: the upstream's control list carried before is kept as it was", "fetched_at", p.FetchedAt.Format(time.RFC3339), "source", p.Source)
	}
	for _, f := range opts.ControlFiles {
		if err := add(f.Origin, f.Source, f.Data); err != nil {
			return nil, err
		}
	}
	return cr, nil
}

// prevControl is the current catalog's list of origin, or nil.
func (r *syncRun) prevControl(origin string) *index.ControlRef {
	if r.prev == nil {
		return nil
	}
	i := slices.IndexFunc(r.prev.Control, func(c index.ControlRef) bool { return c.Origin == origin })
	if i < 0 {
		return nil
	}
	return &r.prev.Control[i]
}

// sameControl reports whether next carries the lists prev does, byte for
// byte (whenever each was fetched).
func sameControl(prev, next []index.ControlRef) bool {
	return slices.EqualFunc(sorted(prev), sorted(next), func(a, b index.ControlRef) bool {
		return a.Origin == b.Origin && a.Digest == b.Digest && a.Size == b.Size && a.Source == b.Source
	})
}

func sorted(refs []index.ControlRef) []index.ControlRef {
	out := slices.Clone(refs)
	slices.SortFunc(out, func(a, b index.ControlRef) int {
		switch {
		case a.Origin < b.Origin:
			return -1
		case a.Origin > b.Origin:
			return 1
		}
		return 0
	})
	return out
}

// put stores the lists' files by content, before the catalog that pins
// them is signed.
func (cr *controlRun) put(ctx context.Context, fsys trust.MetadataFS) error {
	for _, ref := range cr.refs {
		data, ok := cr.data[ref.Digest]
		if !ok {
			continue // kept from the catalog before: already stored
		}
		if _, err := trust.PutControl(ctx, fsys, data); err != nil {
			return err
		}
	}
	return nil
}

// controlRenewal says why lists the registry carries unchanged must be
// signed again: one was last fetched more than half of maxAge ago, so
// that a registry synced regularly never carries a stale list.
func controlRenewal(prev []index.ControlRef, fetched []index.ControlRef, now time.Time, maxAge time.Duration) string {
	if maxAge <= 0 {
		return ""
	}
	for _, p := range prev {
		refreshed := slices.ContainsFunc(fetched, func(f index.ControlRef) bool { return f.Origin == p.Origin && f.FetchedAt.After(p.FetchedAt) })
		if refreshed && now.Sub(p.FetchedAt) > maxAge/2 {
			return fmt.Sprintf("the control list %s carried was fetched %s, more than half of control.maxAge (%s) ago", p.Origin, p.FetchedAt.Format(time.RFC3339), maxAge)
		}
	}
	return ""
}
