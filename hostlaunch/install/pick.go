package install

import (
	"fmt"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/airvsx/airvsx/index"
)

// pickEntry chooses among the catalog's entries of id the one to
// install, or says why none fits.
func pickEntry(entries []index.Entry, id index.ID, version string, host index.Platform, pre bool, api *semver.Version) (*index.Entry, string) {
	var all, fit []*index.Entry
	for i := range entries {
		e := &entries[i]
		if !e.ID.Equal(id) {
			continue
		}
		all = append(all, e)
		if e.Platform == host || e.Platform == index.Universal {
			fit = append(fit, e)
		}
	}
	if len(all) == 0 {
		return nil, fmt.Sprintf("%s is not in the catalog", id)
	}
	if len(fit) == 0 {
		return nil, fmt.Sprintf("%s has no build for %s or universal in the catalog (only %s)", id, host, platformsOf(all))
	}
	// better reports whether a is to be preferred to b: newer, then this
	// machine's own build over the universal one.
	better := func(a, b *index.Entry) bool {
		av, _ := a.SemVer()
		bv, _ := b.SemVer()
		if c := av.Compare(bv); c != 0 {
			return c > 0
		}
		return a.Platform == host && b.Platform != host
	}
	var best, incompatible *index.Entry
	for _, e := range fit {
		v, err := e.SemVer()
		if err != nil {
			continue
		}
		if version != "" {
			if e.Version != version {
				continue
			}
		} else if (e.PreRelease || v.Prerelease() != "") && !pre {
			continue
		} else if r, err := index.ParseEngineRange(e.Engine); err == nil && !r.Allows(api) {
			if incompatible == nil || better(e, incompatible) {
				incompatible = e
			}
			continue
		}
		if best == nil || better(e, best) {
			best = e
		}
	}
	switch {
	case best != nil:
		return best, ""
	case version != "":
		return nil, fmt.Sprintf("%s has no version %s for %s or universal in the catalog", id, version, host)
	case incompatible != nil:
		return nil, fmt.Sprintf("no version of %s accepts the host's API version %s (the newest, %s, needs engines.vscode %s)", id, api.Original(), incompatible.Version, incompatible.Engine)
	default:
		return nil, fmt.Sprintf("%s has only pre-releases in the catalog (ask for one by version, or allow pre-releases)", id)
	}
}

func platformsOf(es []*index.Entry) string {
	var ps []string
	for _, e := range es {
		if !slices.Contains(ps, string(e.Platform)) {
			ps = append(ps, string(e.Platform))
		}
	}
	return strings.Join(ps, ", ")
}
