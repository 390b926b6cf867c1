package policies

import (
	"fmt"

	"github.com/Masterminds/semver/v3"

	"github.com/airvsx/airvsx/index"
)

// RuleGrant names the capability rule that grants one capability.
type RuleGrant struct {
	// Capability is the capability granted.
	Capability index.Capability
	// Rule is the index in CapabilityRules of the first rule (in file
	// order) that applies to the extension version and grants it.
	Rule int
	// Describe names the rule for people: "capabilities[0] (ns.name)",
	// with the version range when the rule has one.
	Describe string
	// DeclaredByPolicy says that the extension does not declare the
	// capability itself: a rule declares it on its behalf.
	DeclaredByPolicy bool
}

// GrantedBy returns, for each capability of Capabilities(id, v,
// declared).Effective in the order of index.Capabilities, the first rule
// that grants it. Later rules that grant it too are not named: grants are
// unions, so removing the first rule would leave the grant in place only
// if another rule also grants it, and the first is the one an admin reads
// first. GrantedBy is pure.
func (p *Policy) GrantedBy(id index.ID, v *semver.Version, declared index.CapabilitySet) []RuleGrant {
	g := p.Capabilities(id, v, declared)
	var out []RuleGrant
	for _, c := range g.Effective {
		for i, r := range p.CapabilityRules {
			if !r.applies(id, v) || !r.Grant.Has(c) {
				continue
			}
			d := fmt.Sprintf("capabilities[%d] (%s)", i, r.ID)
			if !r.Versions.IsAny() {
				d = fmt.Sprintf("capabilities[%d] (%s %s)", i, r.ID, r.Versions)
			}
			out = append(out, RuleGrant{Capability: c, Rule: i, Describe: d, DeclaredByPolicy: !g.Declared.Has(c)})
			break
		}
	}
	return out
}
