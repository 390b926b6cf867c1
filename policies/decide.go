package policies

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/Masterminds/semver/v3"

	"github.com/airvsx/airvsx/index"
)

// Candidate is one build of one extension version the upstream offers: the
// input to Match and Select.
type Candidate struct {
	// ID is the extension.
	ID index.ID
	// Version is the extension version; nil is refused.
	Version *semver.Version
	// Platform is the build's target platform; "" means universal.
	Platform index.Platform
	// PreRelease is the upstream pre-release flag. A version with a SemVer
	// pre-release part counts as a pre-release too.
	PreRelease bool
	// Engine is the build's engines.vscode.
	Engine index.EngineRange
	// Signed reports whether the upstream signed the build.
	Signed bool
	// Size is the .vsix size in bytes; 0 or less means unknown and passes
	// (the fetcher enforces MaxVsixBytes while downloading).
	Size int64
}

func (c Candidate) platform() index.Platform {
	if c.Platform == "" {
		return index.Universal
	}
	return c.Platform
}

func (c Candidate) preRelease() bool {
	return c.PreRelease || (c.Version != nil && c.Version.Prerelease() != "")
}

// Decision is the verdict of Match on one candidate.
type Decision struct {
	// Allowed reports whether the policy keeps the candidate (before
	// Select's latest-N cut).
	Allowed bool
	// Rule is the index in Extensions of the rule that matched the ID, -1
	// if none did (or the ID is excluded).
	Rule int
	// Reason says why, for people: "excluded by evil.*", "no rule matches",
	// "allowed by rule 0 (redhat.java)", ...
	Reason string
}

// Match decides one candidate. The checks, in order, each refusing with its
// own reason: an Exclude pattern matches the ID (exclude wins over
// everything); no Extensions rule matches the ID (the first that does is
// the rule for the rest); the platform is not in Platforms; the candidate is
// a pre-release and the rule does not admit them; the version is outside
// the rule's range; Editor is set and the candidate's engines.vscode does
// not accept it; RequireUpstreamSignature is set and the candidate is not
// signed; the size exceeds MaxVsixBytes. Match is pure.
func (p *Policy) Match(c Candidate) Decision {
	if pat, ok := p.excludedBy(c.ID); ok {
		return Decision{Rule: -1, Reason: "excluded by " + pat.String()}
	}
	i := p.ruleFor(c.ID)
	if i < 0 {
		return Decision{Rule: -1, Reason: "no rule matches"}
	}
	r := p.Extensions[i]
	refuse := func(format string, args ...any) Decision {
		return Decision{Rule: i, Reason: fmt.Sprintf(format, args...)}
	}
	platforms := p.platforms()
	switch {
	case c.Version == nil:
		return refuse("no version")
	case !slices.Contains(platforms, c.platform()):
		return refuse("platform %s not in %v", c.platform(), platforms)
	case c.preRelease() && !r.PreRelease:
		return refuse("pre-release not allowed by %s", r.describe(i))
	case !r.Versions.Check(c.Version, r.PreRelease):
		return refuse("version %s outside %s", c.Version.Original(), r.Versions)
	case p.Editor != nil && !c.Engine.Allows(p.Editor):
		engine := c.Engine.String()
		if engine == "" {
			engine = "(missing)"
		}
		return refuse("engines.vscode %s does not accept editor %s", engine, p.Editor.Original())
	case p.RequireUpstreamSignature && !c.Signed:
		return refuse("not signed upstream and requireUpstreamSignature is set")
	case c.Size > p.maxVsixBytes():
		return refuse("size %d exceeds maxVsixBytes %d", c.Size, p.maxVsixBytes())
	}
	return Decision{Allowed: true, Rule: i, Reason: "allowed by " + r.describe(i)}
}

func (r Rule) describe(i int) string {
	if r.Dependency {
		return fmt.Sprintf("rule %d (%s, a dependency)", i, r.ID)
	}
	return fmt.Sprintf("rule %d (%s)", i, r.ID)
}

