package policies

import (
	"fmt"
	"testing"

	"github.com/Masterminds/semver/v3"
	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index"
)

const decidePolicy = `version: 1
editor: 1.95.0
platforms: [universal, linux-x64]
extensions:
  - id: redhat.java
    versions: ">=1.30.0"
    latest: 3
  - id: golang.*
    preRelease: true
    latest: 2
  - id: evil.tool
  - id: "*.vscode-yaml"
    latest: all
exclude: [evil.*, "*.*-telemetry"]
requireUpstreamSignature: true
maxVsixBytes: 1000
`

// cand builds a candidate: signed, engine ^1.90.0, size 100, universal.
func cand(id, version string, opts ...func(*Candidate)) Candidate {
	e, err := index.ParseEngineRange("^1.90.0")
	if err != nil {
		panic(err)
	}
	c := Candidate{ID: index.MustParseID(id), Version: semver.MustParse(version), Platform: index.Universal, Engine: e, Signed: true, Size: 100}
	for _, o := range opts {
		o(&c)
	}
	return c
}

func on(p index.Platform) func(*Candidate) { return func(c *Candidate) { c.Platform = p } }
func pre(c *Candidate)                     { c.PreRelease = true }
func unsigned(c *Candidate)                { c.Signed = false }
func size(n int64) func(*Candidate)        { return func(c *Candidate) { c.Size = n } }
func engine(s string) func(*Candidate) {
	return func(c *Candidate) {
		c.Engine = index.EngineRange{}
		if s != "" {
			c.Engine, _ = index.ParseEngineRange(s)
		}
	}
}

func TestMatch(t *testing.T) {
	p := mustParse(t, decidePolicy)
	tests := []struct {
		name string
		c    Candidate
		want Decision
	}{
		{"allowed", cand("redhat.java", "1.31.0"), Decision{true, 0, "allowed by rule 0 (redhat.java)"}},
		{"allowed other case", cand("RedHat.Java", "1.31.0"), Decision{true, 0, "allowed by rule 0 (redhat.java)"}},
		{"allowed platform-specific", cand("redhat.java", "1.31.0", on(index.LinuxX64)), Decision{true, 0, "allowed by rule 0 (redhat.java)"}},
		{"empty platform is universal", cand("redhat.java", "1.31.0", on("")), Decision{true, 0, "allowed by rule 0 (redhat.java)"}},
		{"excluded wins over rule", cand("evil.tool", "1.0.0"), Decision{false, -1, "excluded by evil.*"}},
		{"excluded by glob", cand("acme.foo-telemetry", "1.0.0"), Decision{false, -1, "excluded by *.*-telemetry"}},
		{"no rule", cand("ms-python.python", "1.0.0"), Decision{false, -1, "no rule matches"}},
		{"second rule", cand("golang.go", "0.42.0"), Decision{true, 1, "allowed by rule 1 (golang.*)"}},
		{"glob rule", cand("redhat.vscode-yaml", "1.0.0"), Decision{true, 3, "allowed by rule 3 (*.vscode-yaml)"}},
		{"version outside", cand("redhat.java", "1.2.0"), Decision{false, 0, "version 1.2.0 outside >=1.30.0"}},
		{"platform", cand("redhat.java", "1.31.0", on(index.Win32X64)), Decision{false, 0, "platform win32-x64 not in [universal linux-x64]"}},
		{"pre-release flag", cand("redhat.java", "1.31.0", pre), Decision{false, 0, "pre-release not allowed by rule 0 (redhat.java)"}},
		{"semver pre-release", cand("redhat.java", "1.31.0-next.1"), Decision{false, 0, "pre-release not allowed by rule 0 (redhat.java)"}},
		{"pre-release allowed", cand("golang.go", "0.43.0", pre), Decision{true, 1, "allowed by rule 1 (golang.*)"}},
		{"semver pre-release allowed", cand("golang.go", "0.43.0-rc.1"), Decision{true, 1, "allowed by rule 1 (golang.*)"}},
		{"engine", cand("redhat.java", "1.31.0", engine("^1.99.0")), Decision{false, 0, "engines.vscode ^1.99.0 does not accept editor 1.95.0"}},
		{"engine missing", cand("redhat.java", "1.31.0", engine("")), Decision{false, 0, "engines.vscode (missing) does not accept editor 1.95.0"}},
		{"engine star", cand("redhat.java", "1.31.0", engine("*")), Decision{true, 0, "allowed by rule 0 (redhat.java)"}},
		{"unsigned", cand("redhat.java", "1.31.0", unsigned), Decision{false, 0, "not signed upstream and requireUpstreamSignature is set"}},
		{"too large", cand("redhat.java", "1.31.0", size(1001)), Decision{false, 0, "size 1001 exceeds maxVsixBytes 1000"}},
		{"exactly the limit", cand("redhat.java", "1.31.0", size(1000)), Decision{true, 0, "allowed by rule 0 (redhat.java)"}},
		{"size unknown", cand("redhat.java", "1.31.0", size(0)), Decision{true, 0, "allowed by rule 0 (redhat.java)"}},
		{"no version", Candidate{ID: index.MustParseID("redhat.java")}, Decision{false, 0, "no version"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Match(tt.c); got != tt.want {
				t.Errorf("Match(%s %v %s) = %+v; want %+v", tt.c.ID, tt.c.Version, tt.c.Platform, got, tt.want)
			}
		})
	}
}

