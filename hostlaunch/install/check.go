package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/airvsx/airvsx/hostlaunch/vscodeapi"
	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/problem"
	"github.com/airvsx/airvsx/index/vsix"
	"github.com/airvsx/airvsx/policies"
)

// APIVersion is the version of the VS Code extension API the airvsx
// extension host implements: a package whose engines.vscode does not
// accept it is refused (Options.APIVersion overrides it).
const APIVersion = "1.140.0"

// HonouredActivation lists the activation event kinds the airvsx host
// fires: "onCommand" (explicit, or implied by contributes.commands),
// "onLanguage", "workspaceContains", "onStartupFinished", "*" (eager),
// "onView" (when the editor asks for the view's items) and
// "onFileSystem" (when a document of the scheme is opened, or an
// extension of the same host reaches the scheme through workspace.fs).
// Any other event, listed or implied by a contribution, is refused unless
// Options.AllowPartialActivation is set.
var HonouredActivation = []string{"onCommand", "onLanguage", "workspaceContains", "onStartupFinished", "*", "onView", "onFileSystem"}

// ErrRefused is the category of every install that fails a check: the
// catalog's trust chain, the entry's bytes, the archive and manifest
// rules, the identity, the platform, the engine, the activation events,
// a dependency that cannot be had, and of an uninstall that would break a
// dependent.
var ErrRefused = errors.New("refused")

// RefusedError is an install or uninstall that failed its checks. It
// lists every problem found, not just the first.
type RefusedError struct {
	// What is refused: "install ns.name@1.0.0", "install FILE.vsix",
	// "uninstall ns.name".
	What     string
	Problems []problem.Problem
	// Quarantine is the folder the package was kept in, "" if none.
	Quarantine string
	// Damaged says the registry holds bytes other than its signed
	// catalog pins (a blob or a layout file damaged since it was signed):
	// the registry needs repair, not just this package.
	Damaged bool
}

func (e *RefusedError) Error() string {
	var b strings.Builder
	b.WriteString(e.What)
	b.WriteString(": refused")
	if len(e.Problems) == 1 {
		b.WriteString(": " + e.Problems[0].String())
	} else {
		for _, p := range e.Problems {
			b.WriteString("\n\t" + p.String())
		}
	}
	if e.Quarantine != "" {
		b.WriteString("\n\tthe package is kept in " + e.Quarantine)
	}
	return b.String()
}

// refusal is a problem of the install itself rather than a rule of the
// package's archive or manifest: only its message.
func refusal(format string, args ...any) problem.Problem {
	return problem.Problem{Message: fmt.Sprintf(format, args...)}
}

// Is makes errors.Is(err, ErrRefused) hold.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// checked is a package that passed every check, with what the record
// needs.
type checked struct {
	id         index.ID
	version    string
	platform   index.Platform
	main       string
	activation []string
	ignored    []string
	deps, pack []index.ID
	declared   index.CapabilitySet
	grants     []Grant
	hosts      []string // the brokers' lists, when network or spawn is effective
	programs   []string
}

// checkOptions are the parts of Options the package checks use.
type checkOptions struct {
	api          *semver.Version
	platform     index.Platform
	policy       *policies.Policy
	allowPartial bool
	log          *slog.Logger
}

// checkPackage applies every manifest check to a package read from an
// archive (fsys is the archive) and returns every problem, or what the
// record needs:
//
//   - the package's own report holds no error (the manifest rules of
//     index/vsix, contributes.commands and .languages included);
//   - the contributions whose files the host or editor reads name files in
//     the package (contributesProblems);
//   - the build is universal or for this machine's platform;
//   - engines.vscode accepts the host's API version;
//   - an extension with code has a main script in the package (a
//     browser-only extension cannot run in a Node host);
//   - every activation event is one the host honours, unless partial
//     activation is allowed (then the others are recorded as ignored).
//
// Unknown contribution points and capability keys are logged and ignored,
// and so are the VS Code API members the package's code names that the
// host does not implement (vscodeapi.Unsupported): calling them fails,
// but the extension may never call them, or handle the failure.
func checkPackage(pkg *vsix.Package, fsys fs.FS, o checkOptions) (*checked, []problem.Problem) {
	problems := pkg.Report.Errors()
	for _, p := range pkg.Report.Warnings() {
		o.log.Warn("package warning", "ext", pkg.ID.String(), "file", p.File, "field", p.Field, "rule", string(p.Rule), "detail", p.Message)
	}
	m := pkg.Manifest
	if m == nil || pkg.Version == nil || pkg.ID.IsZero() {
		if len(problems) == 0 {
			problems = append(problems, refusal("the package has no usable extension/package.json"))
		}
		return nil, problems
	}
	c := &checked{id: pkg.ID, version: pkg.Version.Original(), platform: pkg.Platform, declared: pkg.Declared}
	if c.platform == "" {
		c.platform = index.Universal
	}
	if c.platform != index.Universal && c.platform != o.platform {
		problems = append(problems, refusal("the package is built for %s; this machine is %s (install the universal or the %s build)", c.platform, o.platform, o.platform))
	}
	if e, err := m.Engine(); err == nil && !e.Allows(o.api) {
		problems = append(problems, refusal("engines.vscode %s does not accept the host's API version %s", e, o.api.Original()))
	}
	problems = append(problems, contributesProblems(m, fsys)...)
	if m.ExecutesCode() {
		if m.Main == "" {
			problems = append(problems, refusal("browser %q is the only entry point; the airvsx host runs main in Node", m.Browser))
		} else {
			c.main = path.Clean(strings.TrimPrefix(m.Main, "./"))
			if !fileIn(fsys, c.main) && !fileIn(fsys, c.main+".js") {
				problems = append(problems, refusal("main %q is not in the package", m.Main))
			}
		}
		var refused []string
		for _, e := range m.Activation() {
			if slices.Contains(HonouredActivation, e.Kind) {
				c.activation = append(c.activation, e.Raw)
				continue
			}
			what := fmt.Sprintf("%q", e.Raw)
			if e.Implicit {
				what += " (implied by contributes)"
			}
			refused = append(refused, what)
			c.ignored = append(c.ignored, e.Raw)
		}
		switch {
		case len(refused) > 0 && !o.allowPartial:
			problems = append(problems, refusal("activation events the host cannot honour: %s (install with --allow-partial-activation to install it anyway; they will never fire)", strings.Join(refused, ", ")))
		case len(refused) > 0:
			o.log.Warn("activation events ignored", "ext", c.id.String(), "events", c.ignored)
		}
	}
	for _, list := range []struct {
		in  []index.ID
		out *[]index.ID
	}{{m.DependencyIDs(), &c.deps}, {m.PackIDs(), &c.pack}} {
		for _, id := range list.in {
			if !id.Equal(c.id) && !slices.ContainsFunc(*list.out, id.Equal) {
				*list.out = append(*list.out, id)
			}
		}
	}
	c.grants, c.hosts, c.programs = decideGrants(o.policy, c.id, pkg.Version, c.declared)
	if u := vscodeapi.Unsupported(pkg.APIMembers); len(u) > 0 {
		for i, n := range u {
			u[i] = "vscode." + n
		}
		o.log.Warn("the extension's code names VS Code API the airvsx host does not implement: calling it fails", "ext", c.id.String(), "api", u)
	}
	if denied := slices.DeleteFunc(slices.Clone(c.declared), func(cp index.Capability) bool {
		return slices.ContainsFunc(c.grants, func(g Grant) bool { return g.Capability == cp })
	}); len(denied) > 0 {
		o.log.Info("capabilities denied", "ext", c.id.String(), "capabilities", denied)
	}
	return c, problems
}

