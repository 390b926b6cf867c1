package verify

import (
	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/policies"
)

// checkClosure checks that every extensionDependencies and extensionPack
// member of every entry is in the registry (any version or platform of
// it, as VS Code resolves them by ID). A missing one is an error, or a
// warning when the policy given says dependencies: false (the admin chose
// not to mirror them).
func (v *registryVerifier) checkClosure() {
	present := map[string]bool{}
	for _, e := range v.cat.Entries {
		present[e.ID.Key()] = true
	}
	sev := Error
	if p := v.opts.Policy; p != nil && !p.Dependencies {
		sev = Warning
	}
	for i := range v.cat.Entries {
		e := &v.cat.Entries[i]
		for _, d := range e.Dependencies {
			if !present[d.Key()] {
				v.add(sev, RuleDependency, v.catPath, e.String(), "dependency %s is not in the registry", d)
			}
		}
		for _, d := range e.ExtensionPack {
			if !present[d.Key()] {
				v.add(sev, RulePackMember, v.catPath, e.String(), "extension pack member %s is not in the registry", d)
			}
		}
	}
}

// checkPolicy checks every entry against the policy: no excluded ID, a
// signature when requireUpstreamSignature is set, and allowed by Match
// (platforms, pre-release, version range, engine, size). Dependencies the
// policy pulls in count as selected, as sync counts them; the latest-N
// cut is not applied, since a registry keeps older versions until pruned.
func (v *registryVerifier) checkPolicy() {
	p := v.opts.Policy
	pol := v.withClosure(p)
	for i := range v.cat.Entries {
		e := &v.cat.Entries[i]
		if pat, ok := excludedBy(p, e.ID); ok {
			v.add(Error, RulePolicyExcluded, v.catPath, e.String(), "the policy excludes %s (pattern %s)", e.ID, pat)
			continue
		}
		if p.RequireUpstreamSignature && !e.Upstream.Signed {
			v.add(Error, RulePolicyUnsigned, v.catPath, e.String(), "upstream did not sign it and the policy sets requireUpstreamSignature")
		}
		c := candidate(e)
		c.Signed = true // refused above, by its own rule
		if d := pol.Match(c); !d.Allowed {
			v.add(Error, RulePolicyDenied, v.catPath, e.String(), "the policy does not allow it: %s", d.Reason)
		}
	}
}

// withClosure adds to p the dependencies and pack members of the entries
// p allows, until nothing changes (WithDependencies does nothing unless
// the policy sets dependencies: true).
func (v *registryVerifier) withClosure(p *policies.Policy) *policies.Policy {
	pol := p
	seen := map[string]bool{}
	for range len(v.cat.Entries) + 1 {
		var more []index.ID
		for i := range v.cat.Entries {
			e := &v.cat.Entries[i]
			if !pol.Match(candidate(e)).Allowed {
				continue
			}
			for _, d := range append(append([]index.ID{}, e.Dependencies...), e.ExtensionPack...) {
				if !seen[d.Key()] {
					seen[d.Key()] = true
					more = append(more, d)
				}
			}
		}
		if len(more) == 0 {
			break
		}
		pol = pol.WithDependencies(more...)
	}
	return pol
}

func excludedBy(p *policies.Policy, id index.ID) (string, bool) {
	for _, pat := range p.Exclude {
		if pat.Match(id) {
			return pat.String(), true
		}
	}
	return "", false
}

// candidate describes an entry as policies.Match sees an upstream build.
func candidate(e *index.Entry) policies.Candidate {
	ver, _ := e.SemVer()
	eng, _ := index.ParseEngineRange(e.Engine)
	return policies.Candidate{ID: e.ID, Version: ver, Platform: e.Platform, PreRelease: e.PreRelease, Engine: eng, Signed: e.Upstream.Signed, Size: e.VsixSize}
}
