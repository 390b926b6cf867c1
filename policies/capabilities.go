package policies

import (
	"slices"

	"github.com/Masterminds/semver/v3"

	"github.com/airvsx/airvsx/index"
)

// Grant is what Capabilities decides for one extension version.
type Grant struct {
	// Declared is what the extension declares in its package.json.
	Declared index.CapabilitySet
	// DeclaredByPolicy is what the policy declares on its behalf.
	DeclaredByPolicy index.CapabilitySet
	// Granted is what the policy allows it.
	Granted index.CapabilitySet
	// Effective is what it gets: (Declared ∪ DeclaredByPolicy) ∩ Granted.
	Effective index.CapabilitySet
	// Hosts are the hosts the network broker may reach for it and
	// Programs the programs the spawn broker may start for it: the
	// unions, sorted, over the rules that apply. They matter only when
	// Effective holds network (Hosts) or spawn (Programs).
	Hosts    []string
	Programs []string
}

// Capabilities decides the capabilities of version v of extension id,
// which declares declared. Every CapabilityRules entry whose ID matches
// id and whose range admits v (pre-releases included) contributes: grants
// and declarations are unions over those rules, so a later rule can add
// but never take away. Nothing is granted by default. Exclusion is not
// considered here (Match refuses excluded extensions). Capabilities is pure.
func (p *Policy) Capabilities(id index.ID, v *semver.Version, declared index.CapabilitySet) Grant {
	g := Grant{Declared: index.NewCapabilitySet(declared...)}
	for _, r := range p.CapabilityRules {
		if !r.applies(id, v) {
			continue
		}
		g.Granted = g.Granted.Union(r.Grant)
		g.DeclaredByPolicy = g.DeclaredByPolicy.Union(r.Declare)
		g.Hosts = append(g.Hosts, r.Hosts...)
		g.Programs = append(g.Programs, r.Programs...)
	}
	slices.Sort(g.Hosts)
	g.Hosts = slices.Compact(g.Hosts)
	slices.Sort(g.Programs)
	g.Programs = slices.Compact(g.Programs)
	g.Effective = g.Declared.Union(g.DeclaredByPolicy).Intersect(g.Granted)
	return g
}

// applies reports whether the rule covers version v of id (a nil v only
// matches rules for any version).
func (r CapabilityRule) applies(id index.ID, v *semver.Version) bool {
	return r.ID.Match(id) && r.Versions.Check(v, true)
}