// decideGrants is what policy p gives version v of id, which declares
// declared: each effective capability with the rule that grants it, and
// the brokers' lists (hosts with network effective, programs with spawn).
// A nil policy grants nothing.
func decideGrants(p *policies.Policy, id index.ID, v *semver.Version, declared index.CapabilitySet) (grants []Grant, hosts, programs []string) {
	if p == nil {
		return nil, nil, nil
	}
	for _, g := range p.GrantedBy(id, v, declared) {
		grants = append(grants, Grant{Capability: g.Capability, Rule: g.Describe, DeclaredByPolicy: g.DeclaredByPolicy})
	}
	g := p.Capabilities(id, v, declared)
	if g.Effective.Has(index.Network) {
		hosts = g.Hosts
	}
	if g.Effective.Has(index.Spawn) {
		programs = g.Programs
	}
	return grants, hosts, programs
}

// contributionFiles lists contribution points whose entries name a file
// the editor reads, with the members every entry needs (VS Code's own
// checks for these points): the file member first.
var contributionFiles = []struct {
	point   string
	members []string
}{
	{"themes", []string{"path"}},
	{"iconThemes", []string{"path", "id"}},
	{"productIconThemes", []string{"path", "id"}},
	{"grammars", []string{"path", "scopeName"}},
	{"snippets", []string{"path"}},
}

// contributesProblems checks the contribution points of contributionFiles:
// each is an array of objects, every required member is a non-empty
// string, and the file member names a file in the package (relative to
// extension/, not leaving it). contributes.commands and .languages are
// checked by index/vsix (RuleInvalidCommand, RuleInvalidLanguage).
func contributesProblems(m *vsix.Manifest, fsys fs.FS) []problem.Problem {
	var problems []problem.Problem
	for _, cf := range contributionFiles {
		raw, ok := m.Contributes.Raw[cf.point]
		if !ok {
			continue
		}
		field := "contributes." + cf.point
		var entries []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &entries); err != nil {
			problems = append(problems, problem.Problem{File: vsix.PackageJSONPath, Field: field, Message: "want an array of objects"})
			continue
		}
		for i, e := range entries {
			f := fmt.Sprintf("%s[%d]", field, i)
			for j, member := range cf.members {
				var s string
				if json.Unmarshal(e[member], &s) != nil || s == "" {
					problems = append(problems, problem.Problem{File: vsix.PackageJSONPath, Field: f + "." + member, Message: "a string is required"})
					continue
				}
				if j == 0 {
					if !fileIn(fsys, s) {
						problems = append(problems, problem.Problem{File: vsix.PackageJSONPath, Field: f + "." + member, Message: fmt.Sprintf("%q is not a file in the package", s)})
					}
				}
			}
		}
	}
	return problems
}

// packagePath returns the archive path of a path relative to the
// extension's folder, and false when it leaves the folder.
func packagePath(rel string) (string, bool) {
	if strings.Contains(rel, `\`) || path.IsAbs(rel) {
		return "", false
	}
	p := path.Join("extension", rel)
	if !strings.HasPrefix(p, "extension/") {
		return "", false
	}
	return p, true
}

// fileIn reports whether the extension has a regular file at rel, a path
// relative to its folder (extension/ in the archive).
func fileIn(fsys fs.FS, rel string) bool {
	p, ok := packagePath(rel)
	if !ok || !fs.ValidPath(p) {
		return false
	}
	fi, err := fs.Stat(fsys, p)
	return err == nil && fi.Mode().IsRegular()
}
