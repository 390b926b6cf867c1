package mirror

// Adding packages that came from elsewhere (an in-house extension, one
// downloaded by hand): each file checked as a download is, stored as an
// entry marked local, and one new signed catalog for them all.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/internal/tempdir"
	"github.com/airvsx/airvsx/policies"
)

// The rules an added file is refused by (AddRefusal.Rule). Where verify
// has a rule for the same check, the name is verify's.
const (
	AddRuleUnreadable = "package-unreadable" // the file is larger than the cap, or is not a zip archive at all
	AddRuleUnsafe     = "vsix-unsafe"        // the archive breaks a safe-zip rule
	AddRulePackage    = "vsix-package"       // its manifests are missing or invalid, disagree on the identity, or cannot name an entry
	AddRulePolicy     = "policy-denied"      // the policy given does not allow it
	AddRuleConflict   = "entry-conflict"     // the registry (or another file added with it) has this entry with other bytes
	AddRuleDependency = "dependency-missing" // it depends on an extension the registry does not have
)

// AddOptions configure Add.
type AddOptions struct {
	// Files are the .vsix files to add, in the order given; required.
	// Each is opened as a regular file (never a FIFO or device) and
	// copied before it is checked, so what is checked is what is stored.
	Files []string
	// Store is the registry written to; required.
	Store store.Store
	// Signer signs the new catalog; required. Its key must be one the
	// registry's root trusts (a new registry gets a root for it). Its TUF
	// key ID is recorded in each added entry as who added it
	// (index.LocalAddition.AddedBy).
	Signer signature.Signer
	// Policy, when set, decides which files are admitted (policies.Policy.
	// Match, as for an upstream build; requireUpstreamSignature does not
	// apply: a local package has no upstream, and the registry's key vouches
	// for it). Default nil: no policy is applied, and the log says so.
	Policy *policies.Policy
	// MaxVsixBytes caps each file. 0 means the policy's maxVsixBytes, or
	// policies.DefaultMaxVsixBytes without a policy.
	MaxVsixBytes int64
	// TempDir holds the copies of the files while they are checked. ""
	// means the system's temp directory.
	TempDir string
	// Logger receives progress records. nil means discard.
	Logger *slog.Logger
	// Now is the clock for the entries' added time and the catalog's
	// created time and expiry. nil means time.Now.
	Now func() time.Time
}

// AddReport is what Add did, for people and machines.
type AddReport struct {
	// Policy is the digest of the policy applied, "" when none was.
	Policy string `json:"policy"`
	// Added are the entries the new catalog lists that it did not before.
	Added []AddedFile `json:"added"`
	// Unchanged are files whose entry the registry already has with the
	// same bytes: nothing was written for them.
	Unchanged []AddedFile `json:"unchanged"`
	// Refused are the files that were not added, each quarantined.
	Refused []AddRefusal `json:"refused"`
	// Catalog is the catalog signed, or the current one when nothing was
	// added (Unchanged set); nil when the registry has none.
	Catalog *CatalogInfo `json:"catalog,omitempty"`
}

// AddedFile is one file and the entry it is.
type AddedFile struct {
	File   string `json:"file"`   // as given
	Entry  string `json:"entry"`  // ns.name@version[@platform]
	SHA256 string `json:"sha256"` // of the file, lowercase hex
	Size   int64  `json:"size"`
}

// AddRefusal is one file Add refused, and why.
type AddRefusal struct {
	File  string `json:"file"`            // as given
	Entry string `json:"entry,omitempty"` // what the package says it is, when it says
	Rule  string `json:"rule"`            // one of the AddRule constants
	// Reason says what failed, for people.
	Reason string `json:"reason"`
	// Quarantine is where its bytes (none for a file over the size cap)
	// and the reason were kept, in the registry ("quarantine/<name>").
	Quarantine string `json:"quarantine"`
}

// Failed reports whether a file was refused (the CLI exits 1).
func (r *AddReport) Failed() bool { return len(r.Refused) > 0 }