// Select returns the candidates to keep out of all the versions and builds
// of one extension (candidates of several extensions are handled each on
// its own): those Match allows, then, per platform, the builds of the
// newest Latest distinct versions by SemVer precedence, counting releases
// and pre-releases separately (so a run of nightly pre-releases never
// pushes out the newest release). Latest counts versions, not builds: a
// version built for universal and for linux-x64 counts once on each. Two
// candidates for the same extension, version and platform are kept once.
// The result is sorted by version (newest first), then platform (in the
// order of index.Platforms), then ID. Select is pure and does not modify
// cands.
func (p *Policy) Select(cands []Candidate) []Candidate {
	type group struct {
		id   string
		plat index.Platform
		pre  bool
	}
	groups := map[group][]Candidate{}
	latest := map[group]int{}
	for _, c := range cands {
		d := p.Match(c)
		if !d.Allowed {
			continue
		}
		g := group{c.ID.Key(), c.platform(), c.preRelease()}
		groups[g] = append(groups[g], c)
		latest[g] = max(p.Extensions[d.Rule].Latest, 1)
	}
	var out []Candidate
	for g, cs := range groups {
		slices.SortStableFunc(cs, byVersionDesc)
		kept := 0
		for i, c := range cs {
			if i > 0 && cs[i-1].Version.Equal(c.Version) {
				continue
			}
			if kept == latest[g] {
				break
			}
			kept++
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b Candidate) int {
		return cmp.Or(
			byVersionDesc(a, b),
			cmp.Compare(slices.Index(index.Platforms, a.platform()), slices.Index(index.Platforms, b.platform())),
			a.ID.Compare(b.ID),
		)
	})
	return out
}

// byVersionDesc orders newest first; equal precedence falls back to the
// spelling (build metadata), so the order is total.
func byVersionDesc(a, b Candidate) int {
	return cmp.Or(b.Version.Compare(a.Version), cmp.Compare(a.Version.Original(), b.Version.Original()))
}

// Wants reports whether the policy may keep some version of id: an
// Extensions rule selects it and no Exclude pattern does. The planner uses
// it to decide which extensions to look up.
func (p *Policy) Wants(id index.ID) bool {
	_, excluded := p.excludedBy(id)
	return !excluded && p.ruleFor(id) >= 0
}

// ExactIDs returns the IDs Extensions rules name exactly (no wildcard), not
// excluded, once each (by Key), sorted. The planner looks these up
// directly; see HasGlobs.
func (p *Policy) ExactIDs() []index.ID {
	var ids []index.ID
	for _, r := range p.Extensions {
		id, ok := r.ID.ID()
		if !ok || slices.ContainsFunc(ids, id.Equal) {
			continue
		}
		if _, excluded := p.excludedBy(id); !excluded {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, index.ID.Compare)
	return ids
}

// HasGlobs reports whether any Extensions rule uses a wildcard ("ns.*" or a
// glob), so that the planner must enumerate the upstream (its sitemap) and
// filter with Wants.
func (p *Policy) HasGlobs() bool {
	return slices.ContainsFunc(p.Extensions, func(r Rule) bool { return r.ID.IsGlob() })
}

// Closure returns p widened by WithDependencies until nothing changes:
// deps, asked of each widened policy, names the dependencies and pack
// members of what that policy selects, and the policy is widened by those
// not named before, at most rounds times (one more than the number of
// extensions is always enough). Without Dependencies it returns p.
func (p *Policy) Closure(rounds int, deps func(*Policy) []index.ID) *Policy {
	seen := map[string]bool{}
	for range rounds {
		var more []index.ID
		for _, d := range deps(p) {
			if !seen[d.Key()] {
				seen[d.Key()] = true
				more = append(more, d)
			}
		}
		if len(more) == 0 {
			break
		}
		p = p.WithDependencies(more...)
	}
	return p
}

// WithDependencies returns a copy of p that also selects ids, the
// extensionDependencies and extensionPack members of selected extensions,
// when Dependencies is set; otherwise it returns p itself. Each id no rule
// selects yet gets a rule appended after the file's own (marked
// Dependency; any version, newest 1, no pre-releases). Excluded ids stay
// excluded. The planner and the verifier call it with the closure they
// compute.
func (p *Policy) WithDependencies(ids ...index.ID) *Policy {
	if !p.Dependencies {
		return p
	}
	q := *p
	q.Extensions = slices.Clone(p.Extensions)
	for _, id := range ids {
		if id.Validate() != nil || q.ruleFor(id) >= 0 {
			continue
		}
		if _, excluded := q.excludedBy(id); excluded {
			continue
		}
		q.Extensions = append(q.Extensions, Rule{ID: ExactPattern(id), Latest: 1, Dependency: true})
	}
	return &q
}

func (p *Policy) excludedBy(id index.ID) (Pattern, bool) {
	for _, pat := range p.Exclude {
		if pat.Match(id) {
			return pat, true
		}
	}
	return Pattern{}, false
}

func (p *Policy) ruleFor(id index.ID) int {
	return slices.IndexFunc(p.Extensions, func(r Rule) bool { return r.ID.Match(id) })
}

func (p *Policy) platforms() []index.Platform {
	if len(p.Platforms) == 0 {
		return DefaultPlatforms
	}
	return p.Platforms
}

func (p *Policy) maxVsixBytes() int64 {
	if p.MaxVsixBytes <= 0 {
		return DefaultMaxVsixBytes
	}
	return p.MaxVsixBytes
}
