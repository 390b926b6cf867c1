package verify_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/verify"
	"github.com/airvsx/airvsx/verify/verifytest"
)

const sarifSchemaSHA256 = "2d99159ae54a3eea97f81781cff48780548657c35949f4b7f25e99a2ba4de4f8"

// tamperedReport verifies a registry with a flipped vsix byte, a missing
// blob and an orphan blob: errors in two entries and a warning.
func tamperedReport(t *testing.T) *verify.Report {
	t.Helper()
	dir := fresh(t)
	f := blobFile(t, dir, hello, artifact.RoleVsix)
	b := filetest.ReadFile(t, f)
	b[len(b)/3] ^= 0x80
	filetest.WriteFile(t, f, b)
	filetest.Remove(t, blobFile(t, dir, usesGit, artifact.RoleReadme))
	filetest.WriteFile(t, filepath.Join(dir, "extensions", "airvsx-demo", "night-theme", "blobs", "sha256", strings.Repeat("ab", 32)), []byte("stray"))
	rep := check(t, dir)
	if rep.Summary.Errors != 2 || rep.Summary.Warnings != 1 {
		t.Fatalf("want 2 errors and 1 warning; got:\n%s", verifytest.ProblemList(rep))
	}
	return rep
}

// written returns rep as Write writes it in format f.
func written(t *testing.T, rep *verify.Report, f verify.Format) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	if err := rep.Write(&buf, f, "test"); err != nil {
		t.Fatal(err)
	}
	return &buf
}

func TestSARIFSchemaFile(t *testing.T) {
	if got := index.SHA256Hex(filetest.ReadFile(t, filepath.Join("testdata", "sarif-2.1.0-rtm.5.json"))); got != sarifSchemaSHA256 {
		t.Fatalf("testdata/sarif-2.1.0-rtm.5.json has sha256 %s; want the vendored %s", got, sarifSchemaSHA256)
	}
}

// TestSARIFValidates validates the SARIF output, for a failing and a clean
// registry and a package, against the published SARIF 2.1.0 schema, and
// checks that results carry rule, level, file and entry.
func TestSARIFValidates(t *testing.T) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(filetest.ReadFile(t, filepath.Join("testdata", "sarif-2.1.0-rtm.5.json"))))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft4)
	if err := c.AddResource("sarif.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("sarif.json")
	if err != nil {
		t.Fatalf("compile the SARIF schema: %v", err)
	}
	pkgRep, err := verify.Package(t.Context(), filepath.Join("..", "testdata", "vsix", "airvsx-demo.night-theme-2.1.0.vsix"), verify.PackageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, rep := range map[string]*verify.Report{"tampered": tamperedReport(t), "clean": check(t, fresh(t)), "package": pkgRep, "local": check(t, withLocal(t))} {
		t.Run(name, func(t *testing.T) {
			buf := written(t, rep, verify.SARIF)
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(inst); err != nil {
				t.Fatalf("SARIF output does not validate: %v\n%s", err, buf.String())
			}
			// A mutation the schema refuses proves the validator looks.
			bad := bytes.Replace(buf.Bytes(), []byte(`"version": "2.1.0"`), []byte(`"version": "2.0.0"`), 1)
			if inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(bad)); schema.Validate(inst) == nil {
				t.Fatal("the schema accepts version 2.0.0: the validator is not checking")
			}
			var log struct {
				Runs []struct {
					Results []struct {
						RuleID    string `json:"ruleId"`
						Level     string `json:"level"`
						Locations []struct {
							Physical struct {
								Artifact struct{ URI string } `json:"artifactLocation"`
							} `json:"physicalLocation"`
							Logical []struct{ Name string } `json:"logicalLocations"`
						} `json:"locations"`
					} `json:"results"`
				} `json:"runs"`
			}
			if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
				t.Fatal(err)
			}
			if got := len(log.Runs[0].Results); got != len(rep.Problems) {
				t.Fatalf("%d results; want %d", got, len(rep.Problems))
			}
			for i, r := range log.Runs[0].Results {
				p := rep.Problems[i]
				if r.RuleID != string(p.Rule) || r.Level != p.Severity.String() || len(r.Locations) != 1 || r.Locations[0].Physical.Artifact.URI != p.File {
					t.Errorf("result %d = %+v; want rule %s level %s at %s", i, r, p.Rule, p.Severity, p.File)
				}
				if p.Entry != "" && (len(r.Locations[0].Logical) != 1 || r.Locations[0].Logical[0].Name != p.Entry) {
					t.Errorf("result %d: logical location %+v; want entry %s", i, r.Locations[0].Logical, p.Entry)
				}
			}
		})
	}
}

