package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/control"
	"github.com/airvsx/airvsx/index/problem"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/index/vsix"
	"github.com/airvsx/airvsx/internal/safefile"
)

// installer is one install run: the locked directory, the staging folder
// and the packages checked and unpacked so far, dependencies first.
type installer struct {
	opts    Options
	check   checkOptions
	d       *extDir
	staging string

	// Registry installs.
	reg *Registry
	// cat is the verified catalog's head (a format-1 catalog whole),
	// chain the chain that verified it, which reads its shards.
	cat   *index.Catalog
	chain *trust.Trusted
	// catDigest is the verified catalog's digest.
	catDigest string

	planned  []*pending
	visiting map[string]bool
	done     map[string]bool
	kept     []Record
	// regranted are installed records kept with the grants of the policy
	// given, which differ from those recorded.
	regranted []Record
	// unpacked counts the packages unpacked into staging.
	unpacked int
	// keepStaging is set when a failed commit could not move everything
	// back: staging may hold an installed folder.
	keepStaging bool

	// newControl is the control lists the registry carries, newer than
	// those the directory enforces (nil: none to save); enforce is those
	// the install enforces, controlSet them parsed; overrides the
	// extensions installed under the policy's control.allow.
	newControl, enforce *ControlState
	controlSet          *control.Set
	overrides           []ControlOverride
}

// pending is a package checked and unpacked into the staging folder.
type pending struct {
	c      *checked
	src    string // the unpacked extension/ folder in staging
	sha256 string
	tree   string
	files  []FileHash
	source Source
}

func newInstaller(ctx context.Context, opts Options) (*installer, error) {
	opts, api, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	d, err := openForWrite(ctx, opts.Dir, true, DirOptions{StateDir: opts.StateDir, Logger: opts.Logger})
	if err != nil {
		return nil, err
	}
	staging, err := os.MkdirTemp(opts.Dir, ".install-")
	if err != nil {
		d.close()
		return nil, fmt.Errorf("install: %w", err)
	}
	return &installer{
		opts: opts, d: d, staging: staging,
		check:    checkOptions{api: api, platform: opts.Platform, policy: opts.Policy, allowPartial: opts.AllowPartialActivation, log: opts.Logger},
		visiting: map[string]bool{}, done: map[string]bool{},
	}, nil
}

// close removes the staging folder (whatever is left in it was never
// installed) and unlocks the directory.
func (in *installer) close() error {
	var err error
	if !in.keepStaging {
		err = os.RemoveAll(in.staging)
	}
	return errors.Join(err, in.d.close())
}

