package index

import (
	"fmt"
	"slices"
)

// Capability is a power an extension host process may be given. All are
// denied by default; a policy grants them per extension.
type Capability string

// The capabilities airvsx knows. An extension declares them in its
// package.json "capabilities" object; any other key there is denied.
const (
	// Network lets the extension make outbound requests (through the
	// broker's allow-listed fetch, never raw sockets).
	Network Capability = "network"
	// Spawn lets the extension run programs (through the broker, each under
	// its own sandbox).
	Spawn Capability = "spawn"
	// FSWide lets the extension touch the filesystem beyond the workspace
	// and its own directories.
	FSWide Capability = "fsWide"
)

// Capabilities is every known capability, in a fixed order.
var Capabilities = []Capability{Network, Spawn, FSWide}

// ParseCapability parses a capability name, rejecting unknown ones.
func ParseCapability(s string) (Capability, error) {
	c := Capability(s)
	if !slices.Contains(Capabilities, c) {
		return "", fmt.Errorf("unknown capability %q (want one of %v)", s, Capabilities)
	}
	return c, nil
}

// UnmarshalText parses a capability name, rejecting unknown ones.
func (c *Capability) UnmarshalText(b []byte) error {
	v, err := ParseCapability(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// CapabilitySet is a set of capabilities, kept sorted in the order of
// Capabilities and free of duplicates.
type CapabilitySet []Capability

// NewCapabilitySet returns the normalized set of cs.
func NewCapabilitySet(cs ...Capability) CapabilitySet {
	var out CapabilitySet
	for _, c := range Capabilities {
		if slices.Contains(cs, c) {
			out = append(out, c)
		}
	}
	return out
}

// Has reports whether c is in the set.
func (s CapabilitySet) Has(c Capability) bool { return slices.Contains(s, c) }

// Intersect returns the capabilities in both s and t.
func (s CapabilitySet) Intersect(t CapabilitySet) CapabilitySet {
	var out CapabilitySet
	for _, c := range Capabilities {
		if s.Has(c) && t.Has(c) {
			out = append(out, c)
		}
	}
	return out
}

// Union returns the capabilities in s or t.
func (s CapabilitySet) Union(t CapabilitySet) CapabilitySet {
	return NewCapabilitySet(append(slices.Clone(s), t...)...)
}