// Add adds packages that came from elsewhere to the registry. Each file
// is checked as sync checks a download: the safe-zip rules, the
// manifests and their agreement on the identity (publisher.name, version,
// target platform), that the identity can name an entry, the policy when
// one is given, that an entry of the same identity has the same bytes,
// and that the dependencies and pack members it declares are in the
// registry or added with it. A file that fails is refused, with the rule
// and why, and quarantined; nothing of it is stored. The others are stored
// as entries marked local (index.Entry.Local: the signing key's ID and
// the time) and listed in one new catalog, serial + 1, chained to the
// current one, whose other entries and fields stay as they are. A file
// whose entry the registry already has with the same bytes changes
// nothing; when nothing is added, nothing is signed.
//
// Errors are for failures to run (a file that cannot be opened, the
// store, the signer); refusals are in the report (AddReport.Failed).
func Add(ctx context.Context, opts AddOptions) (*AddReport, error) {
	if opts.Store == nil || opts.Signer == nil {
		return nil, errors.New("add: Store and Signer are required")
	}
	if len(opts.Files) == 0 {
		return nil, errors.New("add: no file to add")
	}
	r := &addRun{opts: opts, log: opts.Logger, now: time.Now}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if opts.Now != nil {
		r.now = opts.Now
	}
	rep := &AddReport{Added: []AddedFile{}, Unchanged: []AddedFile{}, Refused: []AddRefusal{}}
	if opts.Policy != nil {
		rep.Policy = opts.Policy.Digest()
	}
	prev, prevDigest, tr, err := loadPrevious(ctx, opts.Store)
	if err != nil {
		return nil, err
	}
	if err := checkBase(ctx, opts.Store, tr, opts.Signer); err != nil {
		return nil, err
	}
	if err := checkSigner(ctx, opts.Store, opts.Signer); err != nil {
		return nil, err
	}
	pub, err := opts.Signer.PublicKey()
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	if r.keyID, err = trust.KeyID(pub); err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	if opts.Policy == nil {
		r.log.Warn("no policy applied: every package that passes the checks is added (pass a policy to decide which)")
	}
	td, err := tempdir.New(opts.TempDir, "airvsx-add-", r.log)
	if err != nil {
		return nil, err
	}
	defer td.Remove()
	r.tmp = td.Path

	// Every file is read and checked before anything is written.
	files := make([]*addFile, 0, len(opts.Files))
	defer func() {
		for _, f := range files {
			f.close()
		}
	}()
	for i, name := range opts.Files {
		f, err := r.check(ctx, i, name)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	r.decide(files, prev)

	entries, err := r.apply(ctx, files, rep)
	if err != nil {
		return rep, err
	}
	if len(entries) == 0 {
		if prev != nil {
			rep.Catalog = &CatalogInfo{Serial: prev.Serial, Digest: prevDigest, Entries: len(prev.Entries), Expires: metadataExpires(tr), Unchanged: true}
		}
		r.log.Info("nothing added: registry unchanged")
		return rep, nil
	}
	rep.Catalog, err = r.publish(ctx, prev, prevDigest, entries)
	return rep, err
}

// apply quarantines the refused files and stores the others that are
// new, recording each in rep, and returns the entries stored.
func (r *addRun) apply(ctx context.Context, files []*addFile, rep *AddReport) ([]index.Entry, error) {
	var entries []index.Entry
	for _, f := range files {
		switch {
		case f.refused != nil:
			if err := r.quarantine(ctx, f); err != nil {
				return entries, err
			}
			rep.Refused = append(rep.Refused, *f.refused)
		case f.unchanged:
			rep.Unchanged = append(rep.Unchanged, f.added())
			r.log.Info("already in the registry with the same bytes", "file", f.name, "ext", f.entryName(), "sha256", f.sum)
		case f.dup != nil:
			// The same package given twice: added once.
		default:
			e, err := r.store(ctx, f)
			if err != nil {
				return entries, err
			}
			entries = append(entries, e)
			rep.Added = append(rep.Added, f.added())
			r.log.Info("stored", "file", f.name, "ext", f.entryName(), "bytes", f.size, "sha256", f.sum)
		}
	}
	return entries, nil
}

// addRun is one Add's settings.
type addRun struct {
	opts  AddOptions
	log   *slog.Logger
	now   func() time.Time
	keyID string // the signer's TUF key ID
	tmp   string // the private copies' directory
}

// decide refuses, in files, what the policy does not allow, what
// conflicts with the registry (prev, nil for none) or another file, and
// what depends on an extension neither has.
func (r *addRun) decide(files []*addFile, prev *index.Catalog) {
	current := map[string]*index.Entry{}
	present := map[string]bool{}
	if prev != nil {
		for i := range prev.Entries {
			e := &prev.Entries[i]
			current[e.Key()] = e
			present[e.ID.Key()] = true
		}
	}
	batch := map[string]*addFile{}
	for _, f := range files {
		if f.refused != nil {
			continue
		}
		if pol := r.opts.Policy; pol != nil {
			c := policies.Candidate{ID: f.id, Version: f.pkg.Version, Platform: f.platform, PreRelease: f.pkg.PreRelease, Engine: f.engine, Signed: true, Size: f.size}
			if d := pol.Match(c); !d.Allowed {
				f.refuse(AddRulePolicy, "the policy does not allow it: %s", d.Reason)
				continue
			}
		}
		key := index.EntryKey(f.id, f.version, f.platform)
		if e := current[key]; e != nil {
			if e.VsixSHA256 != f.sum {
				f.refuse(AddRuleConflict, "the registry has %s with other bytes (sha256:%s; this file is sha256:%s): an entry's bytes never change under the same ID, version and platform; give the package a new version", e, e.VsixSHA256, f.sum)
			} else {
				f.unchanged = true
			}
			continue
		}
		if o := batch[key]; o != nil {
			if o.sum != f.sum {
				f.refuse(AddRuleConflict, "%s is also %s, with other bytes (sha256:%s; this file is sha256:%s)", o.name, f.entryName(), o.sum, f.sum)
			} else {
				f.dup = o
			}
			continue
		}
		batch[key] = f
	}
	// What each package needs must be in the registry, or added with it:
	// refusing one can leave another without what it needs, so until
	// nothing changes.
	for changed := true; changed; {
		changed = false
		have := maps.Clone(present)
		for _, f := range batch {
			if f.refused == nil {
				have[f.id.Key()] = true
			}
		}
		for _, f := range files {
			if f.refused != nil || batch[index.EntryKey(f.id, f.version, f.platform)] != f {
				continue
			}
			var missing []string
			for _, d := range f.needs() {
				if !have[d.Key()] {
					missing = append(missing, d.String())
				}
			}
			if len(missing) > 0 {
				f.refuse(AddRuleDependency, "it needs %s, which the registry does not have: add it first, or with it", strings.Join(missing, ", "))
				changed = true
			}
		}
	}
	// A file given twice shares the fate of its first.
	for _, f := range files {
		if f.dup != nil && f.dup.refused != nil {
			r := *f.dup.refused
			r.File = f.name
			f.refused, f.dup = &r, nil
		}
	}
}

// store stores a checked file's blobs, manifest and tag, and returns its
// catalog entry, marked local.
func (r *addRun) store(ctx context.Context, f *addFile) (index.Entry, error) {
	s := r.opts.Store
	repo := artifact.Repo(f.id)
	at := r.now().UTC().Truncate(time.Second)
	name := f.entryName()
	if err := f.putVsix(ctx, s, repo); err != nil {
		return index.Entry{}, fmt.Errorf("store %s (%s): %w", name, f.name, err)
	}
	layers := []artifact.Layer{{Role: artifact.RoleVsix, Title: f.fileName(), Digest: index.SHA256Digest(f.sum), Size: f.size}}
	more, err := putAssets(ctx, s, repo, f.archive, f.pkg)
	if err != nil {
		return index.Entry{}, fmt.Errorf("store %s (%s): %w", name, f.name, err)
	}
	layers = append(layers, more...)
	info := artifact.ArtifactInfo{ID: f.id, Version: f.version, Platform: f.platform, PreRelease: f.pkg.PreRelease, Created: at}
	manifest, err := artifact.BuildManifest(info, layers)
	if err != nil {
		return index.Entry{}, fmt.Errorf("manifest of %s (%s): %w", name, f.name, err)
	}
	m, err := artifact.PutArtifact(ctx, s, manifest)
	if err != nil {
		return index.Entry{}, fmt.Errorf("store %s (%s): %w", name, f.name, err)
	}
	e := index.Entry{
		ID: f.id, Version: f.version, Platform: f.platform, PreRelease: f.pkg.PreRelease,
		Published:      at,
		ManifestDigest: m.Digest, ManifestSize: m.Size,
		VsixSHA256: f.sum, VsixSize: f.size,
		Local: &index.LocalAddition{AddedBy: r.keyID, AddedAt: at},
	}
	summarize(&e, f.pkg)
	return e, nil
}

// publish signs the catalog that lists prev's entries and the added
// ones, serial + 1, chained to prev (nil for a new registry).
func (r *addRun) publish(ctx context.Context, prev *index.Catalog, prevDigest string, added []index.Entry) (*CatalogInfo, error) {
	opts := r.opts
	cat := &index.Catalog{Format: index.CatalogFormat, Serial: 1, Created: r.now().UTC().Truncate(time.Second)}
	prevDigits := 0
	if prev != nil {
		cat.Serial, cat.Previous, prevDigits = prev.Serial+1, prevDigest, prev.ShardDigits
		cat.Upstream, cat.PolicyDigest = prev.Upstream, prev.PolicyDigest
		cat.UpstreamKeys, cat.Control = prev.UpstreamKeys, prev.Control
		cat.Entries = make([]index.Entry, 0, len(prev.Entries)+len(added))
		cat.Entries = append(cat.Entries, prev.Entries...)
	}
	cat.Entries = append(cat.Entries, added...)
	if err := cat.Validate(); err != nil {
		return nil, fmt.Errorf("new catalog: %w", err)
	}
	cat.ShardDigits = index.ShardDigitsFor(len(cat.Entries), prevDigits)
	var expires time.Duration
	if opts.Policy != nil {
		expires = opts.Policy.CatalogExpires
	}
	res, err := trust.PublishCatalog(ctx, trust.Metadata(ctx, opts.Store), cat, opts.Signer, trust.PublishOptions{Expires: expires, Now: r.now})
	if err != nil {
		return nil, fmt.Errorf("sign catalog: %w", err)
	}
	names := make([]string, 0, len(added))
	for i := range added {
		names = append(names, added[i].String())
	}
	slices.Sort(names)
	msg := fmt.Sprintf("airvsx add: catalog serial %d, %d added locally\n\nAdded by key %s:\n  %s\n", cat.Serial, len(added), r.keyID, strings.Join(names, "\n  "))
	if err := store.Commit(ctx, opts.Store, msg); err != nil {
		return nil, err
	}
	r.log.Info("catalog signed", "serial", cat.Serial, "entries", len(cat.Entries), "digest", res.CatalogDigest)
	return &CatalogInfo{Serial: cat.Serial, Digest: res.CatalogDigest, Entries: len(cat.Entries), Expires: res.Expires}, nil
}