func TestMatchDefaults(t *testing.T) {
	// No editor, no signature requirement: those checks are off; platforms
	// default to universal.
	p := mustParse(t, minimal)
	tests := []struct {
		name string
		c    Candidate
		want bool
	}{
		{"any engine without editor", cand("redhat.java", "1.0.0", engine("^9.0.0")), true},
		{"no engine without editor", cand("redhat.java", "1.0.0", engine("")), true},
		{"unsigned", cand("redhat.java", "1.0.0", unsigned), true},
		{"linux build", cand("redhat.java", "1.0.0", on(index.LinuxX64)), false},
		{"256 MiB", cand("redhat.java", "1.0.0", size(256<<20)), true},
		{"over 256 MiB", cand("redhat.java", "1.0.0", size(256<<20+1)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Match(tt.c); got.Allowed != tt.want {
				t.Errorf("Match = %+v; want Allowed %v", got, tt.want)
			}
		})
	}
}

func TestMatchZeroPolicy(t *testing.T) {
	// A hand-built Policy with zero fields uses the defaults.
	p := &Policy{Extensions: []Rule{{ID: MustParsePattern("a.*")}}}
	if d := p.Match(cand("a.b", "1.0.0", size(1<<20))); !d.Allowed {
		t.Errorf("Match = %+v; want allowed", d)
	}
	if d := p.Match(cand("a.b", "1.0.0", on(index.LinuxX64))); d.Allowed {
		t.Errorf("Match(linux-x64) = %+v; want refused (default platforms [universal])", d)
	}
	if got := p.Select([]Candidate{cand("a.b", "1.0.0"), cand("a.b", "2.0.0")}); len(got) != 1 {
		t.Errorf("Select kept %d; want 1 (default latest)", len(got))
	}
}

// key renders a candidate compactly for diffs.
func key(c Candidate) string {
	s := fmt.Sprintf("%s@%s/%s", c.ID, c.Version.Original(), c.platform())
	if c.PreRelease {
		s += "(pre)"
	}
	return s
}

func keys(cs []Candidate) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, key(c))
	}
	return out
}

