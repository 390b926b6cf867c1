package verify_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/policies"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/verify"
	"github.com/airvsx/airvsx/verify/verifytest"
)

// demoList names other-pub (a bare publisher: all of its extensions)
// malicious and deprecates night-theme with a replacement.
const demoList = `{"malicious": ["other-pub"], "deprecated": {"AIRVSX-DEMO.night-theme": {"extension": {"id": "airvsx-demo.hello-command", "displayName": "Hello"}}}}`

// withControl returns a copy of the fixture registry whose catalog pins
// list as the upstream's control list.
func withControl(t *testing.T, list string, fetched time.Time) string {
	t.Helper()
	dir := fresh(t)
	resign(t, dir, func(st *dirstore.Store, cat *index.Catalog) {
		digest, err := trust.PutControl(t.Context(), trust.Metadata(t.Context(), st), []byte(list))
		if err != nil {
			t.Fatal(err)
		}
		cat.Control = []index.ControlRef{{Origin: index.ControlUpstream, Source: "https://example.org/extensions.json", FetchedAt: fetched, Digest: digest, Size: int64(len(list))}}
	})
	return dir
}

// TestControl: the lists a catalog pins judge its entries (the
// publisher-wide entry an error for its extension, the deprecation a
// warning naming the replacement); the policy's override turns the error
// into a note; maxAge bounds the list's age and asks for one; a list
// changed after signing fails naming its file.
func TestControl(t *testing.T) {
	fetched := demoreg.SyncNow2.Add(-48 * time.Hour).UTC().Truncate(time.Second)
	dir := withControl(t, demoList, fetched)
	rep := check(t, dir)
	checkWants(t, rep, []want{{rule: verify.RuleControlMalicious, path: "metadata/targets/", entry: "other-pub.unsigned-tool@0.1.0"}})
	if !hasWarning(rep, want{rule: verify.RuleControlDeprecated, path: "metadata/targets/", entry: "airvsx-demo.night-theme@2.1.0"}) {
		t.Errorf("no control-deprecated warning for night-theme:\n%s", verifytest.ProblemList(rep))
	}
	for _, p := range rep.Problems {
		if p.Rule == verify.RuleControlDeprecated && !strings.Contains(p.Message, "replaced by airvsx-demo.hello-command (Hello)") {
			t.Errorf("the deprecation does not name the replacement: %q", p.Message)
		}
	}
	if c := rep.Catalog; c == nil || len(c.Control) != 1 || c.Control[0].Malicious != 1 || c.Control[0].Deprecated != 1 || !c.Control[0].FetchedAt.Equal(fetched) {
		t.Errorf("catalog summary: %+v", rep.Catalog)
	}

	pol, err := policies.Parse("p.yaml", []byte("version: 1\ndependencies: true\nplatforms: [universal, linux-x64]\nextensions:\n  - id: airvsx-demo.*\n  - id: other-pub.*\n"+
		"control:\n  maxAge: 1d\n  allow:\n    - {id: other-pub.unsigned-tool, reason: vetted}\n"))
	if err != nil {
		t.Fatal(err)
	}
	rep = check(t, dir, func(o *verify.RegistryOptions) { o.Policy = pol })
	rules := map[verify.Rule]verify.Severity{}
	for _, p := range rep.Problems {
		rules[p.Rule] = p.Severity
	}
	for rule, sev := range map[verify.Rule]verify.Severity{verify.RuleControlOverridden: verify.Note, verify.RuleControlStale: verify.Warning, verify.RuleControlDeprecated: verify.Warning} {
		if rules[rule] != sev {
			t.Errorf("with the override and maxAge 1d: %s is %q; want %q:\n%s", rule, rules[rule], sev, verifytest.ProblemList(rep))
		}
	}
	if _, bad := rules[verify.RuleControlMalicious]; bad || !rep.OK() {
		t.Errorf("the override does not hold:\n%s", verifytest.ProblemList(rep))
	}
	// No list at all, with maxAge: a warning; without: nothing.
	plain := fresh(t)
	if rep := check(t, plain, func(o *verify.RegistryOptions) { o.Policy = pol }); !hasWarning(rep, want{rule: verify.RuleControlNone, path: "metadata/targets/"}) {
		t.Errorf("no control-none warning:\n%s", verifytest.ProblemList(rep))
	}
	if rep := check(t, plain); len(rep.Problems) != 0 || rep.Catalog == nil || rep.Catalog.Control == nil {
		t.Errorf("a registry without a list: %+v\n%s", rep.Catalog, verifytest.ProblemList(rep))
	}

	// Tampered: the same length, other bytes.
	file := filepath.Join(dir, "metadata", "targets", strings.TrimPrefix(index.DigestBytes([]byte(demoList)), "sha256:")+".control.json")
	if err := os.WriteFile(file, []byte(strings.Replace(demoList, "other-pub", "other-puc", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	rep = check(t, dir)
	checkWants(t, rep, []want{{rule: verify.RuleTrustMismatch, path: "metadata/targets/" + filepath.Base(file)}})
}
