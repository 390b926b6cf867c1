package index

import (
	"strings"
	"testing"
)

// TestNodeModules: the embedded map parses, names each module once, and
// gives each a known capability.
func TestNodeModules(t *testing.T) {
	ms := NodeModules()
	if len(ms) == 0 {
		t.Fatal("NodeModules() is empty")
	}
	byName := make(map[string]Capability)
	for _, m := range ms {
		if strings.HasPrefix(m.Module, "node:") {
			t.Errorf("module %q: want the name without node:", m.Module)
		}
		if _, err := ParseCapability(string(m.Capability)); err != nil {
			t.Errorf("module %q: %v", m.Module, err)
		}
		if m.Why == "" {
			t.Errorf("module %q: why is empty; say what it can do that needs %q", m.Module, m.Capability)
		}
		byName[m.Module] = m.Capability
	}
	// A reviewer's spot checks: what spawns, opens sockets or reaches
	// files needs the matching capability.
	for name, want := range map[string]Capability{
		"child_process": Spawn, "worker_threads": Spawn, "cluster": Spawn,
		"net": Network, "dns/promises": Network, "fs": FSWide,
	} {
		if got := byName[name]; got != want {
			t.Errorf("module %s needs %q; want %q", name, got, want)
		}
	}
	ms[0].Module = "changed"
	if NodeModules()[0].Module == "changed" {
		t.Error("NodeModules returned the shared slice; want a copy")
	}
}

func TestDecodeNodeModules(t *testing.T) {
	for _, tc := range []struct {
		name, json, wantErr string
	}{
		{"ok", `{"doc": "", "modules": [{"module": "net", "capability": "network", "finding": "network", "why": "sockets"}]}`, ""},
		{"unknown capability", `{"modules": [{"module": "net", "capability": "sockets"}]}`, `unknown capability "sockets"`},
		{"no capability", `{"modules": [{"module": "net"}]}`, `modules[0].capability is empty (module "net")`},
		{"no module", `{"modules": [{"capability": "spawn"}]}`, "modules[0].module is empty"},
		{"twice", `{"modules": [{"module": "net", "capability": "network"}, {"module": "net", "capability": "spawn"}]}`, `modules[1].module: "net" is listed twice`},
		{"unknown field", `{"modules": [{"module": "net", "capability": "network", "needs": "x"}]}`, `unknown field "needs"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeNodeModules([]byte(tc.json))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("decodeNodeModules = %v; want no error", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "nodemodules.json: ") {
				t.Errorf("decodeNodeModules = %v; want an error naming nodemodules.json and %q", err, tc.wantErr)
			}
		})
	}
}