func TestSelect(t *testing.T) {
	p := mustParse(t, decidePolicy)
	linux := on(index.LinuxX64)
	tests := []struct {
		name  string
		cands []Candidate
		want  []string
	}{
		{
			name:  "none",
			cands: nil,
			want:  []string{},
		},
		{
			name: "newest three releases, refused ones skipped",
			cands: []Candidate{
				cand("redhat.java", "1.30.0"), cand("redhat.java", "1.33.0"), cand("redhat.java", "1.29.0"),
				cand("redhat.java", "1.31.0"), cand("redhat.java", "1.32.0"), cand("redhat.java", "1.34.0", unsigned),
				cand("redhat.java", "1.35.0", pre),
			},
			want: []string{"redhat.java@1.33.0/universal", "redhat.java@1.32.0/universal", "redhat.java@1.31.0/universal"},
		},
		{
			name: "semver order, not string order",
			cands: []Candidate{
				cand("redhat.java", "1.9.0"), cand("redhat.java", "1.30.0"), cand("redhat.java", "1.100.0"),
				cand("redhat.java", "1.31.0"),
			},
			want: []string{"redhat.java@1.100.0/universal", "redhat.java@1.31.0/universal", "redhat.java@1.30.0/universal"},
		},
		{
			name: "latest counts versions per platform, not builds",
			cands: []Candidate{
				cand("redhat.java", "1.30.0"), cand("redhat.java", "1.30.0", linux),
				cand("redhat.java", "1.31.0"), cand("redhat.java", "1.31.0", linux),
				cand("redhat.java", "1.32.0", linux),
				cand("redhat.java", "1.33.0", linux),
				cand("redhat.java", "1.33.0", on(index.DarwinArm64)),
			},
			want: []string{
				"redhat.java@1.33.0/linux-x64",
				"redhat.java@1.32.0/linux-x64",
				"redhat.java@1.31.0/universal", "redhat.java@1.31.0/linux-x64",
				"redhat.java@1.30.0/universal",
			},
		},
		{
			name: "duplicate build kept once",
			cands: []Candidate{
				cand("redhat.java", "1.30.0"), cand("redhat.java", "1.30.0"),
				cand("redhat.java", "1.31.0"), cand("redhat.java", "1.32.0"),
			},
			want: []string{"redhat.java@1.32.0/universal", "redhat.java@1.31.0/universal", "redhat.java@1.30.0/universal"},
		},
		{
			name: "build metadata: same precedence is one version",
			cands: []Candidate{
				cand("redhat.java", "1.30.0+b"), cand("redhat.java", "1.30.0+a"),
				cand("redhat.java", "1.31.0"), cand("redhat.java", "1.32.0"),
			},
			want: []string{"redhat.java@1.32.0/universal", "redhat.java@1.31.0/universal", "redhat.java@1.30.0+a/universal"},
		},
		{
			name: "releases and pre-releases counted separately",
			cands: []Candidate{
				cand("golang.go", "0.40.0"), cand("golang.go", "0.41.0"), cand("golang.go", "0.42.0"),
				cand("golang.go", "0.43.1", pre), cand("golang.go", "0.43.2", pre), cand("golang.go", "0.43.3", pre),
				cand("golang.go", "0.44.0-rc.1"),
			},
			want: []string{
				"golang.go@0.44.0-rc.1/universal",
				"golang.go@0.43.3/universal(pre)",
				"golang.go@0.42.0/universal",
				"golang.go@0.41.0/universal",
			},
		},
		{
			name: "latest all",
			cands: []Candidate{
				cand("redhat.vscode-yaml", "1.0.0"), cand("redhat.vscode-yaml", "1.1.0"),
				cand("redhat.vscode-yaml", "1.2.0"), cand("redhat.vscode-yaml", "1.3.0"),
			},
			want: []string{"redhat.vscode-yaml@1.3.0/universal", "redhat.vscode-yaml@1.2.0/universal", "redhat.vscode-yaml@1.1.0/universal", "redhat.vscode-yaml@1.0.0/universal"},
		},
		{
			name:  "excluded extension keeps nothing",
			cands: []Candidate{cand("evil.tool", "1.0.0")},
			want:  []string{},
		},
		{
			name: "several extensions each on their own, ordered by version then platform then ID",
			cands: []Candidate{
				cand("golang.tools", "1.0.0", linux), cand("golang.go", "1.0.0"), cand("golang.go", "1.0.0", linux),
				cand("golang.tools", "1.0.0"),
			},
			want: []string{"golang.go@1.0.0/universal", "golang.tools@1.0.0/universal", "golang.go@1.0.0/linux-x64", "golang.tools@1.0.0/linux-x64"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]Candidate(nil), tt.cands...)
			got := keys(p.Select(tt.cands))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Select mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(keys(in), keys(tt.cands)); diff != "" {
				t.Errorf("Select modified its input:\n%s", diff)
			}
			// Deterministic whatever the input order.
			rev := append([]Candidate(nil), tt.cands...)
			for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
				rev[i], rev[j] = rev[j], rev[i]
			}
			if diff := cmp.Diff(got, keys(p.Select(rev))); diff != "" {
				t.Errorf("Select depends on input order:\n%s", diff)
			}
		})
	}
}

