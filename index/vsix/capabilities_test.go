package vsix

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index"
)

func TestCapabilities(t *testing.T) {
	tests := []struct {
		name        string
		caps        any
		want        []ruleHit
		wantDecl    index.CapabilitySet
		wantUnknown []string
	}{
		{"none", nil, nil, nil, nil},
		{"vscode keys only", map[string]any{"untrustedWorkspaces": map[string]any{"supported": true}, "virtualWorkspaces": false}, nil, nil, nil},
		{"all ours", map[string]any{"network": true, "spawn": true, "fsWide": true}, nil,
			index.CapabilitySet{index.Network, index.Spawn, index.FSWide}, nil},
		{"false is not declared", map[string]any{"network": false, "spawn": true}, nil, index.CapabilitySet{index.Spawn}, nil},
		{"network a string", map[string]any{"network": "true"},
			[]ruleHit{errHit(RuleInvalidCapability, "capabilities.network")}, nil, nil},
		{"spawn a number", map[string]any{"spawn": 1, "fsWide": nil},
			[]ruleHit{errHit(RuleInvalidCapability, "capabilities.fsWide"), errHit(RuleInvalidCapability, "capabilities.spawn")}, nil, nil},
		{"unknown key is denied", map[string]any{"camera": true, "network": true, "Network": true},
			[]ruleHit{warnHit(RuleUnknownCapability, "capabilities.Network"), warnHit(RuleUnknownCapability, "capabilities.camera")},
			index.CapabilitySet{index.Network}, []string{"Network", "camera"}},
		{"not an object", []any{"network"}, []ruleHit{errHit(RuleFieldType, "capabilities")}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edit := delFields("capabilities")
			if tt.caps != nil {
				edit = setField("capabilities", tt.caps)
			}
			data := manifestBytes(t, edit)
			var r Report
			m, err := ParseManifest(data, &r)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, ruleHits(&r)); diff != "" {
				t.Errorf("ParseManifest(%q) problems (-want +got):\n%s", data, diff)
			}
			if diff := cmp.Diff(tt.wantDecl, m.DeclaredCapabilities()); diff != "" {
				t.Errorf("ParseManifest(%q).DeclaredCapabilities() (-want +got):\n%s", data, diff)
			}
			if diff := cmp.Diff(tt.wantUnknown, m.Capabilities.Unknown); diff != "" {
				t.Errorf("ParseManifest(%q).Capabilities.Unknown (-want +got):\n%s", data, diff)
			}
			assertRoundTrip(t, data)
		})
	}
}
