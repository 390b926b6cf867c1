package mirror

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/internal/tempdir"
	"github.com/airvsx/airvsx/mirror/openvsx"
	"github.com/airvsx/airvsx/policies"
)

// Options configure Sync.
type Options struct {
	// Client talks to the upstream; required. Sync opens no other
	// connection.
	Client *openvsx.Client
	// Policy says what to mirror; required.
	Policy *policies.Policy
	// Store is the registry written to; required.
	Store store.Store
	// Signer signs the new catalog's TUF metadata; required unless DryRun.
	// A Signer whose key is still being made ready has a method
	// Wait(ctx) (signature.SignerVerifier, error), as trust.PendingSigner
	// does (it decrypts the key in the background): Sync then plans while
	// it waits but fetches, stores and quarantines nothing before Wait
	// returns, and stops with Wait's error (a wrong password stops the
	// sync before any package is downloaded).
	Signer signature.Signer
	// DryRun plans and reports, and writes nothing. Default false.
	DryRun bool
	// Renew signs a new catalog (serial + 1) even when nothing changed,
	// to renew the metadata's expiry early. Default false: a sync that
	// finds nothing new leaves the registry as it is, unless its
	// metadata expires within half of the policy's catalog.expires (see
	// Sync).
	Renew bool
	// Prune drops from the catalog what the policy no longer wants.
	// Default false: leaving entries are listed and kept.
	Prune bool
	// Concurrency bounds parallel downloads. 0 means 4.
	Concurrency int
	// TempDir holds downloads while they are verified, for stores that
	// cannot stage them in the registry itself (a directory store can: its downloads
	// become blobs by a rename). "" means the system's temp directory.
	TempDir string
	// Logger receives progress records. nil means discard.
	Logger *slog.Logger
	// Now is the clock for the catalog's created time and expiry. nil
	// means time.Now.
	Now func() time.Time
	// Progress, when set, is called with the counts so far (see
	// Progress): each time the planner finds an item, once when the plan
	// is made (dry runs too), each time a package has arrived and each
	// time an item is stored or rejected.
	// Calls are never concurrent, come in the order of the changes, and
	// hold up the sync while they run, so keep them short. Default nil:
	// no calls.
	Progress func(Progress)
	// ProgressEvery, when positive, has Progress also called every
	// ProgressEvery while the sync runs (Progress.Heartbeat set), with
	// what is in flight, so that a caller can show how it goes, and what
	// it waits on, when nothing changes. Default 0: only on changes.
	ProgressEvery time.Duration
	// OnPlan, when set, is called once with the plan as soon as it is
	// made (and the signing key checked), before any package is
	// downloaded (dry runs too), so that the caller can show what the sync
	// is about to do. It holds up the downloads while it runs. Default
	// nil.
	OnPlan func(*Plan)
	// ControlFiles are an admin's own extension control lists, carried
	// beside the upstream's (fetched when Client has a control URL).
	// Each is checked strictly; a malformed one stops the sync before
	// anything is written.
	ControlFiles []ControlFile
}

// Report is what a sync did, for people and machines.
type Report struct {
	Upstream     string                 `json:"upstream"`
	PolicyDigest string                 `json:"policyDigest"`
	DryRun       bool                   `json:"dryRun"`
	Plan         *Plan                  `json:"plan"`
	Stored       []string               `json:"stored"`
	Quarantined  []RejectError          `json:"quarantined"`
	Catalog      *CatalogInfo           `json:"catalog,omitempty"`
	Control      []ControlReport        `json:"control,omitempty"`
	Egress       []openvsx.EgressRecord `json:"egress"`
}

// CatalogInfo describes the catalog a sync signed, or the registry's
// current one when the sync left it unchanged.
type CatalogInfo struct {
	Serial  int64     `json:"serial"`
	Digest  string    `json:"digest"`
	Entries int       `json:"entries"`
	Expires time.Time `json:"expires"`
	// Unchanged is set when there was nothing new: the registry was left
	// as it was (no new serial, no file written) and this is its current
	// catalog.
	Unchanged bool `json:"unchanged,omitempty"`
	// Renewed is set when there was nothing new but the catalog was
	// signed again, as a new serial, because the current metadata
	// expired (or would soon), or because Options.Renew asked for it;
	// RenewReason says which.
	Renewed     bool   `json:"renewed,omitempty"`
	RenewReason string `json:"renewReason,omitempty"`
}

