package verify_test

import (
	"crypto/ed25519"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/vsix"
	"github.com/airvsx/airvsx/index/vsix/vsixtest"
	"github.com/airvsx/airvsx/internal/demoreg"
	"github.com/airvsx/airvsx/mirror/openvsxtest"
	"github.com/airvsx/airvsx/verify"
)

func fixtureVsix(name string) string { return filepath.Join("..", "testdata", "vsix", name) }

// TestPackage is the single-package gate: a good package passes; a
// hostile archive, a package the policy refuses, and a wrong upstream
// signature fail with their rules.
func TestPackage(t *testing.T) {
	dir := fresh(t)
	sigzip := readBlob(t, dir, hello, store.RoleUpstreamSignature)
	otherSig := readBlob(t, dir, "airvsx-demo.night-theme@2.1.0", store.RoleUpstreamSignature)
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
					t.Fatalf("problems:\n%s", problemList(rep))
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
				t.Fatalf("want an error %s; got:\n%s", tt.want, problemList(rep))
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
