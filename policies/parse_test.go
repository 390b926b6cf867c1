package policies

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/testkit/filetest"
)

// policyCmp compares the decision-relevant content of policies.
var policyCmp = cmp.Options{
	cmpopts.IgnoreUnexported(Policy{}),
	cmp.Comparer(func(a, b Pattern) bool { return a == b }),
	cmp.Comparer(func(a, b Constraint) bool { return a.String() == b.String() }),
	cmp.Comparer(func(a, b *semver.Version) bool {
		if a == nil || b == nil {
			return a == b
		}
		return a.Original() == b.Original()
	}),
}

// minimal is the smallest valid policy.
const minimal = "version: 1\nextensions:\n  - id: redhat.java\n"

func mustParse(t *testing.T, src string) *Policy {
	t.Helper()
	p, err := Parse("policy.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse(%q) = %v; want nil", src, err)
	}
	return p
}

func TestParseDefaults(t *testing.T) {
	got := mustParse(t, minimal)
	want := &Policy{
		Version:        1,
		Platforms:      []index.Platform{index.Universal},
		Extensions:     []Rule{{ID: MustParsePattern("redhat.java"), Latest: 1}},
		MaxVsixBytes:   256 << 20,
		CatalogExpires: 90 * 24 * time.Hour,
	}
	if diff := cmp.Diff(want, got, policyCmp); diff != "" {
		t.Errorf("Parse(minimal) mismatch (-want +got):\n%s", diff)
	}
}

func TestParseFull(t *testing.T) {
	src := `version: 1
upstream: https://open-vsx.org/
editor: 1.95.0
platforms: [universal, linux-x64]
extensions:
  - id: redhat.java
    versions: ">=1.30.0"
    latest: 3
    preRelease: true
  - id: golang.*
    latest: all
exclude: [evil.*]
dependencies: true
requireUpstreamSignature: true
maxVsixBytes: 1000
capabilities:
  - id: redhat.java
    versions: "*"
    grant: [spawn, network]
    declare: [spawn]
catalog:
  expires: 36h
`
	got := mustParse(t, src)
	want := &Policy{
		Version:   1,
		Upstream:  "https://open-vsx.org/",
		Editor:    semver.MustParse("1.95.0"),
		Platforms: []index.Platform{index.Universal, index.LinuxX64},
		Extensions: []Rule{
			{ID: MustParsePattern("redhat.java"), Versions: mustConstraint(t, ">=1.30.0"), Latest: 3, PreRelease: true},
			{ID: MustParsePattern("golang.*"), Latest: LatestAll},
		},
		Exclude:                  []Pattern{MustParsePattern("evil.*")},
		Dependencies:             true,
		RequireUpstreamSignature: true,
		MaxVsixBytes:             1000,
		CapabilityRules: []CapabilityRule{{
			ID:       MustParsePattern("redhat.java"),
			Versions: mustConstraint(t, "*"),
			Grant:    index.NewCapabilitySet(index.Network, index.Spawn),
			Declare:  index.NewCapabilitySet(index.Spawn),
		}},
		CatalogExpires: 36 * time.Hour,
	}
	if diff := cmp.Diff(want, got, policyCmp); diff != "" {
		t.Errorf("Parse mismatch (-want +got):\n%s", diff)
	}
	if got.Name() != "policy.yaml" || string(got.Bytes()) != src {
		t.Errorf("Name() = %q, Bytes() = %q; want policy.yaml and the source", got.Name(), got.Bytes())
	}
}

