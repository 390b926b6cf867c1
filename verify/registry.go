package verify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/policies"
)

// RegistryOptions configure Registry. Path and one of Root and Key are
// required; every other zero value works.
type RegistryOptions struct {
	// Path is the registry directory. Required.
	Path string
	// Root is the pinned trust anchor: the bytes of a root.json obtained
	// out of band (--root). Exactly one of Root and Key is set.
	Root []byte
	// Key is the publisher's public key (--key): the registry's
	// metadata/1.root.json is trusted on first use when this key signed
	// it, and from then on the newest verified root pinned in StateDir is
	// the anchor.
	Key signature.Verifier
	// StateDir keeps what earlier runs verified (the pinned root in key
	// mode, the TUF versions, the catalog's serial and digest), one
	// subdirectory per registry identity. Default "": no state is read or
	// written, so rollback beyond what the registry itself shows cannot be
	// detected. DefaultStateDir gives the user's state directory.
	StateDir string
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

// Registry verifies the registry at opts.Path offline and read-only (see
// the package comment for every check) and returns a report of every
// problem found. The error is only for a verification that could not run:
// bad options, a path that is not a registry, an unreadable state
// directory, a cancelled ctx. Problems with the registry itself, its trust
// chain included, are in the report; Report.OK says whether there were
// none.
func Registry(ctx context.Context, opts RegistryOptions) (*Report, error) {
	if opts.Path == "" {
		return nil, errors.New("verify: no registry path")
	}
	if (opts.Root == nil) == (opts.Key == nil) {
		return nil, errors.New("verify: give exactly one trust anchor: a pinned root (--root) or a key (--key)")
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
	st, err := store.OpenDir(opts.Path, store.DirOptions{ReadOnly: true, Logger: opts.Logger})
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	defer st.Close()
	v := &registryVerifier{opts: opts, st: st, rep: &Report{Schema: SchemaVersion, Kind: "registry", Target: opts.Path}}
	v.rep.Summary.ReadData = !opts.NoReadData
	if err := v.run(ctx); err != nil {
		return nil, err
	}
	v.rep.finish(v.entries)
	return v.rep, nil
}

// registryVerifier holds one run of Registry.
type registryVerifier struct {
	opts    RegistryOptions
	st      *store.Dir
	rep     *Report
	cat     *index.Catalog
	catPath string // metadata/targets/<hex>.catalog.json
	entries []EntryResult

	refsMu sync.Mutex
	refs   map[string]map[string]bool // repo → blob digests entries reference
}

// ref records that an entry of repo references the blob digest.
func (v *registryVerifier) ref(repo string, digests ...string) {
	v.refsMu.Lock()
	defer v.refsMu.Unlock()
	if v.refs == nil {
		v.refs = map[string]map[string]bool{}
	}
	if v.refs[repo] == nil {
		v.refs[repo] = map[string]bool{}
	}
	for _, d := range digests {
		v.refs[repo][d] = true
	}
}

func (v *registryVerifier) add(sev Severity, rule Rule, path, entry, format string, args ...any) {
	v.rep.Problems = append(v.rep.Problems, Problem{Severity: sev, Rule: rule, Path: path, Entry: entry, Message: fmt.Sprintf(format, args...), Fix: fixFor(rule)})
}

func (v *registryVerifier) run(ctx context.Context) error {
	cat, err := v.trust(ctx)
	if err != nil || cat == nil {
		return err
	}
	v.cat = cat
	for i := range cat.Entries {
		e := &cat.Entries[i]
		v.entries = append(v.entries, EntryResult{Entry: e.String(), Manifest: store.BlobName(store.Repo(e.ID), e.ManifestDigest)})
	}
	tags, err := v.checkTags(ctx)
	if err != nil {
		return err
	}
	if err := v.checkEntries(ctx); err != nil {
		return err
	}
	v.checkClosure()
	if v.opts.Policy != nil {
		v.checkPolicy()
	}
	return v.checkExtras(ctx, tags)
}
