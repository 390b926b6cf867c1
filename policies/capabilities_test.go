package policies

import (
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index"
)

func TestCapabilities(t *testing.T) {
	p := mustParse(t, `version: 1
extensions: [{id: "*.*"}]
capabilities:
  - id: redhat.java
    versions: ">=1.30.0"
    grant: [spawn]
    declare: [spawn]
  - id: redhat.*
    grant: [network]
  - id: acme.tool
    versions: "<2.0.0"
    grant: [fsWide, spawn]
`)
	set := index.NewCapabilitySet
	const (
		net   = index.Network
		spawn = index.Spawn
		fs    = index.FSWide
	)
	tests := []struct {
		name     string
		id, v    string
		declared index.CapabilitySet
		want     Grant
	}{
		{
			name: "nothing matches: nothing granted",
			id:   "ms-python.python", v: "1.0.0", declared: set(net, spawn),
			want: Grant{Declared: set(net, spawn)},
		},
		{
			name: "rules add up; policy declares spawn",
			id:   "redhat.java", v: "1.31.0", declared: nil,
			want: Grant{DeclaredByPolicy: set(spawn), Granted: set(net, spawn), Effective: set(spawn)},
		},
		{
			name: "declared and granted",
			id:   "RedHat.Java", v: "1.31.0", declared: set(net, fs),
			want: Grant{Declared: set(net, fs), DeclaredByPolicy: set(spawn), Granted: set(net, spawn), Effective: set(net, spawn)},
		},
		{
			name: "version outside the first rule",
			id:   "redhat.java", v: "1.29.0", declared: set(spawn, net),
			want: Grant{Declared: set(net, spawn), Granted: set(net), Effective: set(net)},
		},
		{
			name: "pre-release inside the range counts",
			id:   "acme.tool", v: "1.5.0-beta.1", declared: set(fs),
			want: Grant{Declared: set(fs), Granted: set(spawn, fs), Effective: set(fs)},
		},
		{
			name: "granted but not declared is not effective",
			id:   "acme.tool", v: "1.0.0", declared: nil,
			want: Grant{Granted: set(spawn, fs)},
		},
		{
			name: "declared set is normalized",
			id:   "acme.tool", v: "1.0.0", declared: index.CapabilitySet{fs, spawn, fs},
			want: Grant{Declared: set(spawn, fs), Granted: set(spawn, fs), Effective: set(spawn, fs)},
		},
		{
			name: "unknown declared capability is dropped",
			id:   "acme.tool", v: "1.0.0", declared: index.CapabilitySet{"root", spawn},
			want: Grant{Declared: set(spawn), Granted: set(spawn, fs), Effective: set(spawn)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := p.Capabilities(index.MustParseID(tt.id), semver.MustParse(tt.v), tt.declared)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Capabilities(%s, %s, %v) (-want +got):\n%s", tt.id, tt.v, tt.declared, diff)
			}
		})
	}
	// A nil version matches only rules for any version.
	got := p.Capabilities(index.MustParseID("redhat.java"), nil, set(spawn, net))
	if diff := cmp.Diff(set(net), got.Granted); diff != "" {
		t.Errorf("Capabilities(nil version).Granted (-want +got):\n%s", diff)
	}
}

func TestGrantedBy(t *testing.T) {
	p := mustParse(t, `version: 1
extensions: [{id: "*.*"}]
capabilities:
  - id: redhat.java
    versions: ">=1.30.0"
    grant: [spawn]
    declare: [spawn]
  - id: redhat.*
    grant: [network, spawn]
  - id: acme.tool
    grant: [fsWide]
`)
	set := index.NewCapabilitySet
	tests := []struct {
		name     string
		id, v    string
		declared index.CapabilitySet
		want     []RuleGrant
	}{
		{"nothing granted", "ms-python.python", "1.0.0", set(index.Network), nil},
		{"first granting rule, declared by policy", "redhat.java", "1.31.0", nil,
			[]RuleGrant{{index.Spawn, 0, "capabilities[0] (redhat.java >=1.30.0)", true}}},
		{"each capability its own rule", "redhat.java", "1.31.0", set(index.Network),
			[]RuleGrant{{index.Network, 1, "capabilities[1] (redhat.*)", false}, {index.Spawn, 0, "capabilities[0] (redhat.java >=1.30.0)", true}}},
		{"first rule out of range: the second grants", "redhat.java", "1.0.0", set(index.Spawn),
			[]RuleGrant{{index.Spawn, 1, "capabilities[1] (redhat.*)", false}}},
		{"granted but not declared", "acme.tool", "1.0.0", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := p.GrantedBy(index.MustParseID(tt.id), semver.MustParse(tt.v), tt.declared)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("GrantedBy(%s, %s, %v) mismatch (-want +got):\n%s", tt.id, tt.v, tt.declared, diff)
			}
		})
	}
}

