package policies

import (
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
