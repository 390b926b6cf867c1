package vsix

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/airvsx/airvsx/index"
)

// Rules for package.json capabilities.
const (
	// RuleInvalidCapability: capabilities.network, .spawn or .fsWide is not
	// a boolean.
	RuleInvalidCapability Rule = "invalid-capability"
	// RuleUnknownCapability (warning): a capabilities key that is neither
	// VS Code's nor airvsx's. It is treated as denied.
	RuleUnknownCapability Rule = "unknown-capability"
)

// ManifestCapabilities is package.json "capabilities": VS Code's own keys,
// kept as written, and the capabilities airvsx knows (index.Capabilities),
// which must be booleans.
type ManifestCapabilities struct {
	UntrustedWorkspaces json.RawMessage `json:"untrustedWorkspaces,omitempty"`
	VirtualWorkspaces   json.RawMessage `json:"virtualWorkspaces,omitempty"`
	Network             bool            `json:"network,omitempty"`
	Spawn               bool            `json:"spawn,omitempty"`
	FSWide              bool            `json:"fsWide,omitempty"`
	// Unknown lists any other keys, sorted. They grant nothing.
	Unknown []string `json:"-"`
}

func (c ManifestCapabilities) isZero() bool {
	return c.UntrustedWorkspaces == nil && c.VirtualWorkspaces == nil &&
		!c.Network && !c.Spawn && !c.FSWide && len(c.Unknown) == 0
}

// MarshalJSON writes the capabilities object; an unknown key is written as
// true.
func (c ManifestCapabilities) MarshalJSON() ([]byte, error) {
	obj := make(map[string]json.RawMessage)
	for _, k := range c.Unknown {
		obj[k] = json.RawMessage("true")
	}
	if c.UntrustedWorkspaces != nil {
		obj["untrustedWorkspaces"] = c.UntrustedWorkspaces
	}
	if c.VirtualWorkspaces != nil {
		obj["virtualWorkspaces"] = c.VirtualWorkspaces
	}
	for _, b := range []struct {
		c  index.Capability
		on bool
	}{{index.Network, c.Network}, {index.Spawn, c.Spawn}, {index.FSWide, c.FSWide}} {
		if b.on {
			obj[string(b.c)] = json.RawMessage("true")
		}
	}
	return json.Marshal(obj)
}

// DeclaredCapabilities returns the airvsx capabilities the manifest asks
// for (capabilities.network, .spawn, .fsWide set to true).
func (m *Manifest) DeclaredCapabilities() index.CapabilitySet {
	var cs []index.Capability
	c := m.Capabilities
	if c.Network {
		cs = append(cs, index.Network)
	}
	if c.Spawn {
		cs = append(cs, index.Spawn)
	}
	if c.FSWide {
		cs = append(cs, index.FSWide)
	}
	return index.NewCapabilitySet(cs...)
}

func (p *jsonParser) capabilities(raw json.RawMessage) ManifestCapabilities {
	obj, ok := p.object("capabilities", raw, runtimeField)
	if !ok {
		return ManifestCapabilities{}
	}
	var c ManifestCapabilities
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		v := obj[k]
		field := "capabilities." + k
		switch k {
		case "untrustedWorkspaces":
			c.UntrustedWorkspaces = canonJSON(v)
		case "virtualWorkspaces":
			c.VirtualWorkspaces = canonJSON(v)
		case string(index.Network), string(index.Spawn), string(index.FSWide):
			if jsonKind(v) != "boolean" {
				p.errorf(field, RuleInvalidCapability, "want a boolean, got %s", jsonKindName(v))
				continue
			}
			var on bool
			_ = json.Unmarshal(v, &on)
			switch index.Capability(k) {
			case index.Network:
				c.Network = on
			case index.Spawn:
				c.Spawn = on
			case index.FSWide:
				c.FSWide = on
			}
		default:
			c.Unknown = append(c.Unknown, k)
		}
	}
	slices.Sort(c.Unknown)
	for _, k := range c.Unknown {
		p.warnf("capabilities."+k, RuleUnknownCapability,
			"unknown capability %q is treated as denied (airvsx knows %v)", k, index.Capabilities)
	}
	return c
}