// Failed reports whether the sync should exit 1: something was
// quarantined or a required dependency is missing.
func (r *Report) Failed() bool {
	return len(r.Quarantined) > 0 || r.Plan != nil && r.Plan.Failed()
}

// Sync mirrors what the policy allows from the upstream into the store:
// plan, fetch and verify every new version, store it, then sign a new
// catalog (serial + 1, chained to the previous one) as the single target of
// the registry's TUF metadata. The catalog is written last, so a sync that
// stops anywhere leaves the previous catalog valid, and the next run
// reuses what was stored without downloading it again.
//
// When the new catalog would say what the current one says (the same
// entries, upstream keys, upstream and policy), nothing is signed: the
// registry is left byte for byte as it was and Report.Catalog describes
// the current catalog (Unchanged). Its metadata is signed again all the
// same, as a new serial (Renewed), when it expires within half of the
// policy's catalog.expires (or has expired), so that a registry synced
// regularly never expires, and when Options.Renew asks for it.
//
// Rejected downloads are quarantined and the run goes on; Report.Failed
// says whether any was. Errors are for failures to run: the network after
// retries, the store, the signer.
func Sync(ctx context.Context, opts Options) (*Report, error) {
	if opts.Client == nil || opts.Policy == nil || opts.Store == nil {
		return nil, errors.New("sync: Client, Policy and Store are required")
	}
	if opts.Signer == nil && !opts.DryRun {
		return nil, errors.New("sync: a signing key is required")
	}
	r := &syncRun{opts: opts, log: opts.Logger, now: time.Now, conc: opts.Concurrency}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if opts.Now != nil {
		r.now = opts.Now
	}
	if r.conc <= 0 {
		r.conc = 4
	}
	r.rep = &Report{Upstream: opts.Client.BaseURL(), PolicyDigest: opts.Policy.Digest(), DryRun: opts.DryRun, Stored: []string{}, Quarantined: []RejectError{}}
	defer func() { r.rep.Egress = opts.Client.Egress() }()

	var (
		tr  *trust.Trusted
		err error
	)
	r.prev, r.prevDigest, tr, err = loadPrevious(ctx, opts.Store)
	r.prevExpires = metadataExpires(tr)
	if err != nil {
		return nil, err
	}
	if err := checkBase(ctx, opts.Store, tr, opts.Signer); err != nil {
		return nil, err
	}
	if r.control, err = r.readControl(ctx); err != nil {
		return r.rep, err
	}
	r.prog = newProgress(opts.Progress)
	defer r.prog.heartbeat(opts.ProgressEvery)()
	if opts.DryRun {
		plan, err := MakePlan(ctx, trackedAPI{opts.Client, r.prog}, opts.Policy, r.prev, PlanOptions{Concurrency: r.conc, Logger: r.log})
		if err != nil {
			return nil, err
		}
		r.planned(plan)
		if opts.OnPlan != nil {
			opts.OnPlan(plan)
		}
		return r.rep, nil
	}

	f := &fetcher{
		client: opts.Client, store: opts.Store, pol: opts.Policy, log: r.log, keys: newKeyring(r.pinnedKeys()),
		req: make(chan struct{}, r.conc), items: make(chan struct{}, 2*r.conc), work: make(chan struct{}, r.conc),
		transfer: make(chan struct{}, runtime.GOMAXPROCS(0)), progress: r.prog,
	}
	if st, ok := store.As[store.Stager](opts.Store); ok {
		if f.staging, err = st.NewStaging(); err != nil {
			return nil, err
		}
		defer f.staging.Remove()
		f.tmpDir = f.staging.Dir()
	} else {
		// A killed sync cannot remove its downloads; the next one does
		// (tempdir).
		td, err := tempdir.New(opts.TempDir, "airvsx-sync-", r.log)
		if err != nil {
			return nil, err
		}
		defer td.Remove()
		f.tmpDir = td.Path
	}
	plan, entries, err := r.fetchAll(ctx, f)
	if err != nil {
		if plan == nil {
			return nil, err
		}
		return r.rep, err
	}
	rep, err := r.publish(ctx, plan, entries, f.keys.used())
	if err != nil {
		return rep, err
	}
	if err := store.EndPending(ctx, opts.Store, pendingName); err != nil {
		return rep, err
	}
	return rep, nil
}

