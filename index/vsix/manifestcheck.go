package vsix

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/airvsx/airvsx/index"
)

// The checks of the single fields of package.json: names, version,
// entry points, engines, dependency lists and extensionKind.

func (p *jsonParser) checkName(field, s string) {
	if s != "" && !index.ValidName(s) {
		p.errorf(field, RuleInvalidName, "%q: want 1-%d of A-Z a-z 0-9 _ - + $ ~", s, index.MaxNameLen)
	}
}

func (p *jsonParser) checkVersion(s string) {
	if s == "" {
		return
	}
	if _, err := index.ParseVersion(s); err != nil {
		p.errorf("version", RuleInvalidVersion, "%v", err)
	}
}

func (p *jsonParser) checkEntryPoint(field, s string) {
	if s == "" {
		return
	}
	if _, ok := entryPoint(s); !ok {
		p.errorf(field, RuleInvalidEntryPoint, "%q: want a relative path inside the extension", s)
	}
}

func (p *jsonParser) engines(raw json.RawMessage) map[string]string {
	obj, ok := p.object("engines", raw, runtimeField)
	if !ok {
		return nil
	}
	out := make(map[string]string, len(obj))
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		v := obj[k]
		sev := displayField
		if k == "vscode" {
			sev = runtimeField
		}
		if s := p.str("engines."+k, v, sev); s != "" || jsonKind(v) == "string" {
			out[k] = s
		}
	}
	switch s, ok := out["vscode"]; {
	case !ok && jsonKind(obj["vscode"]) == "":
		p.errorf("engines.vscode", RuleRequiredField, "engines.vscode is required")
	case ok && s == "":
		p.errorf("engines.vscode", RuleRequiredField, "engines.vscode is required")
	case ok:
		if _, err := index.ParseEngineRange(s); err != nil {
			p.errorf("engines.vscode", RuleInvalidEngine, "%v", err)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func (p *jsonParser) idList(field string, raw json.RawMessage) []string {
	ids := p.strList(field, raw, runtimeField)
	for i, s := range ids {
		if _, err := index.ParseID(s); err != nil {
			p.errorf(fmt.Sprintf("%s[%d]", field, i), RuleInvalidDependency, "%v", err)
		}
	}
	return ids
}

// extensionKinds are the values VS Code knows for extensionKind.
var extensionKinds = []string{"ui", "workspace", "web"}

func (p *jsonParser) extensionKind(raw json.RawMessage) []string {
	var kinds []string
	if jsonKind(raw) == "string" {
		if s := p.str("extensionKind", raw, runtimeField); s != "" {
			kinds = []string{s}
		}
	} else {
		kinds = p.strList("extensionKind", raw, runtimeField)
	}
	for _, k := range kinds {
		if !slices.Contains(extensionKinds, k) {
			p.warnf("extensionKind", RuleUnknownExtensionKind, "%q: want one of %v", k, extensionKinds)
		}
	}
	return kinds
}
