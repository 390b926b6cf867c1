package policies

import (
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index"
)

func TestParsePattern(t *testing.T) {
	tests := []struct {
		name, in string
		wantErr  string // substring; "" means valid
		exact    bool
	}{
		{name: "exact", in: "redhat.java", exact: true},
		{name: "exact odd characters", in: "a_b-c+d$e~f.x-y", exact: true},
		{name: "namespace wildcard", in: "golang.*"},
		{name: "everything", in: "*.*"},
		{name: "glob in name", in: "ms-azuretools.vscode-*"},
		{name: "glob in namespace", in: "*.vscode-yaml"},
		{name: "question mark", in: "a?c.name"},
		{name: "no dot", in: "redhat", wantErr: "exactly one dot"},
		{name: "bare star", in: "*", wantErr: "exactly one dot"},
		{name: "two dots", in: "a.b.c", wantErr: "exactly one dot"},
		{name: "glob two dots", in: "a.*.c", wantErr: "exactly one dot"},
		{name: "empty", in: "", wantErr: "exactly one dot"},
		{name: "empty namespace", in: ".java", wantErr: "invalid namespace"},
		{name: "empty glob namespace", in: ".*", wantErr: "invalid part"},
		{name: "empty glob name", in: "a*.", wantErr: "invalid part"},
		{name: "space", in: "red hat.java", wantErr: "invalid namespace"},
		{name: "slash in glob", in: "a/*.b", wantErr: "invalid part"},
		{name: "bracket glob", in: "[ab].*", wantErr: "invalid part"},
		{name: "non-ASCII", in: "a.é", wantErr: "invalid name"},
		{name: "too long exact", in: "a." + strings.Repeat("x", 256), wantErr: "invalid name"},
		{name: "too long glob", in: "*." + strings.Repeat("x", 256), wantErr: "invalid part"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePattern(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParsePattern(%q) = %v; want error containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParsePattern(%q) = %v; want nil", tt.in, err)
			}
			if p.String() != tt.in {
				t.Errorf("String() = %q; want %q", p.String(), tt.in)
			}
			if _, ok := p.ID(); ok != tt.exact || p.IsGlob() == tt.exact {
				t.Errorf("ID() ok = %v, IsGlob() = %v; want exact %v", ok, p.IsGlob(), tt.exact)
			}
		})
	}
}

func TestPatternMatch(t *testing.T) {
	tests := []struct {
		name, pattern, id string
		want              bool
	}{
		{"exact", "redhat.java", "redhat.java", true},
		{"exact other case", "RedHat.Java", "redhat.JAVA", true},
		{"exact differs", "redhat.java", "redhat.javascript", false},
		{"namespace wildcard", "golang.*", "golang.go", true},
		{"namespace wildcard case", "GoLang.*", "golang.Go", true},
		{"namespace wildcard other ns", "golang.*", "golangci.lint", false},
		{"everything", "*.*", "a.b", true},
		{"prefix glob", "ms-azuretools.vscode-*", "ms-azuretools.vscode-docker", true},
		{"prefix glob empty rest", "ms-azuretools.vscode-*", "ms-azuretools.vscode-", true},
		{"prefix glob no match", "ms-azuretools.vscode-*", "ms-azuretools.docker", false},
		{"star does not cross dot", "a*.b", "ab.c.b", false},
		{"namespace glob", "*.vscode-yaml", "redhat.vscode-yaml", true},
		{"suffix glob", "*.*-telemetry", "acme.foo-telemetry", true},
		{"suffix glob no match", "*.*-telemetry", "acme.telemetry", false},
		{"question mark one char", "a?c.x", "abc.x", true},
		{"question mark not zero", "a?c.x", "ac.x", false},
		{"backtracking", "*a*b*c.x", "zzaazbbzzc.x", true},
		{"backtracking fail", "*a*b*c.x", "zzaazbbzz.x", false},
		{"zero pattern", "", "a.b", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Pattern
			if tt.pattern != "" {
				p = MustParsePattern(tt.pattern)
			}
			ns, name, _ := strings.Cut(tt.id, ".")
			id := index.ID{Namespace: ns, Name: name}
			if got := p.Match(id); got != tt.want {
				t.Errorf("Pattern(%q).Match(%q) = %v; want %v", tt.pattern, tt.id, got, tt.want)
			}
		})
	}
}

func TestGlobLinear(t *testing.T) {
	// A pathological pattern must not backtrack exponentially.
	pat := strings.Repeat("*a", 120) + "b"
	s := strings.Repeat("a", 255)
	if glob(pat, s) {
		t.Fatalf("glob matched")
	}
}
