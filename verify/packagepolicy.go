package verify

import (
	"fmt"
	"strings"

	"github.com/airvsx/airvsx/policies"
)

// The verdicts of a policy on a single package (PackagePolicy.Verdict).
const (
	// VerdictAllowed: a rule of the policy names the package's ID and
	// admits this build.
	VerdictAllowed = "allowed"
	// VerdictDependency: no rule names the ID, but the policy sets
	// dependencies: true and would admit this build as a dependency or
	// extension-pack member of an extension it selects. Whether one does
	// cannot be told from the file alone.
	VerdictDependency = "dependency"
	// VerdictDenied: the policy would not admit the package (an exclude
	// pattern, no rule, or the rule's or policy's limits).
	VerdictDenied = "denied"
)

// PackagePolicy is what a policy would do with a single package.
type PackagePolicy struct {
	// Verdict is VerdictAllowed, VerdictDependency or VerdictDenied.
	Verdict string `json:"verdict"`
	// Rule is what decided, as the policy file has it: "rule 0
	// (ns.name)" for a rule of extensions (counted from 0), "exclude
	// evil.*" for an exclude pattern; omitted when no rule names the ID.
	Rule string `json:"rule,omitempty"`
	// Reason says why, for people.
	Reason string `json:"reason"`
}

// Line is the verdict in the text report: "allowed by rule 0 (ns.name)",
// "admitted only as a dependency or extension-pack member of ..." or
// "denied: <reason>".
func (v *PackagePolicy) Line() string {
	switch v.Verdict {
	case VerdictAllowed:
		return v.Reason
	case VerdictDependency:
		return "admitted only as a dependency or extension-pack member of an extension the policy selects (no rule names it directly)"
	}
	return v.Verdict + ": " + v.Reason
}

// packagePolicy decides what pol would do with the package c (its Signed
// as verified), the way sync and the registry check decide: an exclude
// pattern wins; else the first rule that names the ID decides; else, when
// pol sets dependencies: true, the rule WithDependencies gives a
// dependency decides. The latest-N cut is not applied. It records each
// reason for refusal as an error, and a dependency-only admission as a
// policy-dependency-only warning, through add.
func packagePolicy(pol *policies.Policy, c policies.Candidate, add func(sev Severity, rule Rule, fix, format string, args ...any)) *PackagePolicy {
	if pat, ok := excludedBy(pol, c.ID); ok {
		add(Error, RulePolicyExcluded, fixPackageExcluded, "the policy excludes %s (pattern %s)", c.ID, pat)
		return &PackagePolicy{Verdict: VerdictDenied, Rule: "exclude " + pat, Reason: "excluded by " + pat}
	}
	var refused []string
	if pol.RequireUpstreamSignature && !c.Signed {
		add(Error, RulePolicyUnsigned, fixPackageUnsigned, "no verified upstream signature (pass --sigzip and --openvsx-key) and the policy sets requireUpstreamSignature")
		refused = append(refused, "no verified upstream signature and requireUpstreamSignature is set")
	}
	c.Signed = true // refused above, by its own rule

	direct := pol.Wants(c.ID) // not excluded: a rule names the ID
	p := pol.WithDependencies(c.ID)
	d := p.Match(c)
	var v PackagePolicy
	switch {
	case direct:
		v.Rule = fmt.Sprintf("rule %d (%s)", d.Rule, p.Extensions[d.Rule].ID)
		if !d.Allowed {
			add(Error, RulePolicyDenied, fixPackagePolicy, "the policy does not allow it: %s", d.Reason)
			refused = append(refused, d.Reason)
		}
	case d.Rule < 0: // dependencies: false
		fix := fmt.Sprintf("do not install this file, or, if it should be allowed, add a rule for it to the policy's extensions (- id: %s)", c.ID)
		add(Error, RulePolicyDenied, fix, "the policy does not allow it: no rule matches %s, and the policy sets dependencies: false, so it does not enter a registry as a dependency either", c.ID)
		refused = append(refused, "no rule matches")
	case !d.Allowed:
		add(Error, RulePolicyDenied, fixPackagePolicy, "the policy does not allow it: no rule names %s directly, and as a dependency or extension-pack member it is refused: %s", c.ID, dependencyReason(d.Reason))
		refused = append(refused, "no rule names it; as a dependency: "+dependencyReason(d.Reason))
	}
	switch {
	case len(refused) > 0:
		v.Verdict, v.Reason = VerdictDenied, strings.Join(refused, "; ")
	case direct:
		v.Verdict, v.Reason = VerdictAllowed, "allowed by "+v.Rule
	default:
		v.Verdict = VerdictDependency
		v.Reason = "no rule names it directly; admitted only as a dependency or extension-pack member of an extension the policy selects (dependencies: true)"
		fix := fmt.Sprintf("install this file only together with the selected extension that depends on it or lists it in its pack; to allow it on its own, add a rule for it to the policy's extensions (- id: %s)", c.ID)
		add(Warning, RulePolicyDependencyOnly, fix,
			"no rule names %s directly: the policy admits it only as a dependency or extension-pack member of an extension it selects (dependencies: true), so it enters a registry only when a selected extension depends on it or lists it in its pack", c.ID)
	}
	return &v
}

// dependencyReason drops the rule number from a reason about the rule
// WithDependencies appended: that rule is not in the policy file.
func dependencyReason(reason string) string {
	if i := strings.Index(reason, " by rule "); i >= 0 && strings.HasSuffix(reason, ", a dependency)") {
		return reason[:i] + " for dependencies"
	}
	return reason
}
