package policies

import (
	"slices"
	"testing"

	"github.com/Masterminds/semver/v3"

	"github.com/airvsx/airvsx/index"
)

// TestRuleLine parses each line RuleLine writes as an item of a real
// policy's capabilities and checks it grants what it names.
func TestRuleLine(t *testing.T) {
	id := index.ID{Namespace: "airvsx-demo", Name: "git-helper"}
	tests := []struct {
		name              string
		grant, declare    index.CapabilitySet
		programs, hosts   []string
		want              string
		wantProgs, wantHs []string
	}{
		{"spawn", index.CapabilitySet{index.Spawn}, nil, []string{"/usr/bin/git"}, nil,
			"- {id: airvsx-demo.git-helper, grant: [spawn], programs: [/usr/bin/git]}", []string{"/usr/bin/git"}, nil},
		{"spawn declared by the policy", index.CapabilitySet{index.Spawn}, index.CapabilitySet{index.Spawn}, []string{"/opt/my tools/x"}, nil,
			`- {id: airvsx-demo.git-helper, declare: [spawn], grant: [spawn], programs: ["/opt/my tools/x"]}`, []string{"/opt/my tools/x"}, nil},
		{"spawn, program unknown", index.CapabilitySet{index.Spawn}, nil, nil, nil,
			"- {id: airvsx-demo.git-helper, grant: [spawn], programs: [/ABSOLUTE/PATH/OF/PROGRAM]}", []string{ProgramPlaceholder}, nil},
		{"network", index.CapabilitySet{index.Network}, nil, nil, []string{"*.example.com", "127.0.0.1:8080"},
			`- {id: airvsx-demo.git-helper, grant: [network], hosts: ["*.example.com", "127.0.0.1:8080"]}`, nil, []string{"*.example.com", "127.0.0.1:8080"}},
		{"all", index.CapabilitySet{index.Network, index.Spawn, index.FSWide}, nil, nil, nil,
			"- {id: airvsx-demo.git-helper, grant: [network, spawn, fsWide], programs: [/ABSOLUTE/PATH/OF/PROGRAM], hosts: [HOST]}", []string{ProgramPlaceholder}, []string{"host"}},
		{"fsWide", index.CapabilitySet{index.FSWide}, nil, nil, nil,
			"- {id: airvsx-demo.git-helper, grant: [fsWide]}", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := RuleLine(id, tt.grant, tt.declare, tt.programs, tt.hosts)
			if line != tt.want {
				t.Errorf("RuleLine = %s\nwant       %s", line, tt.want)
			}
			p, err := Parse("p.yaml", []byte("version: 1\nextensions: [{id: airvsx-demo.git-helper}]\ncapabilities:\n  "+line+"\n"))
			if err != nil {
				t.Fatalf("the line does not parse in a policy: %v", err)
			}
			// The extension declares what the rule grants, unless the rule
			// declares it on its behalf.
			declared := tt.grant
			if tt.declare != nil {
				declared = nil
			}
			g := p.Capabilities(id, semver.MustParse("0.3.0"), declared)
			if !slices.Equal(g.Effective, tt.grant) {
				t.Errorf("effective %v; want %v", g.Effective, tt.grant)
			}
			if !slices.Equal(g.Programs, tt.wantProgs) || !slices.Equal(g.Hosts, tt.wantHs) {
				t.Errorf("programs %v, hosts %v; want %v, %v", g.Programs, g.Hosts, tt.wantProgs, tt.wantHs)
			}
		})
	}
}
