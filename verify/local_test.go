package verify_test

import (
	"encoding/json"
	"encoding/xml"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/vsix/vsixtest"
	"github.com/airvsx/airvsx/mirror"
	"github.com/airvsx/airvsx/policies"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/verify"
	"github.com/airvsx/airvsx/verify/verifytest"
)

// withLocal returns a copy of the fixture registry to which airvsx add
// added in-house.tool@1.0.0, a package made here.
func withLocal(t *testing.T) string {
	t.Helper()
	dir := fresh(t)
	file := filepath.Join(t.TempDir(), "tool.vsix")
	err := vsixtest.Write(file, vsixtest.Minimal(map[string]string{
		"extension.vsixmanifest": vsixtest.VSIXManifest("in-house", "tool", "1.0.0"),
		"extension/package.json": `{"name": "tool", "publisher": "in-house", "version": "1.0.0", "engines": {"vscode": "^1.80.0"}}`,
	}))
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.OpenDir(t, dir, dirstore.Options{})
	defer st.Close()
	rep, err := mirror.Add(t.Context(), mirror.AddOptions{Files: []string{file}, Store: st, Signer: base(t).Signer, TempDir: t.TempDir(),
		Now: func() time.Time { return demoreg.SyncNow2.Add(time.Minute) }})
	if err != nil || len(rep.Added) != 1 {
		t.Fatalf("Add = %+v, %v; want in-house.tool added", rep, err)
	}
	return dir
}

// TestLocalEntry: an entry added by hand verifies clean, with a note
// (not a warning) that it has no upstream signature and who added it,
// in every report format; a policy that requires upstream signatures
// does not refuse it.
func TestLocalEntry(t *testing.T) {
	dir := withLocal(t)
	pol, err := policies.Parse("p.yaml", []byte("version: 1\nrequireUpstreamSignature: true\ndependencies: true\nplatforms: [universal, linux-x64]\nextensions:\n  - id: airvsx-demo.*\n  - id: other-pub.*\n  - id: in-house.*\n"))
	if err != nil {
		t.Fatal(err)
	}
	for name, opt := range map[string]func(*verify.RegistryOptions){
		"no policy":                func(*verify.RegistryOptions) {},
		"requireUpstreamSignature": func(o *verify.RegistryOptions) { o.Policy = pol },
	} {
		t.Run(name, func(t *testing.T) {
			rep := check(t, dir, opt)
			var notes []verify.Problem
			for _, p := range rep.Problems {
				if p.Entry == "in-house.tool@1.0.0" && p.Severity != verify.Note {
					t.Errorf("in-house.tool: %s %s: %s; want only the note", p.Severity, p.Rule, p.Message)
				}
				if p.Severity == verify.Note {
					notes = append(notes, p)
				}
			}
			if len(notes) != 1 || notes[0].Rule != verify.RuleLocalEntry || notes[0].Entry != "in-house.tool@1.0.0" ||
				!strings.Contains(notes[0].Message, "added locally by key ") || !strings.Contains(notes[0].Message, "no upstream signature") {
				t.Fatalf("notes %+v; want one local-entry note for in-house.tool", notes)
			}
			// With the policy, other-pub.unsigned-tool (mirrored, not signed
			// upstream) fails; the local entry does not.
			if rep.Summary.Notes != 1 || name == "no policy" && (!rep.OK() || rep.Summary.Warnings != 0) {
				t.Fatalf("ok %v, %d notes, %d warnings; want ok with 1 note:\n%s", rep.OK(), rep.Summary.Notes, rep.Summary.Warnings, verifytest.ProblemList(rep))
			}
		})
	}

	rep := check(t, dir)
	text := written(t, rep, verify.Text).String()
	if !strings.Contains(text, ": 0 errors, 0 warnings, 1 note\n") || !strings.Contains(text, "  note local-entry: ") {
		t.Errorf("text report:\n%s\nwant the note counted and listed", text)
	}
	var js struct {
		Summary  struct{ Notes int }
		Problems []struct{ Severity, Rule, Entry string }
	}
	if err := json.Unmarshal(written(t, rep, verify.JSON).Bytes(), &js); err != nil {
		t.Fatal(err)
	}
	if js.Summary.Notes != 1 || len(js.Problems) != 1 || js.Problems[0].Severity != "note" || js.Problems[0].Rule != "local-entry" {
		t.Errorf("JSON report: %+v; want one note", js)
	}
	if err := json.Unmarshal(written(t, rep, verify.JSON).Bytes(), new(verify.Report)); err != nil {
		t.Errorf("the JSON report does not decode again: %v", err)
	}
	var suite struct {
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Name      string    `xml:"name,attr"`
			Failure   *struct{} `xml:"failure"`
			SystemOut string    `xml:"system-out"`
		} `xml:"testsuite>testcase"`
	}
	junit := written(t, rep, verify.JUnit).Bytes()
	if err := xml.Unmarshal(junit, &suite); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range suite.Cases {
		if c.Name == "in-house.tool@1.0.0" {
			found = c.Failure == nil && strings.Contains(c.SystemOut, "note local-entry")
		}
	}
	if !found || suite.Failures != 0 {
		t.Errorf("JUnit:\n%s\nwant in-house.tool passed, the note in its system-out", junit)
	}
	sarif := written(t, rep, verify.SARIF).String()
	if !strings.Contains(sarif, `"level": "note"`) {
		t.Errorf("SARIF:\n%s\nwant the note at level note", sarif)
	}
}
