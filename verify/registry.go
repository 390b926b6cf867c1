package verify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/control"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/policies"
)

// RegistryOptions configure Registry. Store and Anchor are required;
// every other zero value works.
type RegistryOptions struct {
	// Store is the registry, opened read-only by the caller. Required.
	// Verify reads it only through the store.Store interface, and uses
	// what a directory store can do besides (DirStore) when it has it.
	Store store.Store
	// Target names the registry in reports: the place as the user gave
	// it. Default "": "registry".
	Target string
	// Anchor is what the operator trusts: a pinned root (--root) or the
	// publisher's public key (--key), checked on every run (see
	// index/trust.Check). Required.
	Anchor trust.Anchor
	// State keeps what earlier runs verified (the newest root, the TUF
	// versions, the catalog's serial and digest), one subdirectory per
	// registry identity. Default nil: no state is read or written, so
	// rollback beyond what the registry itself shows cannot be detected.
	// trust.DefaultStateDir gives the user's state directory.
	State *trust.StateDir
	// NoCache checks every upstream signature, neither reading nor
	// writing the signature cache in State. Default false: with a State,
	// an Ed25519 verdict found valid before for the same vsix sha256 (as
	// hashed in this run), signature and key is reused (see the package
	// comment, "Signature cache").
	NoCache bool
	// Policy, when set, must allow every entry (see the package comment).
	// Default nil: no policy checks; dependency closure is still checked.
	Policy *policies.Policy
	// NoReadData checks structure and signatures only: manifests are read
	// and parsed, blobs are checked by size, not hashed, and vsix files
	// are not opened. Default false: every byte is read.
	NoReadData bool
	// Now is the clock expiry is checked against. Default nil: time.Now.
	Now func() time.Time
	// Workers is how many entries are checked at once. Default 0:
	// runtime.GOMAXPROCS(0).
	Workers int
	// Logger receives debug records. Default nil: discard.
	Logger *slog.Logger
}

// Registry verifies the registry in opts.Store offline and read-only (see
// the package comment for every check) and returns a report of every
// problem found. The error is only for a verification that could not run:
// bad options, an unreadable state directory, a cancelled ctx. Problems
// with the registry itself, its trust chain included, are in the report;
// Report.OK says whether there were none.
func Registry(ctx context.Context, opts RegistryOptions) (*Report, error) {
	if opts.Store == nil {
		return nil, errors.New("verify: no registry")
	}
	if (opts.Anchor.Root == nil) == (opts.Anchor.Key == nil) {
		return nil, fmt.Errorf("verify: %w", trust.ErrNoAnchor)
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Target == "" {
		opts.Target = "registry"
	}
	v := &registryVerifier{opts: opts, st: opts.Store, rep: &Report{Schema: SchemaVersion, Kind: "registry", Target: opts.Target}}
	v.rep.Summary.ReadData = !opts.NoReadData
	if err := v.run(ctx); err != nil {
		return nil, err
	}
	entries := v.x.sortedEntries()
	v.x = crossState{}
	v.rep.finish(entries)
	return v.rep, nil
}

// registryVerifier holds one run of Registry.
type registryVerifier struct {
	opts    RegistryOptions
	st      store.Store
	rep     *Report
	head    *index.Catalog // the catalog file: a format-2 head without its entries
	catPath string         // metadata/targets/<hex>.catalog.json
	chain   *trust.Trusted // the verified chain; nil when it did not verify
	control *control.Set   // the control lists the catalog pins (nil: none)
	// controlPaths names each list's file by origin.
	controlPaths map[string]string
	controls     []ControlSummary
	x            crossState // what the checks across entries keep (stream)
	hashers      []*hasher  // one per worker of parallel, kept from call to call
	mu           sync.Mutex // guards rep.Problems while workers add to it

	sigs         *sigCache // nil: no cache
	sigsVerified atomic.Int64
	sigsCached   atomic.Int64
}

// add reports a problem; it is safe to call from several goroutines at
// once.
func (v *registryVerifier) add(sev Severity, rule Rule, path, entry, format string, args ...any) {
	p := newProblem(sev, rule, path, entry, fmt.Sprintf(format, args...), fixFor(rule))
	v.mu.Lock()
	defer v.mu.Unlock()
	v.rep.Problems = append(v.rep.Problems, p)
}

func (v *registryVerifier) run(ctx context.Context) error {
	c, head, err := v.trust(ctx)
	if err != nil || head == nil {
		return err
	}
	v.head = head
	v.loadControl(ctx, c.Trusted, head)
	v.loadSigCache()
	ok, n, err := v.stream(ctx, c.Trusted, head)
	if err != nil {
		return err
	}
	if !ok {
		return v.record(c, nil, 0)
	}
	if err := v.record(c, head, n); err != nil {
		return err
	}
	v.rep.Summary.SignaturesVerified = int(v.sigsVerified.Load())
	v.rep.Summary.SignaturesCached = int(v.sigsCached.Load())
	if err := v.sigs.save(); err != nil {
		v.opts.Logger.Warn("signature cache not written", "path", v.sigs.path, "err", err)
	}
	v.checkClosure()
	if v.opts.Policy != nil {
		v.checkPolicy()
	}
	if err := v.checkStray(ctx); err != nil {
		return err
	}
	return v.finishExtras(ctx)
}

// loadSigCache opens the signature cache when the run has a state
// directory, reads data and may use it. A cache that cannot be read is
// logged and ignored: it only ever saves work.
func (v *registryVerifier) loadSigCache() {
	if v.opts.State == nil || v.opts.NoCache || v.opts.NoReadData {
		return
	}
	c, err := loadSigCache(v.opts.State.Path())
	if err != nil {
		v.opts.Logger.Warn("signature cache ignored", "path", c.path, "err", err)
	}
	v.sigs = c
}
