package policies

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index"
)

// TestExamples loads each example and checks a few decisions on it.
func TestExamples(t *testing.T) {
	linux, win := on(index.LinuxX64), on(index.Win32X64)
	type check struct {
		c    Candidate
		want string // "ok <rule>" or the refusal reason
	}
	tests := []struct {
		file      string
		checks    []check
		exact     []string
		globs     bool
		grant     Grant // for redhat.java 1.31.0 declaring nothing
		selectIn  []Candidate
		selectOut []string
	}{
		{
			file: "curated.yaml",
			checks: []check{
				{cand("redhat.java", "1.31.0"), "ok 0"},
				{cand("redhat.java", "2.0.0"), "version 2.0.0 outside >=1.30.0 <2.0.0"},
				{cand("golang.go", "0.42.1"), "ok 1"},
				{cand("golang.go", "0.42.2"), "version 0.42.2 outside 0.42.1"},
				{cand("rust-lang.rust-analyzer", "0.4.2000", linux, pre), "ok 2"},
				{cand("rust-lang.rust-analyzer", "0.4.2000", on(index.DarwinArm64)), "platform darwin-arm64 not in [universal linux-x64]"},
				{cand("esbenp.prettier-vscode", "10.0.0", pre), "pre-release not allowed by rule 3 (esbenp.prettier-vscode)"},
				{cand("esbenp.prettier-vscode", "10.0.0", size(200<<20)), "size 209715200 exceeds maxVsixBytes 134217728"},
				{cand("eamodio.gitlens", "15.0.0"), "no rule matches"},
				{cand("esbenp.prettier-vscode", "10.0.0", engine("^1.96.0")), "engines.vscode ^1.96.0 does not accept editor 1.95.0"},
				{cand("esbenp.prettier-vscode", "10.0.0", unsigned), "ok 3"},
			},
			exact: []string{"dbaeumer.vscode-eslint", "esbenp.prettier-vscode", "golang.Go", "redhat.java", "rust-lang.rust-analyzer", "streetsidesoftware.code-spell-checker"},
			grant: Grant{},
			selectIn: []Candidate{
				cand("redhat.java", "1.29.0"), cand("redhat.java", "1.30.0"), cand("redhat.java", "1.31.0"),
				cand("redhat.java", "1.32.0"), cand("redhat.java", "1.33.0"), cand("redhat.java", "2.0.0"),
			},
			selectOut: []string{"redhat.java@1.33.0/universal", "redhat.java@1.32.0/universal", "redhat.java@1.31.0/universal"},
		},
		{
			file: "platform-restricted.yaml",
			checks: []check{
				{cand("redhat.java", "1.31.0", engine("^1.94.0")), "ok 0"},
				{cand("redhat.java", "1.31.0"), "ok 0"}, // ^1.90.0 accepts 1.94.2
				{cand("redhat.vscode-yaml", "1.15.0", linux), "ok 0"},
				{cand("redhat.java", "1.31.0", win), "platform win32-x64 not in [universal linux-x64]"},
				{cand("redhat.java", "1.31.0", unsigned), "not signed upstream and requireUpstreamSignature is set"},
				{cand("redhat.java", "1.31.0", engine("^1.95.0")), "engines.vscode ^1.95.0 does not accept editor 1.94.2"},
				{cand("llvm-vs-code-extensions.vscode-clangd", "0.1.29", linux), "ok 2"},
				{cand("ms-azuretools.vscode-docker", "1.29.0"), "ok 3"},
				{cand("ms-azuretools.docker", "1.29.0"), "no rule matches"},
			},
			exact: []string{"llvm-vs-code-extensions.vscode-clangd", "vscjava.vscode-java-debug"},
			globs: true,
			grant: Grant{
				DeclaredByPolicy: index.NewCapabilitySet(index.Spawn),
				Granted:          index.NewCapabilitySet(index.Spawn),
				Effective:        index.NewCapabilitySet(index.Spawn),
				Programs:         []string{"/usr/lib/jvm/java-21-openjdk-amd64/bin/java"},
			},
			selectIn: []Candidate{
				cand("redhat.java", "1.30.0"), cand("redhat.java", "1.30.0", linux),
				cand("redhat.java", "1.31.0"), cand("redhat.java", "1.31.0", linux), cand("redhat.java", "1.31.0", win),
				cand("redhat.java", "1.32.0", linux), cand("redhat.java", "1.33.0", unsigned),
			},
			selectOut: []string{"redhat.java@1.32.0/linux-x64", "redhat.java@1.31.0/universal", "redhat.java@1.31.0/linux-x64", "redhat.java@1.30.0/universal"},
		},
		{
			file: "ci-gate.yaml",
			checks: []check{
				{cand("redhat.java", "1.31.0"), "ok 0"},
				{cand("redhat.java", "1.31.0", pre), "pre-release not allowed by rule 0 (redhat.java)"},
				{cand("golang.go", "0.43.0"), "version 0.43.0 outside ^0.42.0"},
				{cand("ms-python.python", "2024.1.0"), "ok 2"},
				{cand("ms-python.vscode-pylance", "2024.1.0"), "excluded by ms-python.vscode-pylance"},
				{cand("evil.redhat-java", "1.0.0"), "excluded by evil.*"},
				{cand("ms-python.debug-telemetry", "1.0.0"), "excluded by *.*-telemetry"},
				{cand("redhat.vscode-yaml", "1.15.0"), "ok 3"},
				{cand("redhat.java", "1.31.0", linux), "platform linux-x64 not in [universal]"},
				{cand("redhat.java", "1.31.0", unsigned), "not signed upstream and requireUpstreamSignature is set"},
				{cand("redhat.java", "1.31.0", size(64<<20+1)), "size 67108865 exceeds maxVsixBytes 67108864"},
			},
			exact: []string{"golang.go", "redhat.java"},
			globs: true,
			grant: Grant{},
			selectIn: []Candidate{
				cand("golang.go", "0.42.0"), cand("golang.go", "0.42.1"), cand("golang.go", "0.42.2"),
				cand("golang.go", "0.43.0"), cand("golang.go", "0.42.3", pre),
			},
			selectOut: []string{"golang.go@0.42.2/universal", "golang.go@0.42.1/universal"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			p, err := Load("examples/" + tt.file)
			if err != nil {
				t.Fatalf("Load = %v", err)
			}
			if tt.file == "curated.yaml" {
				if _, ok := p.Control.Allowed("streetsidesoftware.code-spell-checker"); !ok || p.Control.URL == "" || p.Control.MaxAge != 14*24*time.Hour {
					t.Errorf("curated.yaml's control section: %+v", p.Control)
				}
			}
			for _, c := range tt.checks {
				d := p.Match(c.c)
				got := d.Reason
				if d.Allowed {
					got = fmt.Sprintf("ok %d", d.Rule)
				}
				if got != c.want {
					t.Errorf("Match(%s) = %q; want %q", key(c.c), got, c.want)
				}
			}
			var exact []string
			for _, id := range p.ExactIDs() {
				exact = append(exact, id.String())
			}
			if diff := cmp.Diff(tt.exact, exact); diff != "" {
				t.Errorf("ExactIDs (-want +got):\n%s", diff)
			}
			if p.HasGlobs() != tt.globs {
				t.Errorf("HasGlobs() = %v; want %v", p.HasGlobs(), tt.globs)
			}
			g := p.Capabilities(index.MustParseID("redhat.java"), cand("redhat.java", "1.31.0").Version, nil)
			if diff := cmp.Diff(tt.grant, g); diff != "" {
				t.Errorf("Capabilities(redhat.java 1.31.0) (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.selectOut, keys(p.Select(tt.selectIn))); diff != "" {
				t.Errorf("Select (-want +got):\n%s", diff)
			}
		})
	}
}