func TestCapabilitiesHostsAndPrograms(t *testing.T) {
	p := mustParse(t, `version: 1
extensions: [{id: "*.*"}]
capabilities:
  - id: acme.*
    grant: [network]
    hosts: [API.acme.com, "127.0.0.1:8080"]
  - id: acme.fetcher
    versions: "<2"
    grant: [network, spawn]
    hosts: [api.acme.com, "*.cdn.acme.com"]
    programs: [/usr/bin/git]
  - id: acme.fetcher
    grant: [spawn]
    programs: [/bin/sh, /usr/bin/git]
`)
	tests := []struct {
		name            string
		id, v           string
		hosts, programs []string
	}{
		{"no rule", "other.x", "1.0.0", nil, nil},
		{"one rule, lower-cased", "acme.other", "1.0.0", []string{"127.0.0.1:8080", "api.acme.com"}, nil},
		{"union of three rules, sorted, once each", "acme.fetcher", "1.0.0",
			[]string{"*.cdn.acme.com", "127.0.0.1:8080", "api.acme.com"}, []string{"/bin/sh", "/usr/bin/git"}},
		{"the rule out of range adds nothing", "acme.fetcher", "2.0.0",
			[]string{"127.0.0.1:8080", "api.acme.com"}, []string{"/bin/sh", "/usr/bin/git"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := p.Capabilities(index.MustParseID(tt.id), semver.MustParse(tt.v), index.NewCapabilitySet(index.Network, index.Spawn))
			if diff := cmp.Diff(tt.hosts, g.Hosts); diff != "" {
				t.Errorf("Capabilities(%s, %s).Hosts (-want +got):\n%s", tt.id, tt.v, diff)
			}
			if diff := cmp.Diff(tt.programs, g.Programs); diff != "" {
				t.Errorf("Capabilities(%s, %s).Programs (-want +got):\n%s", tt.id, tt.v, diff)
			}
		})
	}
}

func TestParseHost(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{in: "example.com", want: "example.com"},
		{in: "API.Example.COM", want: "api.example.com"},
		{in: "127.0.0.1:8080", want: "127.0.0.1:8080"},
		{in: "[::1]:8080", want: "[::1]:8080"},
		{in: "[0:0::1]", want: "[::1]"},
		{in: "*.example.com", want: "*.example.com"},
		{in: "*.example.com:8443", want: "*.example.com:8443"},
		{in: "localhost", want: "localhost"},
		{in: "", err: "empty host"},
		{in: "http://a.com", err: "without scheme"},
		{in: "a.com:", err: `port "" is not a number`},
		{in: "a.com:0", err: `port "0" is not a number`},
		{in: "a.com:080", err: `port "080" is not a number`},
		{in: "*", err: "only wildcard"},
		{in: "*.*.com", err: "only wildcard"},
		{in: "*.1.2.3.4", err: "DNS names only"},
		{in: "-a.com", err: "not a DNS name"},
		{in: "a..com", err: "not a DNS name"},
		{in: "a_b.com", err: "not a DNS name"},
		{in: "[::1", err: "unclosed"},
		{in: "[1.2.3.4]", err: "not an IPv6 address"},
		{in: "[::1]x", err: "want [address]"},
		{in: "user@a.com", err: "without scheme, user"},
	}
	for _, tt := range tests {
		got, err := ParseHost(tt.in)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("ParseHost(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseHost(%q) = %q, %v; want an error containing %q", tt.in, got, err, tt.err)
		}
	}
}

func TestParseProgram(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{"/usr/bin/git", true}, {"/bin/sh", true}, {"/opt/my tool/bin/x", true},
		{"git", false}, {"./git", false}, {"/", false}, {"/usr/bin/", false}, {"//usr/bin/git", false},
		{"/usr/./bin/git", false}, {"/usr/../bin/git", false}, {"/usr/bin/g\nit", false}, {"", false},
	}
	for _, tt := range tests {
		if _, err := ParseProgram(tt.in); (err == nil) != tt.ok {
			t.Errorf("ParseProgram(%q) = %v; want ok %v", tt.in, err, tt.ok)
		}
	}
}
