package verify_test

import (
	"bytes"
	"crypto/ed25519"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/vsix"
	"github.com/airvsx/airvsx/index/vsix/vsixtest"
	"github.com/airvsx/airvsx/policies"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
	"github.com/airvsx/airvsx/verify"
	"github.com/airvsx/airvsx/verify/verifytest"
)

func fixtureVsix(name string) string { return filepath.Join("..", "testdata", "vsix", name) }

// TestPackage is the single-package gate: a good package passes; a
// hostile archive, a package the policy refuses, and a wrong upstream
// signature fail with their rules.
func TestPackage(t *testing.T) {
	dir := fresh(t)
	sigzip := readBlob(t, dir, hello, artifact.RoleUpstreamSignature)
	otherSig := readBlob(t, dir, "airvsx-demo.night-theme@2.1.0", artifact.RoleUpstreamSignature)
	pub, err := vsix.ParseUpstreamKey(openvsxtest.PublicKeyPEM())
	if err != nil {
		t.Fatal(err)
	}
	hostile := filepath.Join(t.TempDir(), "hostile.vsix")
	for _, c := range vsixtest.Hostile() {
		if c.Name == "traversal" {
			if err := vsixtest.Write(hostile, c.Build); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name string
		path string
		opts verify.PackageOptions
		want verify.Rule // "" means ok
	}{
		{"good", fixtureVsix("airvsx-demo.hello-command-1.0.0.vsix"), verify.PackageOptions{}, ""},
		{"signed", fixtureVsix("airvsx-demo.hello-command-1.0.0.vsix"), verify.PackageOptions{Sigzip: sigzip, UpstreamKey: pub, Policy: demoreg.ParsePolicy(t, "version: 1\nextensions:\n  - id: airvsx-demo.*\nrequireUpstreamSignature: true\n")}, ""},
		{"hostile", hostile, verify.PackageOptions{}, verify.RuleVsixUnsafe},
		{"wrong sigzip", fixtureVsix("airvsx-demo.hello-command-1.0.0.vsix"), verify.PackageOptions{Sigzip: otherSig, UpstreamKey: pub}, verify.RuleSignatureInvalid},
		{"wrong key", fixtureVsix("airvsx-demo.hello-command-1.0.0.vsix"), verify.PackageOptions{Sigzip: sigzip, UpstreamKey: ed25519.NewKeyFromSeed(make([]byte, 32)).Public().(ed25519.PublicKey)}, verify.RuleSignatureInvalid},
		{"excluded", fixtureVsix("other-pub.unsigned-tool-0.1.0.vsix"), verify.PackageOptions{Policy: demoreg.ParsePolicy(t, "version: 1\nextensions:\n  - id: '*.*'\nexclude: [other-pub.*]\n")}, verify.RulePolicyExcluded},
		{"unsigned", fixtureVsix("other-pub.unsigned-tool-0.1.0.vsix"), verify.PackageOptions{Policy: demoreg.ParsePolicy(t, "version: 1\nextensions:\n  - id: '*.*'\nrequireUpstreamSignature: true\n")}, verify.RulePolicyUnsigned},
		{"platform", fixtureVsix("airvsx-demo.hello-command-1.0.0@darwin-arm64.vsix"), verify.PackageOptions{Policy: demoreg.Policy(t)}, verify.RulePolicyDenied},
		{"manifests disagree", writeHostile(t, "mismatch"), verify.PackageOptions{}, verify.RuleVsixPackage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := verify.Package(t.Context(), tt.path, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if !rep.OK() {
					t.Fatalf("problems:\n%s", verifytest.ProblemList(rep))
				}
				if tt.opts.Sigzip != nil && !rep.Package.Signed {
					t.Error("signature not reported verified")
				}
				return
			}
			found := false
			for _, p := range rep.Errors() {
				found = found || p.Rule == tt.want
			}
			if rep.OK() || !found {
				t.Fatalf("want an error %s; got:\n%s", tt.want, verifytest.ProblemList(rep))
			}
		})
	}
}