// pendingName names a sync's record in a registry that keeps them
// (store.PendingWriter).
const pendingName = "sync"

// syncRun is one Sync's settings and what it found of the registry as it
// was.
type syncRun struct {
	opts Options
	log  *slog.Logger
	now  func() time.Time
	conc int
	rep  *Report
	prog *progress
	// prev is the current catalog (nil for a new registry), prevDigest
	// its digest and prevExpires when its metadata expires.
	prev        *index.Catalog
	prevDigest  string
	prevExpires time.Time
	// control is the control lists read (before any download).
	control *controlRun
}

// fetchAll makes the plan and fetches every new item in it with f,
// recording in the report what was stored and what was quarantined. It
// returns the plan (nil when the planning failed) and the entries
// stored.
func (r *syncRun) fetchAll(ctx context.Context, f *fetcher) (*Plan, []index.Entry, error) {
	opts, rep, prog, log := r.opts, r.rep, r.prog, r.log
	// The plan is made (and shown, OnPlan) before any package is
	// fetched, so that what a long sync is about to do is known at once;
	// the planner's requests and the fetches use the same request slots.
	// The first hard error cancels the rest. No fetch starts before the
	// signing key is ready (keyReady), so a key that cannot be used stops
	// the sync before it downloads or writes a package, however long its
	// decryption takes.
	keyReady := signerReady(opts.Signer)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// The signer's key must be one the registry's root trusts, or the
	// catalog could not be signed at the end: it is checked as soon as the
	// key is decrypted (while the planning starts), and no download
	// starts before it passed. A wrong key stops the sync at once.
	keyOK := make(chan struct{})
	go func() {
		if err := checkSigner(ctx, opts.Store, opts.Signer); err != nil {
			cancel(err)
			return
		}
		close(keyOK)
	}()
	var (
		mu      sync.Mutex
		found   = map[string]bool{}
		entries []index.Entry
		wg      sync.WaitGroup
	)
	// Each item the planner finds is counted at once (Progress.Planned
	// grows while the planning goes on) and fetched once the plan is made.
	onNew := func(it Item) {
		mu.Lock()
		defer mu.Unlock()
		if !found[it.key()] {
			found[it.key()] = true
			prog.found(max(it.Size, 0))
		}
	}
	fetch := func(it Item) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var e index.Entry
			err := keyReady(ctx)
			if err == nil {
				err = waitKey(ctx, keyOK)
			}
			if err == nil {
				e, err = f.fetch(ctx, &it)
			}
			mu.Lock()
			defer mu.Unlock()
			var rej *RejectError
			switch {
			case errors.As(err, &rej):
				rep.Quarantined = append(rep.Quarantined, *rej)
				prog.rejected()
			case err != nil:
				if ctx.Err() == nil {
					cancel(err)
				}
			default:
				entries = append(entries, e)
				rep.Stored = append(rep.Stored, it.String())
				log.Info("stored", "ext", it.String(), "bytes", e.VsixSize, "sha256", e.VsixSHA256)
				prog.stored(e.VsixSize)
			}
		}()
	}
	plan, err := MakePlan(ctx, limitedAPI{opts.Client, f}, opts.Policy, r.prev, PlanOptions{Concurrency: r.conc, Logger: log, OnNew: onNew})
	if err != nil {
		if cause := context.Cause(ctx); ctx.Err() != nil && cause != nil {
			err = cause // the key was refused first, and stopped the planning
		}
		cancel(err)
		return nil, nil, err
	}
	r.planned(plan)
	// The plan is shown once the key is known to be usable: a sync that
	// cannot sign stops with why, not with a plan it will not carry out.
	if err := waitKey(ctx, keyOK); err != nil {
		return plan, nil, err
	}
	if opts.OnPlan != nil {
		opts.OnPlan(plan)
	}
	// Before the first blob: the record that keeps gc from deleting what
	// this sync stores until its catalog is signed (and a killed sync's
	// downloads, which the next run reuses).
	if err := store.BeginPending(ctx, opts.Store, pendingName, plan.repos()); err != nil {
		cancel(err)
		return plan, nil, err
	}
	for _, it := range plan.New {
		fetch(it)
	}
	wg.Wait()
	if err := waitKey(ctx, keyOK); err != nil {
		return plan, nil, err // nothing was fetched: the key was wrong
	}
	if err := context.Cause(ctx); err != nil {
		return plan, nil, err
	}
	slices.Sort(rep.Stored)
	slices.SortFunc(rep.Quarantined, func(a, b RejectError) int { return strings.Compare(a.Item, b.Item) })
	return plan, entries, nil
}