func mustConstraint(t *testing.T, s string) Constraint {
	t.Helper()
	c, err := ParseConstraint(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestParseStructure covers the decoding rules. Each source is otherwise
// valid, so the test fails if the rule it names is removed.
func TestParseStructure(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // the whole error text
	}{
		{
			name: "unknown field names its line",
			src:  "version: 1\n\n\n\n\nextensions:\n  - id: redhat.java\n    latst: 3\n",
			want: `policy.yaml:8:5: unknown field "latst"`,
		},
		{
			name: "unknown top-level field",
			src:  minimal + "platform: [universal]\n",
			want: `policy.yaml:4:1: unknown field "platform"`,
		},
		{
			name: "field names are case-sensitive",
			src:  minimal + "MaxVsixBytes: 1\n",
			want: `policy.yaml:4:1: unknown field "MaxVsixBytes"`,
		},
		{
			name: "unknown catalog field",
			src:  minimal + "catalog:\n  expiry: 1d\n",
			want: `policy.yaml:5:3: unknown field "expiry"`,
		},
		{
			name: "unknown capability rule field",
			src:  minimal + "capabilities:\n  - id: a.b\n    grants: [spawn]\n",
			want: `policy.yaml:6:5: unknown field "grants"`,
		},
		{
			name: "duplicate key",
			src:  minimal + "version: 1\n",
			want: `policy.yaml:4:1: mapping key "version" already defined at [1:1]`,
		},
		{
			name: "duplicate key in rule",
			src:  "version: 1\nextensions:\n  - id: a.b\n    id: c.d\n",
			want: `policy.yaml:4:5: mapping key "id" already defined at [3:5]`,
		},
		{
			name: "two documents",
			src:  minimal + "---\n" + minimal,
			want: "policy.yaml:4:1: more than one YAML document",
		},
		{
			name: "trailing empty document",
			src:  minimal + "---\n",
			want: "policy.yaml:4:1: more than one YAML document",
		},
		{
			name: "anchor",
			src:  "version: 1\nextensions:\n  - &r {id: a.b}\n",
			want: "policy.yaml:3:5: anchors and aliases (&, *) are not allowed",
		},
		{
			name: "alias bomb",
			src:  "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n",
			want: "policy.yaml:1:4: anchors and aliases (&, *) are not allowed",
		},
		{
			name: "merge key",
			src:  "version: 1\nextensions:\n  - <<: {id: a.b}\n",
			want: "policy.yaml:3:5: merge keys (<<) are not allowed",
		},
		{
			name: "tag",
			src:  "version: !!int 1\nextensions: [{id: a.b}]\n",
			want: "policy.yaml:1:10: tags (!) are not allowed",
		},
		{
			name: "directive",
			src:  "%YAML 1.2\n---\n" + minimal,
			want: "policy.yaml:1:1: directives (%) are not allowed",
		},
		{
			name: "deep flow nesting",
			src:  "version: 1\nextensions: " + strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\n",
			want: "policy.yaml:2:23: nested deeper than 10 levels",
		},
		{
			name: "deep indentation",
			src:  minimal + "catalog:\n" + strings.Repeat(" ", 300) + "expires: 1d\n",
			want: "policy.yaml:5:301: indented past column 256",
		},
		{
			name: "many sequences on one line",
			src:  "version: 1\nextensions:\n" + strings.Repeat("- ", 9) + "x\n",
			want: "policy.yaml:3:17: more than 8 sequences opened on one line",
		},
		{
			name: "tab indentation",
			src:  minimal + "\tdependencies: true\n",
			want: "policy.yaml:4:1: found character '\t' that cannot start any token",
		},
		{
			name: "empty file",
			src:  "",
			want: "policy.yaml: empty policy (want at least version: 1 and extensions)",
		},
		{
			name: "comments only",
			src:  "# nothing\n",
			want: "policy.yaml: empty policy (want at least version: 1 and extensions)",
		},
		{
			name: "top level list",
			src:  "- version: 1\n",
			want: "policy.yaml:1:1: want a mapping of policy fields, have a list",
		},
		{
			name: "version as string",
			src:  "version: \"1\"\nextensions: [{id: a.b}]\n",
			want: `policy.yaml:1:10: want an integer, have "1"`,
		},
		{
			name: "version as float",
			src:  "version: 1.0\nextensions: [{id: a.b}]\n",
			want: "policy.yaml:1:10: want an integer, have a number",
		},
		{
			name: "huge integer",
			src:  minimal + "maxVsixBytes: 99999999999999999999999\n",
			want: `policy.yaml:4:15: want an integer, have "99999999999999999999999"`,
		},
		{
			name: "bool as yes",
			src:  minimal + "dependencies: yes\n",
			want: "policy.yaml:4:15: want true or false, have a string",
		},
		{
			name: "bool as integer",
			src:  minimal + "requireUpstreamSignature: 1\n",
			want: "policy.yaml:4:27: want true or false, have an integer",
		},
		{
			name: "list as scalar",
			src:  minimal + "platforms: linux-x64\n",
			want: "policy.yaml:4:12: want a list, have a string",
		},
		{
			name: "rule as scalar",
			src:  "version: 1\nextensions: [redhat.java]\n",
			want: "policy.yaml:2:14: want a mapping, have a string",
		},
		{
			name: "null list item",
			src:  "version: 1\nextensions:\n  - id: a.b\n  -\n",
			want: "policy.yaml:4:5: empty list item",
		},
		{
			name: "string as mapping",
			src:  "version: 1\nextensions: [{id: {a: b}}]\n",
			want: "policy.yaml:2:19: want a string, have a mapping",
		},
		{
			name: "block scalar",
			src:  "version: 1\nextensions:\n  - id: |\n      a.b\n",
			want: "policy.yaml:3:9: want a string, have a block scalar (| or >)",
		},
		{
			name: "latest as word",
			src:  "version: 1\nextensions: [{id: a.b, latest: many}]\n",
			want: `policy.yaml:2:32: want a positive integer or all, have "many"`,
		},
		{
			name: "catalog as list",
			src:  minimal + "catalog: [1d]\n",
			want: "policy.yaml:4:10: want a mapping, have a list",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("policy.yaml", []byte(tt.src))
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Parse(%q) = %v; want %q", tt.src, err, tt.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("errors.Is(%v, ErrInvalid) = false", err)
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	tests := []struct{ name, src string }{
		{"BOM", "\ufeff" + minimal},
		{"flow style", "{version: 1, extensions: [{id: a.b}], capabilities: [{id: a.b, grant: [spawn]}], catalog: {expires: 1d}}"},
		{"CRLF", strings.ReplaceAll(minimal, "\n", "\r\n")},
		{"tab after colon", "version:\t1\nextensions: [{id: a.b}]\n"},
		{"document markers", "---\n" + minimal + "...\n"},
		{"null optional field", minimal + "editor:\ndependencies: ~\n"},
		{"hex integer", minimal + "maxVsixBytes: 0x100\n"},
		{"numeric-looking string keeps its spelling", "version: 1\nextensions: [{id: a.b, versions: 1.10}]\n"},
		{"http to localhost", minimal + "upstream: http://localhost:8080/\n"},
		{"http to loopback IPv4", minimal + "upstream: http://127.0.0.1:8080\n"},
		{"http to loopback IPv6", minimal + "upstream: http://[::1]:8080/openvsx\n"},
		{"upstream with path", minimal + "upstream: https://example.com/openvsx/\n"},
		{"editor pre-release", minimal + "editor: 1.96.0-insider\n"},
		{"latest all", "version: 1\nextensions: [{id: a.b, latest: all}]\n"},
		{"declare only", minimal + "capabilities: [{id: a.b, declare: [network]}]\n"},
		{"hosts and programs", minimal + "capabilities: [{id: a.b, grant: [network, spawn], hosts: [API.Example.com, '127.0.0.1:8080', '*.example.org', '[::1]:9'], programs: [/usr/bin/git]}]\n"},
		{"expires minimum", minimal + "catalog: {expires: 1m}\n"},
		{"expires maximum", minimal + "catalog: {expires: 1825d}\n"},
		{"empty catalog", minimal + "catalog: {}\n"},
		{"every platform", minimal + "platforms: [universal, web, win32-x64, win32-arm64, win32-ia32, linux-x64, linux-arm64, linux-armhf, alpine-x64, alpine-arm64, darwin-x64, darwin-arm64]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustParse(t, tt.src)
		})
	}
	if p := mustParse(t, "version: 1\nextensions: [{id: a.b, versions: 1.10}]\n"); p.Extensions[0].Versions.String() != "1.10" {
		t.Errorf("versions: 1.10 decoded as %q; want 1.10", p.Extensions[0].Versions)
	}
}

// TestParseSemantics covers each validation rule with a source that is
// otherwise valid, so the test fails if the rule is removed.
func TestParseSemantics(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"version missing", "extensions: [{id: a.b}]\n", "policy.yaml: version: missing (want version: 1)"},
		{"version 2", "version: 2\nextensions: [{id: a.b}]\n", "policy.yaml:1:10: version: unsupported format version 2 (want 1)"},
		{"upstream not a URL", minimal + "upstream: open-vsx.org\n", `policy.yaml:4:11: upstream: URL "open-vsx.org": want https://`},
		{"upstream ftp", minimal + "upstream: ftp://open-vsx.org\n", `policy.yaml:4:11: upstream: URL "ftp://open-vsx.org": want https://`},
		{"upstream no host", minimal + "upstream: https:///x\n", `policy.yaml:4:11: upstream: URL "https:///x": want https://host[/path]`},
		{"upstream opaque", minimal + "upstream: https:open-vsx.org\n", `policy.yaml:4:11: upstream: URL "https:open-vsx.org": want https://host[/path]`},
		{"upstream userinfo", minimal + "upstream: https://me:secret@open-vsx.org\n", `policy.yaml:4:11: upstream: URL "https://me:xxxxx@open-vsx.org": user information is not allowed (credentials do not belong in a policy)`},
		{"upstream query", minimal + "upstream: https://open-vsx.org/?a=b\n", `policy.yaml:4:11: upstream: URL "https://open-vsx.org/?a=b": a query or fragment is not allowed`},
		{"upstream fragment", minimal + "upstream: https://open-vsx.org/#x\n", `policy.yaml:4:11: upstream: URL "https://open-vsx.org/#x": a query or fragment is not allowed`},
		{"upstream http remote", minimal + "upstream: http://open-vsx.org\n", `policy.yaml:4:11: upstream: URL "http://open-vsx.org": http is allowed only for loopback hosts; use https`},
		{"upstream http to localhost lookalike", minimal + "upstream: http://localhost.evil.com\n", `policy.yaml:4:11: upstream: URL "http://localhost.evil.com": http is allowed only for loopback hosts; use https`},
		{"upstream invalid", minimal + "upstream: \"https://a b\"\n", `policy.yaml:4:11: upstream: invalid URL "https://a b"`},
		{"editor loose", minimal + "editor: v1.95.0\n", `policy.yaml:4:9: editor: version "v1.95.0": invalid characters in version (want an exact version such as 1.95.0)`},
		{"editor short", minimal + "editor: \"1.95\"\n", `policy.yaml:4:9: editor: version "1.95": invalid semantic version (want an exact version such as 1.95.0)`},
		{"platforms empty", minimal + "platforms: []\n", "policy.yaml:4:12: platforms: empty list (omit the field for [universal])"},
		{"platform unknown", minimal + "platforms: [universal, linux]\n", `policy.yaml:4:24: platforms[1]: unknown target platform "linux" (want one of ` + platformList + `)`},
		{"platform empty string", minimal + "platforms: [\"\"]\n", `policy.yaml:4:13: platforms[0]: unknown target platform "" (want one of ` + platformList + `)`},
		{"platform duplicate", minimal + "platforms: [universal, universal]\n", "policy.yaml:4:24: platforms[1]: duplicate platform universal"},
		{"extensions missing", "version: 1\n", "policy.yaml: extensions: no rules (want at least one, e.g. - id: redhat.java)"},
		{"extensions empty", "version: 1\nextensions: []\n", "policy.yaml:2:13: extensions: no rules (want at least one, e.g. - id: redhat.java)"},
		{"rule without id", "version: 1\nextensions:\n  - latest: 2\n", "policy.yaml:3:5: extensions[0].id: missing (want an extension ID, ns.* or a glob)"},
		{"rule bad id", "version: 1\nextensions:\n  - id: redhat\n", `policy.yaml:3:9: extensions[0].id: ID pattern "redhat": want namespace.name with exactly one dot (wildcards * and ? allowed; "*.*" selects everything)`},
		{"rule bad exact id", "version: 1\nextensions:\n  - id: red/hat.java\n", `policy.yaml:3:9: extensions[0].id: extension ID "red/hat.java": invalid namespace "red/hat" (want 1-255 of A-Z a-z 0-9 _ - + $ ~)`},
		{"rule bad glob", "version: 1\nextensions:\n  - id: red/*.java\n", `policy.yaml:3:9: extensions[0].id: ID pattern "red/*.java": invalid part "red/*" (want 1-255 of A-Z a-z 0-9 _ - + $ ~ * ?)`},
		{"versions invalid", "version: 1\nextensions:\n  - id: a.b\n    versions: \">=1 <\"\n", `policy.yaml:4:15: extensions[0].versions: version constraint ">=1 <": improper constraint: ">=1 <"`},
		{"versions empty", "version: 1\nextensions:\n  - id: a.b\n    versions: \"\"\n", `policy.yaml:4:15: extensions[0].versions: empty constraint (omit the field or write "*" for any version)`},
		{"latest zero", "version: 1\nextensions:\n  - id: a.b\n    latest: 0\n", "policy.yaml:4:13: extensions[0].latest: must be between 1 and 2147483647 or all, have 0"},
		{"latest negative", "version: 1\nextensions:\n  - id: a.b\n    latest: -2\n", "policy.yaml:4:13: extensions[0].latest: must be between 1 and 2147483647 or all, have -2"},
		{"latest too large", "version: 1\nextensions:\n  - id: a.b\n    latest: 2147483648\n", "policy.yaml:4:13: extensions[0].latest: must be between 1 and 2147483647 or all, have 2147483648"},
		{"exclude invalid", minimal + "exclude: [evil]\n", `policy.yaml:4:11: exclude[0]: ID pattern "evil": want namespace.name with exactly one dot (wildcards * and ? allowed; "*.*" selects everything)`},
		{"maxVsixBytes zero", minimal + "maxVsixBytes: 0\n", "policy.yaml:4:15: maxVsixBytes: must be positive, have 0"},
		{"maxVsixBytes negative", minimal + "maxVsixBytes: -1\n", "policy.yaml:4:15: maxVsixBytes: must be positive, have -1"},
		{"capability rule without id", minimal + "capabilities:\n  - grant: [spawn]\n", "policy.yaml:5:5: capabilities[0].id: missing (want an extension ID, ns.* or a glob)"},
		{"capability rule bad id", minimal + "capabilities:\n  - id: java\n    grant: [spawn]\n", `policy.yaml:5:9: capabilities[0].id: ID pattern "java": want namespace.name with exactly one dot (wildcards * and ? allowed; "*.*" selects everything)`},
		{"capability rule bad versions", minimal + "capabilities:\n  - id: a.b\n    versions: \"~>\"\n    grant: [spawn]\n", `policy.yaml:6:15: capabilities[0].versions: version constraint "~>": improper constraint: "~>"`},
		{"capability unknown grant", minimal + "capabilities:\n  - id: a.b\n    grant: [spawn, net]\n", `policy.yaml:6:20: capabilities[0].grant[1]: unknown capability "net" (want one of [network spawn fsWide])`},
		{"capability unknown declare", minimal + "capabilities:\n  - id: a.b\n    declare: [Spawn]\n", `policy.yaml:6:15: capabilities[0].declare[0]: unknown capability "Spawn" (want one of [network spawn fsWide])`},
		{"capability rule empty", minimal + "capabilities:\n  - id: a.b\n    grant: []\n", "policy.yaml:5:5: capabilities[0]: neither grant nor declare lists a capability"},
		{"hosts without network", minimal + "capabilities:\n  - id: a.b\n    grant: [spawn]\n    hosts: [example.com]\n", "policy.yaml:7:12: capabilities[0].hosts: lists hosts but the rule does not grant network (add network to grant, or remove hosts)"},
		{"programs without spawn", minimal + "capabilities:\n  - id: a.b\n    grant: [network]\n    declare: [spawn]\n    programs: [/usr/bin/git]\n", "policy.yaml:8:15: capabilities[0].programs: lists programs but the rule does not grant spawn (add spawn to grant, or remove programs)"},
		{"hosts empty", minimal + "capabilities:\n  - id: a.b\n    grant: [network]\n    hosts: []\n", "policy.yaml:7:12: capabilities[0].hosts: empty list (omit the field)"},
		{"host with scheme", minimal + "capabilities:\n  - id: a.b\n    grant: [network]\n    hosts: [example.com, 'https://example.com']\n", `policy.yaml:7:26: capabilities[0].hosts[1]: host "https://example.com": want host or host:port, without scheme, user or path`},
		{"host with path", minimal + "capabilities:\n  - id: a.b\n    grant: [network]\n    hosts: [example.com/api]\n", `policy.yaml:7:13: capabilities[0].hosts[0]: host "example.com/api": want host or host:port, without scheme, user or path`},
		{"host inner wildcard", minimal + "capabilities:\n  - id: a.b\n    grant: [network]\n    hosts: ['api.*.com']\n", `policy.yaml:7:13: capabilities[0].hosts[0]: host "api.*.com": the only wildcard allowed is a leading *. (subdomains)`},
		{"host bare wildcard", minimal + "capabilities:\n  - id: a.b\n    grant: [network]\n    hosts: ['*']\n", `policy.yaml:7:13: capabilities[0].hosts[0]: host "*": the only wildcard allowed is a leading *. (subdomains)`},
		{"host bad port", minimal + "capabilities:\n  - id: a.b\n    grant: [network]\n    hosts: ['example.com:70000']\n", `policy.yaml:7:13: capabilities[0].hosts[0]: host "example.com:70000": port "70000" is not a number from 1 to 65535`},
		{"host IPv6 without brackets", minimal + "capabilities:\n  - id: a.b\n    grant: [network]\n    hosts: ['::1']\n", `policy.yaml:7:13: capabilities[0].hosts[0]: host "::1": an IPv6 address must be written in brackets, [::1]:8080`},
		{"host duplicate after lower-casing", minimal + "capabilities:\n  - id: a.b\n    grant: [network]\n    hosts: [example.com, Example.COM]\n", `policy.yaml:7:26: capabilities[0].hosts[1]: duplicate example.com`},
		{"program relative", minimal + "capabilities:\n  - id: a.b\n    grant: [spawn]\n    programs: [git]\n", `policy.yaml:7:16: capabilities[0].programs[0]: program "git": want an absolute path such as /usr/bin/git`},
		{"program not clean", minimal + "capabilities:\n  - id: a.b\n    grant: [spawn]\n    programs: [/usr/bin/../bin/sh]\n", `policy.yaml:7:16: capabilities[0].programs[0]: program "/usr/bin/../bin/sh": want a clean absolute path to a program (no trailing /, //, . or ..)`},
		{"expires no unit", minimal + "catalog:\n  expires: 90\n", `policy.yaml:5:12: catalog.expires: duration "90": want a whole number and one unit d, h or m (e.g. 90d, 36h, 30m)`},
		{"expires go syntax", minimal + "catalog:\n  expires: 1h30m\n", `policy.yaml:5:12: catalog.expires: duration "1h30m": want a whole number and one unit d, h or m (e.g. 90d, 36h, 30m)`},
		{"expires zero", minimal + "catalog:\n  expires: 0d\n", `policy.yaml:5:12: catalog.expires: duration "0d": must be at least 1m`},
		{"expires too long", minimal + "catalog:\n  expires: 1826d\n", `policy.yaml:5:12: catalog.expires: duration "1826d": longer than the maximum 1825d`},
		{"expires overflow", minimal + "catalog:\n  expires: 99999999999999999999m\n", `policy.yaml:5:12: catalog.expires: duration "99999999999999999999m": longer than the maximum 1825d`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("policy.yaml", []byte(tt.src))
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Parse(%q) = %v;\nwant %s", tt.src, err, tt.want)
			}
			var pe *Error
			if !errors.As(err, &pe) || !errors.Is(err, ErrInvalid) {
				t.Errorf("Parse error %v is not an *Error in ErrInvalid", err)
			}
		})
	}
}

