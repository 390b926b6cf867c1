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
	sev := Error
	if p := v.opts.Policy; p != nil && !p.Dependencies {
		sev = Warning
	}
	for _, d := range v.x.deps {
		switch {
		case v.x.present[d.id.Key()]:
		case d.pack:
			v.add(sev, RulePackMember, v.catPath, d.entry, "extension pack member %s is not in the registry", d.id)
		default:
			v.add(sev, RuleDependency, v.catPath, d.entry, "dependency %s is not in the registry", d.id)
		}
	}
}

// policyRow is what the policy check keeps of an entry until every shard
// is read: the policy's closure (withClosure) needs them all.
type policyRow struct {
	entry    string // the entry's name (Entry.String)
	cand     policies.Candidate
	excluded bool
	deps     []index.ID // dependencies and extension pack members
}

// policyEntry checks one entry against the policy's exclusions and
// signature rule, and keeps what the check against the policy with its
// closure needs (checkPolicy).
func (v *registryVerifier) policyEntry(e *index.Entry, name string) {
	p := v.opts.Policy
	row := policyRow{entry: name, cand: candidate(e)}
	if len(e.Dependencies)+len(e.ExtensionPack) > 0 {
		row.deps = append(append([]index.ID{}, e.Dependencies...), e.ExtensionPack...)
	}
	if pat, ok := excludedBy(p, e.ID); ok {
		row.excluded = true
		v.add(Error, RulePolicyExcluded, v.catPath, name, "the policy excludes %s (pattern %s)", e.ID, pat)
	} else if p.RequireUpstreamSignature && !e.Upstream.Signed && e.Local == nil {
		// An entry added by hand has no upstream to sign it: the note
		// (RuleLocalEntry) says so instead.
		v.add(Error, RulePolicyUnsigned, v.catPath, name, "upstream did not sign it and the policy sets requireUpstreamSignature")
	}
	v.x.policy = append(v.x.policy, row)
}

// checkPolicy checks every entry against the policy: no excluded ID, a
// signature when requireUpstreamSignature is set (both checked with
// their shard, policyEntry), and allowed by Match (platforms,
// pre-release, version range, engine, size). Dependencies the policy
// pulls in count as selected, as sync counts them; the latest-N cut is
// not applied, since a registry keeps older versions until pruned.
func (v *registryVerifier) checkPolicy() {
	pol := v.withClosure(v.opts.Policy)
	for _, r := range v.x.policy {
		if r.excluded {
			continue
		}
		c := r.cand
		c.Signed = true // refused by its own rule
		if d := pol.Match(c); !d.Allowed {
			v.add(Error, RulePolicyDenied, v.catPath, r.entry, "the policy does not allow it: %s", d.Reason)
		}
	}
}

// withClosure adds to p the dependencies and pack members of the entries
// p allows, until nothing changes (WithDependencies does nothing unless
// the policy sets dependencies: true).
func (v *registryVerifier) withClosure(p *policies.Policy) *policies.Policy {
	return p.Closure(len(v.x.policy)+1, func(pol *policies.Policy) []index.ID {
		var ds []index.ID
		for _, r := range v.x.policy {
			if len(r.deps) > 0 && pol.Match(r.cand).Allowed {
				ds = append(ds, r.deps...)
			}
		}
		return ds
	})
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
