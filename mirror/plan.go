package mirror

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/mirror/openvsx"
	"github.com/airvsx/airvsx/policies"
)

// API is the part of the Open VSX API the planner needs. *openvsx.Client
// implements it.
type API interface {
	// QueryVersions lists every version and platform of an extension
	// with its metadata (the paged query endpoint).
	QueryVersions(ctx context.Context, id index.ID) ([]*openvsx.Extension, error)
	Sitemap(ctx context.Context) ([]index.ID, error)
}

// Item is one (extension, version, platform) the plan fetches.
type Item struct {
	ID         index.ID       `json:"id"`
	Version    string         `json:"version"`
	Platform   index.Platform `json:"platform"`
	PreRelease bool           `json:"preRelease,omitempty"`
	Engine     string         `json:"engine,omitempty"`
	Published  time.Time      `json:"published"`
	Size       int64          `json:"size,omitempty"` // upstream's downloadSize; 0 when it sends none
	Signed     bool           `json:"signed"`
	Reason     string         `json:"reason"` // why the plan wants it
	// Meta is upstream's JSON for this version, stored with the entry.
	Meta *openvsx.Extension `json:"-"`
}

// String returns "ns.name@version" plus "@platform" unless universal.
func (it *Item) String() string { return index.EntryName(it.ID, it.Version, it.Platform) }

func (it *Item) key() string { return index.EntryKey(it.ID, it.Version, it.Platform) }

// Skip is a version upstream offers that the plan leaves out, and why.
type Skip struct {
	ID       index.ID       `json:"id"`
	Version  string         `json:"version"`
	Platform index.Platform `json:"platform"`
	Reason   string         `json:"reason"`
}

// Missing is a dependency or pack member the registry will lack.
type Missing struct {
	ID         index.ID `json:"id"`
	RequiredBy string   `json:"requiredBy"`
	Reason     string   `json:"reason"`
	// Fatal reports whether the run fails for it: the policy asks for
	// dependencies (dependencies: true) and this one cannot be had.
	Fatal bool `json:"fatal"`
}

// Plan is what a sync will do: fetch New, keep Unchanged and Local, and
// list what leaves the catalog (kept until pruned).
type Plan struct {
	New       []Item        `json:"new"`
	Unchanged []index.Entry `json:"unchanged"`
	Leaving   []index.Entry `json:"leaving"`
	// Local are the current catalog's entries added by hand (airvsx add,
	// index.Entry.Local) that the policy does not select from upstream:
	// the policy does not speak for them, so they are kept, pruned or
	// not. (One the policy selects is in Unchanged.)
	Local   []index.Entry `json:"local,omitempty"`
	Skipped []Skip        `json:"skipped"`
	Missing []Missing     `json:"missing"`
	// FetchBytes is the sum of the sizes upstream announced for New;
	// items without an announced size count 0.
	FetchBytes int64 `json:"fetchBytes"`
	// FetchRequests is what fetching New asks of the upstream (set by
	// Sync, before it fetches).
	FetchRequests Requests `json:"fetchRequests"`
}

// Failed reports whether the plan has a fatal missing dependency.
func (p *Plan) Failed() bool {
	return slices.ContainsFunc(p.Missing, func(m Missing) bool { return m.Fatal })
}

// PlanOptions configure MakePlan. The zero value works.
type PlanOptions struct {
	// Concurrency bounds the extensions planned at once (their version
	// lists and metadata are fetched in parallel). 0 means 4.
	Concurrency int
	// Logger receives debug records. nil means discard.
	Logger *slog.Logger
	// OnNew, when set, is called with each item the plan fetches as soon
	// as its extension is planned, before MakePlan returns, so that the
	// caller can start fetching it while planning goes on. Calls come
	// from the planner's goroutines, concurrently. Every item it is given
	// is in the returned plan's New; when MakePlan fails, some may not
	// have been. Default nil.
	OnNew func(Item)
}

// planner holds the state of one planning run.
type planner struct {
	api     API
	pol     *policies.Policy
	current map[string]*index.Entry // by entry key; read-only while planning
	log     *slog.Logger
	onNew   func(Item) // PlanOptions.OnNew; nil for none

	plan    Plan
	planned map[string]bool // entry keys in New or Unchanged
	visited map[string]bool // ID keys enumerated
}