var platformList = func() string {
	var s []string
	for _, p := range index.Platforms {
		s = append(s, string(p))
	}
	return "[" + strings.Join(s, " ") + "]"
}()

func TestParseReportsEveryProblem(t *testing.T) {
	src := `version: 2
platforms: [linux]
extensions:
  - id: redhat
    versions: ">=1 <"
  - id: a.b
    latest: 0
exclude: ["*"]
maxVsixBytes: 0
capabilities:
  - id: a.b
    grant: [net]
catalog:
  expires: 0d
`
	_, err := Parse("p.yaml", []byte(src))
	if err == nil {
		t.Fatal("Parse = nil; want errors")
	}
	var got []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		pe := e.(*Error)
		got = append(got, pe.Field)
	}
	want := []string{"version", "platforms[0]", "extensions[0].id", "extensions[0].versions", "extensions[1].latest", "exclude[0]", "maxVsixBytes", "capabilities[0].grant[0]", "catalog.expires"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s\nerror:\n%v", diff, err)
	}
}

func TestParseTooLarge(t *testing.T) {
	src := minimal + "#" + strings.Repeat("x", MaxFileBytes)
	_, err := Parse("big.yaml", []byte(src))
	if want := "big.yaml: file is larger than 1048576 bytes"; err == nil || err.Error() != want {
		t.Fatalf("Parse(big) = %v; want %q", err, want)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "policy.yaml")
	filetest.WriteFile(t, good, []byte(minimal))
	p, err := Load(good)
	if err != nil {
		t.Fatalf("Load(%s) = %v", good, err)
	}
	// printf 'version: 1\nextensions:\n  - id: redhat.java\n' | sha256sum
	if want := "sha256:ef8a7761d84b31fe31806938c3758545cf48097f0669bd18039332f9fffcceed"; p.Digest() != want {
		t.Errorf("Digest() = %s; want %s", p.Digest(), want)
	}
	if p.Name() != good {
		t.Errorf("Name() = %q; want %q", p.Name(), good)
	}

	big := filepath.Join(dir, "big.yaml")
	filetest.WriteFile(t, big, []byte(minimal+strings.Repeat("#", MaxFileBytes)))
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Load(big) = %v; want too large", err)
	}

	bad := filepath.Join(dir, "bad.yaml")
	filetest.WriteFile(t, bad, []byte(minimal+"latst: 1\n"))
	if _, err := Load(bad); err == nil || err.Error() != bad+`:4:1: unknown field "latst"` {
		t.Errorf("Load(bad) = %v", err)
	}

	_, err = Load(filepath.Join(dir, "missing.yaml"))
	if err == nil || errors.Is(err, ErrInvalid) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(missing) = %v; want a not-exist error outside ErrInvalid", err)
	}
}

func TestDigestOfRawBytes(t *testing.T) {
	a := mustParse(t, minimal)
	b := mustParse(t, minimal+"# a comment\n")
	if a.Digest() == b.Digest() {
		t.Errorf("Digest ignores a comment; want the digest of the bytes")
	}
	c := mustParse(t, "\ufeff"+minimal)
	if a.Digest() == c.Digest() {
		t.Errorf("Digest ignores a byte order mark; want the digest of the bytes")
	}
}