// FromRegistry installs the extension ref names ("ns.name" or
// "ns.name@version") from a registry, after its dependencies and pack
// members:
//
//   - the catalog is verified from reg.Anchor with index/trust, as verify
//     does: the TUF chain, expiry, rollback against reg.State and the
//     catalog's own history (Checked.CheckCatalog); the verified chain is
//     recorded in reg.State like verify records it (the catalog only when
//     its history checked), so install and verify share one memory;
//   - the entry: for this machine's platform, else universal; without a
//     version the newest release (pre-releases only with
//     Options.PreRelease) whose engines.vscode accepts the host;
//   - its OCI manifest (store.EntryManifest) and its vsix (sha256 and size
//     against the catalog, store.OpenBlobAt), the archive rules, the
//     package identity against the entry, and checkPackage;
//   - then its extensionDependencies and extensionPack members, each
//     newest compatible, unless already installed (in any version); a
//     cycle is installed once, without looping.
//
// Nothing is installed unless everything is: a package that fails is
// quarantined (DIR/.quarantine) and the install refused with a
// *RefusedError naming every problem; the directory is as before.
func FromRegistry(ctx context.Context, reg Registry, ref string, opts Options) (*Result, error) {
	if reg.Store == nil || reg.Place == "" {
		return nil, errors.New("install: no registry")
	}
	id, version, err := ParseRef(ref)
	if err != nil {
		return nil, err
	}
	in, err := newInstaller(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer in.close()
	in.reg = &reg
	if err := in.verifyCatalog(ctx, ref); err != nil {
		return nil, err
	}
	if err := in.loadControl(ctx, in.catDigest); err != nil {
		return nil, err
	}
	if in.d.created == "" {
		// The lists are verified and newer: the directory enforces them
		// from now on, whatever becomes of this install.
		if err := in.saveControl(); err != nil {
			return nil, err
		}
	}
	if err := in.visit(ctx, id, version, ""); err != nil {
		return nil, err
	}
	res, err := in.commit()
	if err != nil {
		return nil, err
	}
	if err := in.saveControl(); err != nil {
		return nil, err
	}
	res.ControlOverrides = in.overrides
	return res, nil
}

// ParseRef parses "ns.name" or "ns.name@version".
func ParseRef(ref string) (index.ID, string, error) {
	s, version, _ := strings.Cut(ref, "@")
	id, err := index.ParseID(s)
	if err != nil {
		return index.ID{}, "", fmt.Errorf("install %s: %w", ref, err)
	}
	if strings.Contains(ref, "@") {
		if _, err := index.ParseVersion(version); err != nil {
			return index.ID{}, "", fmt.Errorf("install %s: %w", ref, err)
		}
	}
	return id, version, nil
}

// verifyCatalog checks the registry's trust chain and catalog.
func (in *installer) verifyCatalog(ctx context.Context, ref string) error {
	refuse := func(err error) error {
		return &RefusedError{What: "install " + ref, Problems: []problem.Problem{refusal("registry %s: %v", in.reg.Place, err)}}
	}
	c, err := trust.Check(ctx, in.reg.Store, in.reg.Anchor, trust.CheckOptions{State: in.reg.State, Now: in.opts.Now})
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, trust.ErrState) || errors.Is(err, trust.ErrNoAnchor) {
			return fmt.Errorf("install: %w", err)
		}
		return refuse(err)
	}
	// The head alone: visit reads the shard of each extension it plans.
	cat, err := c.Head()
	if err != nil {
		return refuse(err)
	}
	cerr := c.CheckCatalog(cat)
	chained := cat
	if cerr != nil {
		chained = nil
	}
	if _, err := c.Record(chained); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	if cerr != nil {
		return refuse(cerr)
	}
	in.cat, in.catDigest, in.chain = cat, c.CatalogDigest, c.Trusted
	return nil
}

// visit plans id (at version, "" for the newest compatible) and, after
// it, its dependencies; planned is in post-order, dependencies first.
// requiredBy is the extension that needs id ("" for the one asked for).
func (in *installer) visit(ctx context.Context, id index.ID, version, requiredBy string) error {
	key := id.Key()
	if in.done[key] {
		return nil
	}
	if in.visiting[key] {
		in.opts.Logger.Warn("dependency cycle", "ext", id.String(), "required_by", requiredBy)
		return nil
	}
	if old := in.d.idx.Find(id); old != nil && requiredBy != "" {
		in.done[key] = true
		in.keep(*old)
		return nil
	}
	what := "install " + id.String()
	if version != "" {
		what += "@" + version
	}
	if requiredBy != "" {
		what += " (required by " + requiredBy + ")"
	}
	if err := in.checkControl(id, what); err != nil {
		return err
	}
	entries, err := in.chain.Lookup(ctx, in.cat, id)
	if err != nil {
		return &RefusedError{What: what, Problems: []problem.Problem{refusal("registry %s: %v", in.reg.Place, err)}}
	}
	e, why := pickEntry(entries, id, version, in.check.platform, in.opts.PreRelease, in.check.api)
	if why != "" {
		return &RefusedError{What: what, Problems: []problem.Problem{refusal("%s (registry %s, catalog serial %d)", why, in.reg.Place, in.cat.Serial)}}
	}
	if old := in.d.idx.Find(id); old != nil && old.Version == e.Version && old.Platform == e.Platform && old.VsixSHA256 == e.VsixSHA256 {
		if ch, err := treeChange(filepath.Join(in.d.path, old.Dir), old.Files); err == nil && ch == "" && old.Enabled {
			in.done[key] = true
			in.keep(*old)
			// Its dependencies may have gone since (uninstall --force).
			for _, dep := range append(slices.Clone(old.Dependencies), old.ExtensionPack...) {
				if err := in.visit(ctx, dep, "", old.ID.String()); err != nil {
					return err
				}
			}
			return nil
		}
	}
	in.visiting[key] = true
	p, err := in.fetch(ctx, e, what)
	if err != nil {
		return err
	}
	for _, dep := range append(slices.Clone(p.c.deps), p.c.pack...) {
		if err := in.visit(ctx, dep, "", p.c.id.String()); err != nil {
			return err
		}
	}
	in.visiting[key] = false
	in.done[key] = true
	in.planned = append(in.planned, p)
	return nil
}

