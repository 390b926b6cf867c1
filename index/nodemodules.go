package index

import (
	_ "embed"
	"fmt"
	"slices"
	"sync"

	"github.com/airvsx/airvsx/internal/strictjson"
)

// nodeModulesJSON is the one map of which Node built-in module needs which
// capability, read by Go (NodeModules) and by the extension host's
// JavaScript (written beside its scripts as node-modules.json).
//
//go:embed nodemodules.json
var nodeModulesJSON []byte

// NodeModule is a Node built-in module an extension needs a capability for.
type NodeModule struct {
	// Module is the module's name, without "node:".
	Module string `json:"module"`
	// Capability is what lets an extension use the module.
	Capability Capability `json:"capability"`
	// Finding is the kind of the static finding (index/vsix) a require or
	// import of the module is reported as; "" when using it is no finding
	// (fs: without fsWide the host gives a checked fs).
	Finding string `json:"finding,omitempty"`
	// Why says what the module can do that needs the capability.
	Why string `json:"why"`
}

type nodeModulesFile struct {
	Doc     string       `json:"doc"`
	Modules []NodeModule `json:"modules"`
}

var parseNodeModules = sync.OnceValues(func() ([]NodeModule, error) {
	return decodeNodeModules(nodeModulesJSON)
})

// decodeNodeModules parses and checks a nodemodules.json.
func decodeNodeModules(b []byte) ([]NodeModule, error) {
	var f nodeModulesFile
	if err := strictjson.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("nodemodules.json: %w", err)
	}
	seen := make(map[string]bool)
	for i, m := range f.Modules {
		switch {
		case m.Module == "":
			return nil, fmt.Errorf("nodemodules.json: modules[%d].module is empty", i)
		case seen[m.Module]:
			return nil, fmt.Errorf("nodemodules.json: modules[%d].module: %q is listed twice", i, m.Module)
		case m.Capability == "":
			return nil, fmt.Errorf("nodemodules.json: modules[%d].capability is empty (module %q)", i, m.Module)
		}
		seen[m.Module] = true
	}
	return f.Modules, nil
}

// NodeModules returns the Node built-in modules that need a capability,
// in the order of nodemodules.json. The caller may modify the slice.
func NodeModules() []NodeModule {
	ms, err := parseNodeModules()
	if err != nil {
		// The file is embedded and TestNodeModules parses it: only a
		// broken build gets here.
		panic(err)
	}
	return slices.Clone(ms)
}

// NodeModulesJSON returns nodemodules.json as embedded, for the extension
// host (hostlaunch/host writes it beside its scripts).
func NodeModulesJSON() []byte { return slices.Clone(nodeModulesJSON) }
