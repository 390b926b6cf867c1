package verify

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/vsix"
	"github.com/airvsx/airvsx/internal/safefile"
	"github.com/airvsx/airvsx/policies"
)

// PackageOptions configure Package. The zero value checks the archive and
// its manifests only.
type PackageOptions struct {
	// Policy, when set, must allow the package (exclusions, platforms,
	// versions, engine, requireUpstreamSignature, size). Default nil.
	Policy *policies.Policy
	// Sigzip is upstream's .sigzip for the package; when set, its Ed25519
	// signature must verify over the file with UpstreamKey. Default nil:
	// the package counts as unsigned.
	Sigzip []byte
	// UpstreamKey is the Open VSX public key (required with Sigzip).
	UpstreamKey ed25519.PublicKey
	// Limits are the archive limits. Default zero: vsix's defaults, with
	// the policy's maxVsixBytes as the archive size limit when a policy is
	// given.
	Limits vsix.Options
}

// PackageSummary describes the package Package checked.
type PackageSummary struct {
	SHA256   string `json:"sha256"` // lowercase hex of the file
	Size     int64  `json:"size"`
	ID       string `json:"id,omitempty"` // from package.json, when valid
	Version  string `json:"version,omitempty"`
	Platform string `json:"platform,omitempty"`
	Signed   bool   `json:"signed"` // an upstream signature verified
	// Policy is what the policy given would do with the package; nil
	// without a policy, or when the package has no valid ID and version.
	Policy *PackagePolicy `json:"policy,omitempty"`
}

// Package is the single-package gate: it checks the .vsix at path against
// the safe-zip rules and the manifest rules, the upstream signature when
// opts.Sigzip is given, and the policy when opts.Policy is given, and
// reports every problem; Path in a problem is the archive entry it is
// about, empty for the archive as a whole. With a policy,
// PackageSummary.Policy says what the policy would do with the file:
// admit it by a rule, admit it only as a dependency or pack member (a
// policy-dependency-only warning), or deny it. Fixes are about the file,
// not a registry. The error is only for a check that could not run (an
// unreadable file, bad options).
func Package(ctx context.Context, path string, opts PackageOptions) (*Report, error) {
	if opts.Sigzip != nil && len(opts.UpstreamKey) != ed25519.PublicKeySize {
		return nil, errors.New("verify: a sigzip needs the Open VSX public key it was made with")
	}
	f, fi, err := safefile.Open(path, -1)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	defer f.Close()
	rep := &Report{Schema: SchemaVersion, Kind: "package", Target: path, Summary: Summary{ReadData: true, Blobs: 1}}
	name := filepath.Base(path)
	var probs []Problem
	add := func(sev Severity, rule Rule, file, format string, args ...any) {
		probs = append(probs, newProblem(sev, rule, file, "", fmt.Sprintf(format, args...), packageFixFor(rule)))
	}

	var ed *vsix.UpstreamVerifier
	if opts.Sigzip != nil {
		sig, err := vsix.ReadSigzipSignature(opts.Sigzip)
		if err != nil {
			add(Error, RuleSignatureInvalid, "", "%s", oneLine(err))
		} else {
			ed = vsix.NewUpstreamVerifier(opts.UpstreamKey, sig)
		}
	}
	limits := opts.Limits
	if opts.Policy != nil && limits.MaxArchiveBytes == 0 && opts.Policy.MaxVsixBytes > 0 {
		limits.MaxArchiveBytes = opts.Policy.MaxVsixBytes
	}
	maxBytes := limits.MaxArchiveBytes
	if maxBytes == 0 {
		maxBytes = vsix.DefaultMaxArchiveBytes
	}
	ps := &PackageSummary{Size: fi.Size()}
	rep.Package = ps
	// A file over the limit is not hashed (a sparse 20 GiB file would take
	// a minute): vsix.NewReader reports its size without reading it.
	if fi.Size() <= maxBytes {
		h := newHasher()
		n, sum, err := h.file(ctx, f, fi.Size(), ed)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("verify: read %s: %w", path, err)
		}
		rep.Summary.Bytes = n
		ps.SHA256 = sum[len("sha256:"):]
		if ed != nil {
			if ps.Signed = ed.Verify(); !ps.Signed {
				add(Error, RuleSignatureInvalid, "", "Open VSX's Ed25519 signature in the sigzip does not verify over this file with the key given")
			}
		}
	}

	a, err := vsix.NewReader(f, fi.Size(), limits)
	var pkg *vsix.Package
	if err != nil {
		var pe *vsix.ProblemsError
		if !errors.As(err, &pe) {
			return nil, fmt.Errorf("verify: read %s: %w", path, err)
		}
		for _, p := range pe.Problems {
			add(Error, RuleVsixUnsafe, p.File, "%s", p.String())
		}
	} else {
		defer a.Close()
		pkg = vsix.ReadPackage(a)
		for _, p := range pkg.Report.Problems {
			sev := Error
			if p.Severity == vsix.Warning {
				sev = Warning
			}
			add(sev, RuleVsixPackage, p.File, "%s", p.String())
		}
		if !pkg.ID.IsZero() && pkg.Version != nil {
			e := index.Entry{ID: pkg.ID, Version: pkg.Version.Original(), Platform: pkg.Platform}
			name = e.String()
			ps.ID, ps.Version, ps.Platform = pkg.ID.String(), pkg.Version.Original(), string(pkg.Platform)
		}
	}
	if opts.Policy != nil && pkg != nil && pkg.Version != nil && !pkg.ID.IsZero() {
		c := policies.Candidate{ID: pkg.ID, Version: pkg.Version, Platform: pkg.Platform, PreRelease: pkg.PreRelease, Signed: ps.Signed, Size: fi.Size()}
		if m := pkg.Manifest; m != nil {
			c.Engine, _ = index.ParseEngineRange(m.Engines["vscode"])
		}
		ps.Policy = packagePolicy(opts.Policy, c, func(sev Severity, rule Rule, fix, format string, args ...any) {
			probs = append(probs, newProblem(sev, rule, "", "", fmt.Sprintf(format, args...), fix))
		})
	}
	for i := range probs {
		probs[i].Entry = name
	}
	rep.Problems = probs
	rep.finish([]EntryResult{{Entry: name}})
	return rep, nil
}