// extPlan is the plan of one extension, merged into the run's plan in a
// fixed order so that planning in parallel stays deterministic.
type extPlan struct {
	plan    Plan
	planned []string
	deps    []dep
}

// MakePlan decides what a sync does. It enumerates the policy's exact IDs
// (or, when the policy has globs, upstream's sitemap), lists every version
// and platform of each with its metadata from the paged query endpoint
// (one request per 100 versions of an extension), asks the policy which
// to keep (platforms, version range, latest N, pre-release, engine
// against the policy's editor, upstream signature, size), and closes
// over extensionDependencies and extensionPack when the policy asks for
// it.
// A version already in current is not fetched again. current may be nil.
func MakePlan(ctx context.Context, api API, pol *policies.Policy, current *index.Catalog, opts PlanOptions) (*Plan, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	conc := opts.Concurrency
	if conc <= 0 {
		conc = 4
	}
	p := &planner{api: api, pol: pol, log: log, onNew: opts.OnNew, current: map[string]*index.Entry{}, planned: map[string]bool{}, visited: map[string]bool{}}
	if current != nil {
		for i := range current.Entries {
			e := &current.Entries[i]
			p.current[index.EntryKey(e.ID, e.Version, e.Platform)] = e
		}
	}
	ids := pol.ExactIDs()
	if pol.HasGlobs() {
		all, err := api.Sitemap(ctx)
		if err != nil {
			return nil, fmt.Errorf("enumerate upstream extensions: %w", err)
		}
		for _, id := range all {
			if pol.Wants(id) && !slices.ContainsFunc(ids, id.Equal) {
				ids = append(ids, id)
			}
		}
	}
	slices.SortFunc(ids, index.ID.Compare)

	type work struct {
		id         index.ID
		requiredBy string
	}
	queue := make([]work, 0, len(ids))
	for _, id := range ids {
		queue = append(queue, work{id: id})
	}
	// Plan in waves: every extension of a wave in parallel, then merge
	// their plans in queue order and queue the dependencies they name.
	for len(queue) > 0 {
		var wave []work
		for _, w := range queue {
			if !p.visited[w.id.Key()] {
				p.visited[w.id.Key()] = true
				wave = append(wave, w)
			}
		}
		queue = queue[:0:0]
		results := make([]*extPlan, len(wave))
		errs := make([]error, len(wave))
		var wg sync.WaitGroup
		sem := make(chan struct{}, conc)
		for i, w := range wave {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				results[i], errs[i] = p.planExtension(ctx, w.id, w.requiredBy)
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
		for _, r := range results {
			p.merge(r)
			for _, d := range r.deps {
				if p.visited[d.id.Key()] {
					continue
				}
				if !pol.Dependencies {
					if !pol.Wants(d.id) {
						p.plan.Missing = append(p.plan.Missing, Missing{ID: d.id, RequiredBy: d.requiredBy, Reason: "not mirrored: the policy does not pull in dependencies (dependencies: false)"})
					}
					continue
				}
				queue = append(queue, work(d))
			}
		}
	}

	// What the current catalog has that the plan no longer wants: in a
	// large registry most of it, so made room for at once.
	if n := len(p.current) - len(p.planned); n > 0 {
		p.plan.Leaving = make([]index.Entry, 0, n)
	}
	for k, e := range p.current {
		switch {
		case p.planned[k]:
		case e.Local != nil:
			p.plan.Local = append(p.plan.Local, *e)
		default:
			p.plan.Leaving = append(p.plan.Leaving, *e)
		}
	}
	if len(p.plan.Leaving) == 0 {
		p.plan.Leaving = nil // as before: none is null in the report
	}
	p.sort()
	return &p.plan, nil
}

type dep struct {
	id         index.ID
	requiredBy string
}

// merge adds one extension's plan to the run's.
func (p *planner) merge(r *extPlan) {
	p.plan.New = append(p.plan.New, r.plan.New...)
	p.plan.Unchanged = append(p.plan.Unchanged, r.plan.Unchanged...)
	p.plan.Skipped = append(p.plan.Skipped, r.plan.Skipped...)
	p.plan.Missing = append(p.plan.Missing, r.plan.Missing...)
	p.plan.FetchBytes += r.plan.FetchBytes
	for _, k := range r.planned {
		p.planned[k] = true
	}
}

// planExtension plans one extension: what to fetch and keep, what to skip,
// and the dependencies and pack members it names. It only reads the
// planner's shared state, so extensions can be planned in parallel.
func (p *planner) planExtension(ctx context.Context, id index.ID, requiredBy string) (*extPlan, error) {
	r := &extPlan{}
	pol := p.pol
	if requiredBy != "" {
		if _, excluded := excludedReason(pol, id); excluded {
			r.plan.Missing = append(r.plan.Missing, Missing{ID: id, RequiredBy: requiredBy, Reason: "excluded by the policy", Fatal: true})
			return r, nil
		}
		pol = pol.WithDependencies(id)
	}
	versions, err := p.api.QueryVersions(ctx, id)
	if errors.Is(err, openvsx.ErrNotFound) || err == nil && len(versions) == 0 {
		if requiredBy != "" {
			r.plan.Missing = append(r.plan.Missing, Missing{ID: id, RequiredBy: requiredBy, Reason: "not found upstream", Fatal: true})
		} else {
			// The policy names it and upstream has no such extension: a
			// typo, or one that was removed. Counted as missing, so the plan
			// and the summary say so (the run goes on: the others are fine).
			r.plan.Missing = append(r.plan.Missing, Missing{ID: id, RequiredBy: "the policy", Reason: "not found upstream: check the ID in the policy (a typo, or an extension upstream no longer has)"})
		}
		return r, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list versions of %s: %w", id, err)
	}

	cands := p.candidates(r, id, versions)
	selected := selectKept(pol, cands)
	if requiredBy != "" && len(selected) == 0 {
		r.plan.Missing = append(r.plan.Missing, Missing{ID: id, RequiredBy: requiredBy, Reason: "no version upstream satisfies the policy", Fatal: true})
	}
	if err := r.record(pol, id, requiredBy, cands, selected); err != nil {
		return nil, err
	}
	if p.onNew != nil {
		for _, it := range r.plan.New {
			p.onNew(it)
		}
	}
	return r, nil
}

// candidate is one version and platform upstream lists for an extension,
// with what the policy decides on: from the current catalog's entry when
// it has this one, else from upstream's metadata of it.
type candidate struct {
	c        policies.Candidate
	meta     *openvsx.Extension
	entry    *index.Entry // the current catalog's, when it has this one
	unusable string       // why it cannot be mirrored, when it cannot
}

// candidates are the versions upstream lists that can be read; the
// others are skipped in r, with why.
func (p *planner) candidates(r *extPlan, id index.ID, versions []*openvsx.Extension) []*candidate {
	var cands []*candidate
	for _, m := range versions {
		v, err := index.ParseVersion(m.Version)
		if err != nil {
			r.plan.Skipped = append(r.plan.Skipped, Skip{ID: id, Version: m.Version, Reason: "upstream version is not SemVer: " + err.Error()})
			continue
		}
		plat, err := m.Platform()
		if err != nil {
			r.plan.Skipped = append(r.plan.Skipped, Skip{ID: id, Version: m.Version, Platform: index.Platform(m.TargetPlatform), Reason: err.Error()})
			continue
		}
		engine, _ := index.ParseEngineRange(m.Engines["vscode"]) // a bad range stays zero and is refused by an editor check
		c := &candidate{c: policies.Candidate{ID: id, Version: v, Platform: plat, Engine: engine}, meta: m}
		if e := p.current[index.EntryKey(id, m.Version, plat)]; e != nil {
			c.entry = e
			c.c.PreRelease, c.c.Signed, c.c.Size = e.PreRelease, e.Upstream.Signed, e.VsixSize
		} else {
			c.c.PreRelease = m.PreRelease
			c.c.Signed = m.Files["signature"] != "" && m.Files["publicKey"] != ""
			c.c.Size = m.DownloadSize
			if m.Files["download"] == "" {
				c.unusable = "upstream lists no download for it (files {})"
			}
		}
		cands = append(cands, c)
	}
	return cands
}

// selectKept returns the usable candidates the policy keeps.
func selectKept(pol *policies.Policy, cands []*candidate) []*candidate {
	var usable []policies.Candidate
	for _, c := range cands {
		if c.unusable == "" {
			usable = append(usable, c.c)
		}
	}
	var selected []*candidate
	for _, k := range pol.Select(usable) {
		i := slices.IndexFunc(cands, func(c *candidate) bool {
			return c.unusable == "" && c.c.Version.Equal(k.Version) && c.c.Version.Original() == k.Version.Original() && c.c.Platform == k.Platform
		})
		selected = append(selected, cands[i])
	}
	return selected
}

// record files every candidate in r's plan: skipped (with why), kept as
// it is stored, or new; and the dependencies and pack members of what is
// kept.
func (r *extPlan) record(pol *policies.Policy, id index.ID, requiredBy string, cands, selected []*candidate) error {
	chosen := map[*candidate]bool{}
	for _, c := range selected {
		chosen[c] = true
	}
	for _, c := range cands {
		name := index.EntryName(id, c.meta.Version, c.c.Platform)
		switch {
		case c.unusable != "":
			r.plan.Skipped = append(r.plan.Skipped, Skip{ID: id, Version: c.meta.Version, Platform: c.c.Platform, Reason: c.unusable})
			continue
		case !chosen[c]:
			reason := "older than the newest versions the policy keeps"
			if d := pol.Match(c.c); !d.Allowed {
				reason = d.Reason
			}
			r.plan.Skipped = append(r.plan.Skipped, Skip{ID: id, Version: c.meta.Version, Platform: c.c.Platform, Reason: reason})
			continue
		}
		key := index.EntryKey(id, c.meta.Version, c.c.Platform)
		r.planned = append(r.planned, key)
		if c.entry != nil {
			r.plan.Unchanged = append(r.plan.Unchanged, *c.entry)
			for _, d := range append(slices.Clone(c.entry.Dependencies), c.entry.ExtensionPack...) {
				r.deps = append(r.deps, dep{id: d, requiredBy: name})
			}
			continue
		}
		reason := pol.Match(c.c).Reason
		if requiredBy != "" {
			reason = "dependency of " + requiredBy
		}
		it := Item{
			ID: id, Version: c.meta.Version, Platform: c.c.Platform, PreRelease: c.c.PreRelease,
			Engine: c.c.Engine.String(), Published: c.meta.Timestamp, Size: c.c.Size, Signed: c.c.Signed,
			Reason: reason, Meta: c.meta,
		}
		r.plan.New = append(r.plan.New, it)
		r.plan.FetchBytes += max(it.Size, 0)
		ds, err := c.meta.DependencyIDs()
		if err != nil {
			return fmt.Errorf("%s: dependencies: %w", name, err)
		}
		ps, err := c.meta.PackIDs()
		if err != nil {
			return fmt.Errorf("%s: extension pack: %w", name, err)
		}
		for _, d := range append(ds, ps...) {
			r.deps = append(r.deps, dep{id: d, requiredBy: name})
		}
	}
	return nil
}

func excludedReason(pol *policies.Policy, id index.ID) (string, bool) {
	d := pol.Match(policies.Candidate{ID: id})
	if strings.HasPrefix(d.Reason, "excluded") {
		return d.Reason, true
	}
	return "", false
}

func (p *planner) sort() {
	byEntry := func(a, b index.Entry) int {
		return strings.Compare(index.EntryKey(a.ID, a.Version, a.Platform), index.EntryKey(b.ID, b.Version, b.Platform))
	}
	slices.SortFunc(p.plan.New, func(a, b Item) int { return strings.Compare(a.key(), b.key()) })
	slices.SortFunc(p.plan.Unchanged, byEntry)
	slices.SortFunc(p.plan.Leaving, byEntry)
	slices.SortFunc(p.plan.Local, byEntry)
	slices.SortFunc(p.plan.Skipped, func(a, b Skip) int {
		return strings.Compare(index.EntryKey(a.ID, a.Version, a.Platform), index.EntryKey(b.ID, b.Version, b.Platform))
	})
	slices.SortFunc(p.plan.Missing, func(a, b Missing) int {
		return strings.Compare(a.ID.Key()+" "+a.RequiredBy, b.ID.Key()+" "+b.RequiredBy)
	})
	p.plan.Missing = slices.CompactFunc(p.plan.Missing, func(a, b Missing) bool { return a.ID.Equal(b.ID) && a.RequiredBy == b.RequiredBy })
}