// keep leaves the installed record old as it is (Result.Kept), unless a
// policy is given whose grants for it differ from those recorded: then
// its grants are decided again (Result.Updated), its files and the rest
// of its record untouched. Without a policy the recorded grants stay. A
// disabled record keeps its state: install it again to enable it.
func (in *installer) keep(old Record) {
	if in.opts.Policy != nil && old.Enabled {
		if v, err := index.ParseVersion(old.Version); err == nil {
			g, hosts, programs := decideGrants(in.opts.Policy, old.ID, v, old.Declared)
			if !slices.Equal(g, old.Capabilities) || !slices.Equal(hosts, old.AllowedHosts) || !slices.Equal(programs, old.Programs) {
				old.Capabilities, old.AllowedHosts, old.Programs = g, hosts, programs
				in.regranted = append(in.regranted, old)
				return
			}
		}
	}
	in.kept = append(in.kept, old)
}

// fetch reads and checks one catalog entry and unpacks it into staging.
func (in *installer) fetch(ctx context.Context, e *index.Entry, what string) (*pending, error) {
	name := FolderName(e.ID, e.Version, e.Platform)
	m, err := artifact.EntryManifest(ctx, in.reg.Store, e)
	if err != nil {
		return nil, damaged(in.refuse(ctx, what, name, nil, 0, refusal("%v", err)), err)
	}
	f, err := store.OpenBlobAt(ctx, in.reg.Store, artifact.Repo(e.ID), artifact.VsixDigest(e), e.VsixSize, nil, in.staging)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, damaged(in.refuse(ctx, what, name, nil, 0, refusal("vsix of %s: %v", e, err)), err)
	}
	defer f.Close()
	src := Source{Kind: SourceRegistry, Registry: in.reg.Place, CatalogSerial: in.cat.Serial, CatalogDigest: in.catDigest,
		ManifestDigest: m.Digest, UpstreamSigned: e.Upstream.Signed}
	return in.unpack(ctx, f, e.VsixSize, e.VsixSHA256, what, name, src, func(pkg *vsix.Package) error {
		return pkg.CheckIdentity(e.ID, e.Version, e.Platform)
	})
}