func TestWantsExactIDsHasGlobs(t *testing.T) {
	p := mustParse(t, decidePolicy)
	wants := []struct {
		id   string
		want bool
	}{
		{"redhat.java", true},
		{"REDHAT.JAVA", true},
		{"golang.anything", true},
		{"acme.vscode-yaml", true},
		{"evil.tool", false},          // a rule names it, but exclude wins
		{"golang.x-telemetry", false}, // excluded by glob
		{"ms-python.python", false},
	}
	for _, tt := range wants {
		t.Run(tt.id, func(t *testing.T) {
			if got := p.Wants(index.MustParseID(tt.id)); got != tt.want {
				t.Errorf("Wants(%s) = %v; want %v", tt.id, got, tt.want)
			}
		})
	}
	if diff := cmp.Diff([]index.ID{index.MustParseID("redhat.java")}, p.ExactIDs()); diff != "" {
		t.Errorf("ExactIDs (-want +got):\n%s", diff)
	}
	if !p.HasGlobs() {
		t.Errorf("HasGlobs() = false; want true")
	}

	q := mustParse(t, "version: 1\nextensions: [{id: b.x}, {id: A.y}, {id: a.Y}, {id: c.z}]\nexclude: [c.*]\n")
	want := []index.ID{index.MustParseID("A.y"), index.MustParseID("b.x")}
	if diff := cmp.Diff(want, q.ExactIDs()); diff != "" {
		t.Errorf("ExactIDs: deduplicated by key, sorted, excluded dropped (-want +got):\n%s", diff)
	}
	if q.HasGlobs() {
		t.Errorf("HasGlobs() = true; want false")
	}
}

func TestWithDependencies(t *testing.T) {
	src := "version: 1\ndependencies: true\nextensions: [{id: redhat.java, latest: 2}]\nexclude: [evil.*]\n"
	p := mustParse(t, src)
	q := p.WithDependencies(index.MustParseID("vscjava.vscode-java-debug"), index.MustParseID("Redhat.Java"), index.MustParseID("evil.dep"), index.MustParseID("VSCJava.vscode-java-debug"))
	if len(p.Extensions) != 1 {
		t.Fatalf("WithDependencies modified p")
	}
	want := []Rule{
		{ID: MustParsePattern("redhat.java"), Latest: 2},
		{ID: MustParsePattern("vscjava.vscode-java-debug"), Latest: 1, Dependency: true},
	}
	if diff := cmp.Diff(want, q.Extensions, policyCmp); diff != "" {
		t.Errorf("Extensions (-want +got):\n%s", diff)
	}
	d := q.Match(cand("vscjava.vscode-java-debug", "0.50.0"))
	if wantD := (Decision{true, 1, "allowed by rule 1 (vscjava.vscode-java-debug, a dependency)"}); d != wantD {
		t.Errorf("Match(dependency) = %+v; want %+v", d, wantD)
	}
	if d := q.Match(cand("evil.dep", "1.0.0")); d.Allowed {
		t.Errorf("Match(excluded dependency) = %+v; want refused", d)
	}
	out, err := q.MarshalYAML()
	if err != nil {
		t.Fatal(err)
	}
	if r := mustParse(t, string(out)); len(r.Extensions) != 1 {
		t.Errorf("MarshalYAML wrote dependency rules:\n%s", out)
	}

	off := mustParse(t, minimal)
	if off.WithDependencies(index.MustParseID("a.b")) != off {
		t.Errorf("WithDependencies with dependencies: false returned a copy; want p")
	}
}

// TestClosure: the policy grows by the dependencies of what each widened
// policy selects until nothing changes (a → b → c, and c → a again), and
// stays as it is without dependencies: true.
func TestClosure(t *testing.T) {
	graph := map[string][]string{"pub.a": {"pub.b"}, "pub.b": {"pub.c"}, "pub.c": {"pub.a"}}
	deps := func(p *Policy) []index.ID {
		var ds []index.ID
		for id, to := range graph {
			if p.Match(cand(id, "1.0.0")).Allowed {
				for _, d := range to {
					ds = append(ds, index.MustParseID(d))
				}
			}
		}
		return ds
	}
	p := mustParse(t, "version: 1\ndependencies: true\nextensions: [{id: pub.a}]\n")
	q := p.Closure(len(graph)+1, deps)
	for _, id := range []string{"pub.a", "pub.b", "pub.c"} {
		if !q.Match(cand(id, "1.0.0")).Allowed {
			t.Errorf("the closure does not select %s", id)
		}
	}
	if len(q.Extensions) != 3 {
		t.Errorf("the closure has %d rules; want 3 (each dependency once)", len(q.Extensions))
	}
	if one := p.Closure(1, deps); one.Match(cand("pub.c", "1.0.0")).Allowed {
		t.Error("one round selected pub.c, two steps away")
	}
	off := mustParse(t, "version: 1\nextensions: [{id: pub.a}]\n")
	if off.Closure(4, deps) != off {
		t.Error("Closure changed a policy without dependencies: true")
	}
}