func writeHostile(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name+".vsix")
	if err := vsixtest.Write(p, vsixtest.ManifestMismatch()); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPackageCannotRun: a missing file or a sigzip without a key is an
// error, not a report.
func TestPackageCannotRun(t *testing.T) {
	if _, err := verify.Package(t.Context(), filepath.Join(t.TempDir(), "none.vsix"), verify.PackageOptions{}); err == nil {
		t.Error("missing file: no error")
	}
	if _, err := verify.Package(t.Context(), fixtureVsix("airvsx-demo.hello-command-1.0.0.vsix"), verify.PackageOptions{Sigzip: []byte("x")}); err == nil {
		t.Error("sigzip without key: no error")
	}
}

// TestPackagePolicyVerdict: with a policy, Package says what the policy
// would do with the file (a rule admits it, it enters only as a
// dependency or pack member, or it is denied and why), and every fix is
// about the file, never a registry's sync --prune.
func TestPackagePolicyVerdict(t *testing.T) {
	deps := "version: 1\nplatforms: [universal]\nextensions:\n  - id: airvsx-demo.uses-git\n  - id: airvsx-demo.demo-pack\ndependencies: true\n"
	tests := []struct {
		name     string
		file     string
		policy   *policies.Policy
		verdict  string
		rule     string // PackagePolicy.Rule
		reason   string // in PackagePolicy.Reason
		errors   []verify.Rule
		warnings []verify.Rule
		message  string // in the first problem's message
		fix      string // in the first problem's fix
	}{
		{
			name: "direct rule", file: "airvsx-demo.hello-command-1.0.0.vsix", policy: demoreg.Policy(t),
			verdict: verify.VerdictAllowed, rule: "rule 0 (airvsx-demo.hello-command)", reason: "allowed by rule 0 (airvsx-demo.hello-command)",
		},
		{
			name: "glob rule", file: "other-pub.unsigned-tool-0.1.0.vsix", policy: demoreg.Policy(t),
			verdict: verify.VerdictAllowed, rule: "rule 3 (other-pub.*)", reason: "allowed by rule 3 (other-pub.*)",
		},
		{
			name: "dependency only", file: "airvsx-demo.git-helper-0.3.0.vsix", policy: demoreg.Policy(t),
			verdict: verify.VerdictDependency, reason: "only as a dependency or extension-pack member",
			warnings: []verify.Rule{verify.RulePolicyDependencyOnly},
			message:  "no rule names airvsx-demo.git-helper directly", fix: "- id: airvsx-demo.git-helper",
		},
		{
			name: "pack member only", file: "airvsx-demo.night-theme-2.1.0.vsix", policy: demoreg.ParsePolicy(t, deps),
			verdict: verify.VerdictDependency, reason: "only as a dependency or extension-pack member",
			warnings: []verify.Rule{verify.RulePolicyDependencyOnly},
			message:  "enters a registry only when a selected extension depends on it", fix: "install this file only together with the selected extension",
		},
		{
			name: "no rule, no dependencies", file: "airvsx-demo.git-helper-0.3.0.vsix",
			policy:  demoreg.ParsePolicy(t, "version: 1\nextensions:\n  - id: airvsx-demo.uses-git\ndependencies: false\n"),
			verdict: verify.VerdictDenied, reason: "no rule matches",
			errors:  []verify.Rule{verify.RulePolicyDenied},
			message: "no rule matches airvsx-demo.git-helper", fix: "add a rule for it to the policy's extensions (- id: airvsx-demo.git-helper)",
		},
		{
			name: "excluded", file: "airvsx-demo.night-theme-2.1.0.vsix",
			policy:  demoreg.ParsePolicy(t, deps+"exclude: [airvsx-demo.night-*]\n"),
			verdict: verify.VerdictDenied, rule: "exclude airvsx-demo.night-*", reason: "excluded by airvsx-demo.night-*",
			errors:  []verify.Rule{verify.RulePolicyExcluded},
			message: "pattern airvsx-demo.night-*", fix: "remove or narrow the exclude pattern",
		},
		{
			name: "rule refuses the platform", file: "airvsx-demo.hello-command-1.0.0@darwin-arm64.vsix", policy: demoreg.Policy(t),
			verdict: verify.VerdictDenied, rule: "rule 0 (airvsx-demo.hello-command)", reason: "platform darwin-arm64 not in",
			errors:  []verify.Rule{verify.RulePolicyDenied},
			message: "platform darwin-arm64", fix: "do not install this file",
		},
		{
			name: "dependency refused: pre-release", file: "airvsx-demo.hello-command-1.1.0.vsix", policy: demoreg.ParsePolicy(t, deps),
			verdict: verify.VerdictDenied, reason: "pre-release not allowed for dependencies",
			errors:  []verify.Rule{verify.RulePolicyDenied},
			message: "no rule names airvsx-demo.hello-command directly, and as a dependency or extension-pack member it is refused: pre-release not allowed for dependencies",
			fix:     "do not install this file",
		},
		{
			name: "dependency refused: platform", file: "airvsx-demo.hello-command-1.0.0@linux-x64.vsix", policy: demoreg.ParsePolicy(t, deps),
			verdict: verify.VerdictDenied, reason: "platform linux-x64 not in [universal]",
			errors:  []verify.Rule{verify.RulePolicyDenied},
			message: "as a dependency or extension-pack member it is refused", fix: "do not install this file",
		},
		{
			name: "dependency unsigned", file: "airvsx-demo.git-helper-0.3.0.vsix", policy: demoreg.ParsePolicy(t, deps+"requireUpstreamSignature: true\n"),
			verdict: verify.VerdictDenied, reason: "no verified upstream signature",
			errors:  []verify.Rule{verify.RulePolicyUnsigned},
			message: "no verified upstream signature", fix: "--sigzip",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := verify.Package(t.Context(), fixtureVsix(tt.file), verify.PackageOptions{Policy: tt.policy})
			if err != nil {
				t.Fatal(err)
			}
			v := rep.Package.Policy
			if v == nil {
				t.Fatal("Package.Policy = nil")
			}
			if v.Verdict != tt.verdict || v.Rule != tt.rule || !strings.Contains(v.Reason, tt.reason) {
				t.Errorf("Package.Policy = %+v; want verdict %q, rule %q, reason containing %q", *v, tt.verdict, tt.rule, tt.reason)
			}
			var errs, warns []verify.Rule
			for _, p := range rep.Errors() {
				errs = append(errs, p.Rule)
			}
			for _, p := range rep.Warnings() {
				warns = append(warns, p.Rule)
			}
			if !slices.Equal(errs, tt.errors) || !slices.Equal(warns, tt.warnings) {
				t.Errorf("errors %v, warnings %v; want %v, %v:\n%s", errs, warns, tt.errors, tt.warnings, verifytest.ProblemList(rep))
			}
			if rep.OK() != (len(tt.errors) == 0) {
				t.Errorf("OK() = %v with errors %v", rep.OK(), errs)
			}
			for i, p := range rep.Problems {
				if strings.Contains(p.Fix, "sync") || strings.Contains(p.Fix, "prune") || strings.Contains(p.Fix, "registry") {
					t.Errorf("problem %s: fix %q is about a registry, not the file", p.Rule, p.Fix)
				}
				if i == 0 && (!strings.Contains(p.Message, tt.message) || !strings.Contains(p.Fix, tt.fix)) {
					t.Errorf("problem %s: message %q, fix %q; want them to contain %q and %q", p.Rule, p.Message, p.Fix, tt.message, tt.fix)
				}
			}
			var buf bytes.Buffer
			if err := rep.WriteText(&buf); err != nil {
				t.Fatal(err)
			}
			if line := "\npolicy: " + v.Line() + "\n"; !strings.Contains(buf.String(), line) {
				t.Errorf("text report lacks %q:\n%s", line, buf.String())
			}
		})
	}
}
