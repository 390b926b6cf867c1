package mirror

// One file given to Add: copied, checked, and then stored, or refused
// and quarantined.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/vsix"
	"github.com/airvsx/airvsx/internal/copybuf"
	"github.com/airvsx/airvsx/internal/safefile"
	"github.com/airvsx/airvsx/policies"
)

// addFile is one file given to Add and what its check found.
type addFile struct {
	name string // as given
	copy string // the private copy, checked and stored; "" when the file was too large
	sum  string // sha256 of the bytes, lowercase hex
	size int64

	archive *vsix.Archive // open on copy when it passed the archive rules
	pkg     *vsix.Package
	// The identity, when the package is well formed.
	id       index.ID
	version  string
	platform index.Platform
	engine   index.EngineRange

	refused   *AddRefusal
	unchanged bool     // the registry has it with the same bytes
	dup       *addFile // an earlier file of the same call that is the same package
}

// check copies the file (the i-th given) into the run's temp directory,
// hashing it, and checks the copy: size, the safe-zip rules, the
// manifests and the identity. A file that breaks a rule comes back
// refused; the error is for a file that cannot be read at all (missing,
// not a regular file) and for I/O.
func (r *addRun) check(ctx context.Context, i int, name string) (*addFile, error) {
	f := &addFile{name: name}
	limit := r.opts.MaxVsixBytes
	if limit <= 0 && r.opts.Policy != nil {
		limit = r.opts.Policy.MaxVsixBytes
	}
	if limit <= 0 {
		limit = policies.DefaultMaxVsixBytes
	}
	in, fi, err := safefile.Open(name, limit)
	if errors.Is(err, safefile.ErrTooLarge) {
		f.refuse(AddRuleUnreadable, "%v", err)
		return f, nil
	}
	if err != nil {
		return nil, err // names the file
	}
	defer in.Close()
	f.copy = filepath.Join(r.tmp, strconv.Itoa(i)+".vsix")
	out, err := os.OpenFile(f.copy, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	// Never more than the cap (+1 to see a file that grew since it was
	// opened).
	n, err := copybuf.Copy(io.MultiWriter(out, h), &ctxReader{ctx, io.LimitReader(in, limit+1)})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("copy %s: %w", name, err)
	}
	if n != fi.Size() {
		return nil, fmt.Errorf("%s: %d bytes when opened, %d read: it changed while it was read; add it again when nothing writes it", name, fi.Size(), n)
	}
	f.sum, f.size = hex.EncodeToString(h.Sum(nil)), n

	a, err := vsix.Open(f.copy, vsix.Options{MaxArchiveBytes: limit})
	if err != nil {
		var pe *vsix.ProblemsError
		if errors.As(err, &pe) {
			f.refuse(AddRuleUnsafe, "unsafe package: %s", problemsText(pe.Problems))
			return f, nil
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	f.archive = a
	f.pkg = vsix.ReadPackage(a)
	if errs := f.pkg.Report.Errors(); len(errs) > 0 {
		if !f.pkg.ID.IsZero() && f.pkg.Version != nil {
			f.id, f.version, f.platform = f.pkg.ID, f.pkg.Version.Original(), f.pkg.Platform
		}
		f.refuse(AddRulePackage, "bad package: %s", problemsText(errs))
		return f, nil
	}
	f.id, f.version, f.platform = f.pkg.ID, f.pkg.Version.Original(), f.pkg.Platform
	if f.pkg.Manifest != nil {
		f.engine, _ = index.ParseEngineRange(f.pkg.Manifest.Engines["vscode"]) // a bad range stays zero, as sync's planner leaves it
	}
	return f, nil
}

// refuse marks the file refused by rule.
func (f *addFile) refuse(rule, format string, args ...any) {
	f.refused = &AddRefusal{File: f.name, Rule: rule, Reason: fmt.Sprintf(format, args...)}
	if !f.id.IsZero() {
		f.refused.Entry = f.entryName()
	}
}

// quarantine keeps a refused file's bytes (the copy that was checked) and
// the reason in the registry's quarantine.
func (r *addRun) quarantine(ctx context.Context, f *addFile) error {
	qf := map[string]io.Reader{}
	if f.copy != "" {
		c, err := os.Open(f.copy)
		if err != nil {
			return err
		}
		defer c.Close()
		qf[store.QuarantineName(filepath.Base(f.name))] = c
	}
	reason := fmt.Sprintf("airvsx add %s: refused (%s): %s", f.name, f.refused.Rule, f.refused.Reason)
	p, err := r.opts.Store.Quarantine(ctx, store.QuarantineName("add-"+strings.ToLower(filepath.Base(f.name))), reason, qf)
	if err != nil {
		return fmt.Errorf("quarantine %s (%s): %w", f.name, f.refused.Reason, err)
	}
	f.refused.Quarantine = p
	r.log.Warn("refused", "file", f.name, "rule", f.refused.Rule, "reason", f.refused.Reason, "quarantine", p)
	return nil
}

// putVsix stores the checked copy as the entry's vsix blob.
func (f *addFile) putVsix(ctx context.Context, s store.Store, repo string) error {
	c, err := os.Open(f.copy)
	if err != nil {
		return err
	}
	defer c.Close()
	return s.PutBlob(ctx, repo, index.SHA256Digest(f.sum), f.size, store.SeekContent(c))
}

// needs are the extensions the package declares it needs installed with
// it: extensionDependencies and extensionPack members.
func (f *addFile) needs() []index.ID {
	if f.pkg == nil || f.pkg.Manifest == nil {
		return nil
	}
	return append(f.pkg.Manifest.DependencyIDs(), f.pkg.Manifest.PackIDs()...)
}

func (f *addFile) entryName() string { return index.EntryName(f.id, f.version, f.platform) }

// fileName is the vsix layer's title, as sync names it.
func (f *addFile) fileName() string {
	return fileName(&Item{ID: f.id, Version: f.version, Platform: f.platform})
}

func (f *addFile) added() AddedFile {
	return AddedFile{File: f.name, Entry: f.entryName(), SHA256: f.sum, Size: f.size}
}

func (f *addFile) close() {
	if f.archive != nil {
		f.archive.Close()
	}
}

// ctxReader stops reading when its context is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