// unpack applies the archive rules and checkPackage to the package in r,
// then extracts it into staging. Failures of the package quarantine it.
func (in *installer) unpack(ctx context.Context, r io.ReaderAt, size int64, sum, what, name string, src Source, identity func(*vsix.Package) error) (*pending, error) {
	a, err := vsix.NewReader(r, size, in.opts.Archive)
	if err != nil {
		var pe *vsix.ProblemsError
		if !errors.As(err, &pe) {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		return nil, in.refuse(ctx, what, name, r, size, pe.Problems...)
	}
	defer a.Close()
	pkg := vsix.ReadPackage(a)
	c, problems := checkPackage(pkg, a, in.check)
	if identity != nil {
		if err := identity(pkg); err != nil {
			problems = append(problems, refusal("%v", err))
		}
	}
	if len(problems) > 0 {
		return nil, in.refuse(ctx, what, name, r, size, problems...)
	}
	in.unpacked++
	tmp := filepath.Join(in.staging, fmt.Sprintf("pkg-%d", in.unpacked))
	if err := a.Extract(ctx, tmp); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	dir := filepath.Join(tmp, "extension")
	tree, files, err := TreeHash(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	in.opts.Logger.Debug("unpacked", "ext", c.id.String(), "version", c.version, "platform", string(c.platform), "sha256", sum, "files", len(files))
	return &pending{c: c, src: dir, sha256: sum, tree: tree, files: files, source: src}, nil
}

// damaged marks the refusal rerr as a damaged registry when the error
// that caused it says the stored bytes are not the ones pinned.
func damaged(rerr, cause error) error {
	var r *RefusedError
	if errors.As(rerr, &r) && (errors.Is(cause, store.ErrMismatch) || errors.Is(cause, store.ErrDamagedLayout)) {
		r.Damaged = true
	}
	return rerr
}

// refuse quarantines the package (its bytes when r is not nil, and a
// REASON) and returns the *RefusedError.
func (in *installer) refuse(ctx context.Context, what, name string, r io.ReaderAt, size int64, problems ...problem.Problem) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	lines := make([]string, len(problems))
	for i, p := range problems {
		lines[i] = p.String()
	}
	reason := what + ": refused\n" + strings.Join(lines, "\n")
	q, err := quarantine(in.d.path, name, r, size, reason, in.opts.Now())
	rerr := &RefusedError{What: what, Problems: problems, Quarantine: q}
	if err != nil {
		return errors.Join(rerr, err)
	}
	in.opts.Logger.Debug("quarantined", "ext", name, "dir", q)
	return rerr
}

// FromFile installs a .vsix given by hand: the same archive and manifest
// rules as a registry install, recorded with source SourceLocalFile and no
// upstream signature. Its dependencies and pack members must be installed
// already (there is no registry to take them from).
func FromFile(ctx context.Context, file string, opts Options) (*Result, error) {
	what := "install " + file
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		return nil, fmt.Errorf("install: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("install: %w", &safefile.NotRegularError{Path: file, Mode: fi.Mode()})
	}
	// Never blocks on a FIFO swapped in; an oversized file is refused
	// before it is hashed.
	maxBytes := opts.Archive.MaxArchiveBytes
	if maxBytes <= 0 {
		maxBytes = vsix.DefaultMaxArchiveBytes
	}
	f, _, err := safefile.Open(abs, maxBytes)
	if err != nil {
		return nil, fmt.Errorf("install: %w", err)
	}
	defer f.Close()
	// Hash the bytes of the open file; the size is taken from it too, so a
	// file replaced after the Lstat is read consistently.
	fi, err = f.Stat()
	if err != nil {
		return nil, fmt.Errorf("install: %w", err)
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, fi.Size())); err != nil {
		return nil, fmt.Errorf("install %s: %w", file, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	in, err := newInstaller(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer in.close()
	name := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	p, err := in.unpack(ctx, f, fi.Size(), sum, what, name, Source{Kind: SourceLocalFile, File: abs}, nil)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, dep := range append(slices.Clone(p.c.deps), p.c.pack...) {
		if in.d.idx.Find(dep) == nil {
			missing = append(missing, dep.String())
		}
	}
	if len(missing) > 0 {
		return nil, &RefusedError{What: what, Problems: []problem.Problem{refusal("needs %s, not installed (install from a registry, which brings dependencies along, or install those files first)", strings.Join(missing, ", "))}}
	}
	in.planned = append(in.planned, p)
	return in.commit()
}