// keyWaiter is a Signer whose key may still be in the making, such as
// trust.PendingSigner: Wait returns once the key is usable, or why it is
// not.
type keyWaiter interface {
	Wait(ctx context.Context) (signature.SignerVerifier, error)
}

// signerReady returns a function that blocks until s's key is ready and
// returns why it cannot be used, if it cannot (s's error as is: it names
// the key file); for a Signer that is not a keyWaiter it returns nil at
// once.
func signerReady(s signature.Signer) func(context.Context) error {
	w, ok := s.(keyWaiter)
	if !ok {
		return func(context.Context) error { return nil }
	}
	return func(ctx context.Context) error {
		_, err := w.Wait(ctx)
		return err
	}
}

// pinnedKeys are the upstream keys the previous catalog pinned (none for
// a new registry).
func (r *syncRun) pinnedKeys() []index.UpstreamKey {
	if r.prev == nil {
		return nil
	}
	return r.prev.UpstreamKeys
}

// planned records a plan just made: in the report, with what fetching it
// asks of the upstream (FetchRequests), in the progress and in the log.
func (r *syncRun) planned(plan *Plan) {
	r.rep.Plan = plan
	plan.FetchRequests = estimateRequests(plan, r.pinnedKeys())
	r.prog.planned(len(plan.New), plan.FetchBytes)
	logPlan(r.log, plan, r.opts.Client.Rate())
}

// logPlan logs the plan's counts, and what fetching it asks of the
// upstream and takes at the client's rate.
func logPlan(log *slog.Logger, plan *Plan, rate float64) {
	req := plan.FetchRequests
	log.Info("plan", "new", len(plan.New), "unchanged", len(plan.Unchanged), "leaving", len(plan.Leaving), "skipped", len(plan.Skipped), "missing", len(plan.Missing), "bytes", plan.FetchBytes,
		"api_requests", req.API, "storage_requests", req.Storage, "estimate", req.Duration(rate).Round(time.Second))
}

// limitedAPI is the planner's view of the client: each call takes one of
// the fetcher's request slots, so planning and the downloads it overlaps
// keep to --concurrency requests in flight together.
type limitedAPI struct {
	c *openvsx.Client
	f *fetcher
}

func (a limitedAPI) QueryVersions(ctx context.Context, id index.ID) (vs []*openvsx.Extension, err error) {
	err = a.f.request(ctx, "versions of "+id.String(), func() error { vs, err = a.c.QueryVersions(ctx, id); return err })
	return vs, err
}

func (a limitedAPI) Sitemap(ctx context.Context) (ids []index.ID, err error) {
	err = a.f.request(ctx, "the sitemap", func() error { ids, err = a.c.Sitemap(ctx); return err })
	return ids, err
}

// trackedAPI is the planner's view of the client in a dry run: each call
// is in flight for the progress (a dry run fetches nothing else, so it
// needs no request slots).
type trackedAPI struct {
	c    *openvsx.Client
	prog *progress
}

func (a trackedAPI) QueryVersions(ctx context.Context, id index.ID) ([]*openvsx.Extension, error) {
	_, end := a.prog.begin("versions of "+id.String(), false)
	defer end()
	return a.c.QueryVersions(ctx, id)
}

func (a trackedAPI) Sitemap(ctx context.Context) ([]index.ID, error) {
	_, end := a.prog.begin("the sitemap", false)
	defer end()
	return a.c.Sitemap(ctx)
}

// waitKey waits until the signing key has been checked (keyOK closed),
// and returns why it was not when the sync was stopped first.
func waitKey(ctx context.Context, keyOK <-chan struct{}) error {
	select {
	case <-keyOK:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// repos are the repositories the plan's new items are stored in, sorted
// (an ID no repository can be named after is quarantined, never stored).
func (p *Plan) repos() []string {
	repos := make([]string, 0, len(p.New))
	for _, it := range p.New {
		if r := artifact.Repo(it.ID); store.CheckRepo(r) == nil {
			repos = append(repos, r)
		}
	}
	slices.Sort(repos)
	return slices.Compact(repos)
}
