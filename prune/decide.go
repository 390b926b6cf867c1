package prune

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/policies"
)

// Dropped is an entry the policy no longer selects.
type Dropped struct {
	Entry  string `json:"entry"`  // ns.name@version[@platform]
	Reason string `json:"reason"` // why the policy drops it
	// Bytes is what removing it frees: its blobs that no kept entry of
	// its repository shares.
	Bytes int64 `json:"bytes"`
}

// Needed is an entry the policy no longer selects but that is kept: a
// kept entry depends on its extension (extensionDependencies or
// extensionPack), and no other version of that extension is kept.
type Needed struct {
	Entry      string `json:"entry"`
	Reason     string `json:"reason"`     // why the policy would drop it
	RequiredBy string `json:"requiredBy"` // the kept entry that needs it
}

// decision splits a catalog's entries: kept (selected, or needed) and
// dropped.
type decision struct {
	kept    []index.Entry
	dropped []index.Entry
	reasons map[string]string // by entry key: why dropped (or would be)
	needed  []Needed
}

// decide applies pol to entries (see the package comment). It is pure.
func decide(pol *policies.Policy, entries []index.Entry) *decision {
	byID := map[string][]int{}
	var ids []string
	for i := range entries {
		k := entries[i].ID.Key()
		if _, ok := byID[k]; !ok {
			ids = append(ids, k)
		}
		byID[k] = append(byID[k], i)
	}
	slices.Sort(ids)
	// Select per extension, with the policy's closure grown by the
	// dependencies of what it keeps until nothing changes (as sync and
	// verify count them).
	var keep map[string]bool
	pol = pol.Closure(len(ids)+1, func(p *policies.Policy) []index.ID {
		keep = selectAll(p, entries, byID, ids)
		var ds []index.ID
		for i := range entries {
			if keep[entries[i].Key()] {
				ds = append(ds, deps(&entries[i])...)
			}
		}
		return ds
	})
	d := &decision{reasons: map[string]string{}}
	for i := range entries {
		e := &entries[i]
		if keep[e.Key()] {
			continue
		}
		m := pol.Match(candidate(e))
		if m.Allowed {
			d.reasons[e.Key()] = "not among the newest versions the policy keeps"
		} else {
			d.reasons[e.Key()] = m.Reason
		}
	}
	// The closure: an extension a kept entry needs keeps its newest
	// version per platform when the policy dropped all of it.
	for changed := true; changed; {
		changed = false
		for i := range entries {
			e := &entries[i]
			if !keep[e.Key()] {
				continue
			}
			for _, id := range deps(e) {
				idx := byID[id.Key()]
				if len(idx) == 0 || slices.ContainsFunc(idx, func(j int) bool { return keep[entries[j].Key()] }) {
					continue // not in the registry (verify says so), or kept
				}
				for _, j := range newestPerPlatform(entries, idx) {
					n := &entries[j]
					keep[n.Key()] = true
					d.needed = append(d.needed, Needed{Entry: n.String(), Reason: d.reasons[n.Key()], RequiredBy: e.String()})
					changed = true
				}
			}
		}
	}
	for i := range entries {
		if keep[entries[i].Key()] {
			d.kept = append(d.kept, entries[i])
		} else {
			d.dropped = append(d.dropped, entries[i])
		}
	}
	return d
}

// selectAll returns the keys of the entries pol selects, extension by
// extension.
func selectAll(pol *policies.Policy, entries []index.Entry, byID map[string][]int, ids []string) map[string]bool {
	keep := map[string]bool{}
	for _, id := range ids {
		idx := byID[id]
		cands := make([]policies.Candidate, 0, len(idx))
		for _, i := range idx {
			cands = append(cands, candidate(&entries[i]))
		}
		for _, c := range pol.Select(cands) {
			keep[index.EntryKey(c.ID, c.Version.Original(), c.Platform)] = true
		}
	}
	return keep
}

// newestPerPlatform returns, of the entries idx, the one of the highest
// version on each platform.
func newestPerPlatform(entries []index.Entry, idx []int) []int {
	best := map[index.Platform]int{}
	for _, i := range idx {
		e := &entries[i]
		j, ok := best[e.Platform]
		if !ok || compareVersions(e, &entries[j]) > 0 {
			best[e.Platform] = i
		}
	}
	out := make([]int, 0, len(best))
	for _, i := range best {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

// compareVersions orders two entries of one extension by SemVer.
func compareVersions(a, b *index.Entry) int {
	va, errA := a.SemVer()
	vb, errB := b.SemVer()
	if errA != nil || errB != nil {
		return cmp.Compare(a.Version, b.Version)
	}
	return va.Compare(vb)
}

// deps are an entry's extensionDependencies and extensionPack members.
func deps(e *index.Entry) []index.ID {
	return append(slices.Clone(e.Dependencies), e.ExtensionPack...)
}

// candidate is what the policy decides about an entry.
func candidate(e *index.Entry) policies.Candidate {
	ver, _ := e.SemVer()
	eng, _ := index.ParseEngineRange(e.Engine)
	return policies.Candidate{ID: e.ID, Version: ver, Platform: e.Platform, PreRelease: e.PreRelease, Engine: eng, Signed: e.Upstream.Signed, Size: e.VsixSize}
}

// String names a Needed entry and why it stays.
func (n Needed) String() string {
	return fmt.Sprintf("%s (needed by %s; the policy would drop it: %s)", n.Entry, n.RequiredBy, n.Reason)
}