// TestJUnit: one test case per entry plus one for the registry, the
// failing entries failed, counts consistent.
func TestJUnit(t *testing.T) {
	buf := written(t, tamperedReport(t), verify.JUnit)
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Cases    []struct {
				Name    string `xml:"name,attr"`
				Class   string `xml:"classname,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Out string `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("JUnit output does not parse: %v\n%s", err, buf.String())
	}
	if doc.Tests != 8 || doc.Failures != 2 || len(doc.Suites) != 1 || doc.Suites[0].Tests != 8 || doc.Suites[0].Failures != 2 || len(doc.Suites[0].Cases) != 8 {
		t.Fatalf("tests %d failures %d; want 8 test cases (7 entries + registry) and 2 failures:\n%s", doc.Tests, doc.Failures, buf.String())
	}
	failed := map[string]string{}
	for _, c := range doc.Suites[0].Cases {
		if c.Failure != nil {
			failed[c.Name] = c.Failure.Text
		}
		if c.Name == "registry" && !strings.Contains(c.Out, "orphan-blob") {
			t.Errorf("registry case system-out %q; want the orphan-blob warning", c.Out)
		}
	}
	if !strings.Contains(failed[hello], "blob-digest") || !strings.Contains(failed[usesGit], "blob-missing") {
		t.Errorf("failures = %v; want %s (blob-digest) and %s (blob-missing)", failed, hello, usesGit)
	}
}

// TestJSONReport: the JSON report round-trips into Report and carries the
// documented fields.
func TestJSONReport(t *testing.T) {
	buf := written(t, tamperedReport(t), verify.JSON)
	var raw struct {
		Problems []map[string]any `json:"problems"`
	}
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	for _, p := range raw.Problems {
		if s := p["severity"]; s != "error" && s != "warning" {
			t.Errorf("problem %v: severity %v; want error or warning", p, s)
		}
	}
	var back verify.Report
	dec := json.NewDecoder(buf)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&back); err != nil {
		t.Fatal(err)
	}
	if back.Schema != verify.SchemaVersion || back.Kind != "registry" || back.Summary.OK || back.Summary.Errors != 2 || len(back.Entries) != 7 || back.Catalog == nil || back.Trust == nil {
		t.Fatalf("report = %+v", back)
	}
	for _, p := range back.Problems {
		if p.Rule == "" || p.Message == "" || p.Fix == "" {
			t.Errorf("incomplete problem %+v", p)
		}
	}
}

// TestJSONReportStreamed: WriteJSON writes the entries and problems one
// at a time; its bytes are those of encoding the whole report at once,
// for a real report and for entries and problems nil, empty, one, and
// holding characters HTML escaping would change.
func TestJSONReportStreamed(t *testing.T) {
	real := tamperedReport(t)
	odd := *real
	odd.Target = "<a & b>"
	odd.Entries = []verify.EntryResult{{Entry: "x.y@1.0.0 <&>", Errors: 1}}
	odd.Problems = odd.Problems[:1]
	tests := []struct {
		name string
		rep  verify.Report
	}{
		{"tampered registry", *real},
		{"nil entries and problems", verify.Report{Schema: verify.SchemaVersion, Kind: "registry", Target: "r"}},
		{"empty entries and problems", verify.Report{Schema: verify.SchemaVersion, Kind: "registry", Entries: []verify.EntryResult{}, Problems: []verify.Problem{}}},
		{"one of each, escaping", odd},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(&tt.rep); err != nil {
				t.Fatal(err)
			}
			got := written(t, &tt.rep, verify.JSON)
			if got.String() != want.String() {
				t.Errorf("WriteJSON wrote\n%s\nwant\n%s", got, want.String())
			}
		})
	}
}

// TestTextReport: the summary line, problems grouped by entry with their
// file and fix.
func TestTextReport(t *testing.T) {
	buf := written(t, tamperedReport(t), verify.Text)
	out := buf.String()
	first, _, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(first, "verify FAILED: 7 entries, ") || !strings.HasSuffix(first, ": 2 errors, 1 warning") {
		t.Errorf("summary line %q", first)
	}
	for _, s := range []string{"\nregistry:\n  warning orphan-blob: extensions/airvsx-demo/night-theme/blobs/sha256/", "\n" + hello + ":\n  error blob-digest: extensions/airvsx-demo/hello-command/blobs/sha256/", "    fix: copy the registry again"} {
		if !strings.Contains(out, s) {
			t.Errorf("text report lacks %q:\n%s", s, out)
		}
	}
	clean := check(t, fresh(t))
	buf.Reset()
	clean.WriteText(buf)
	if first, _, _ := strings.Cut(buf.String(), "\n"); !strings.HasPrefix(first, "verify ok: 7 entries, ") {
		t.Errorf("clean summary line %q", first)
	}
	_ = os.Stdout
}
