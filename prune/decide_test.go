package prune

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/policies"
)

func TestDecide(t *testing.T) {
	e := func(id, version string, plat index.Platform, deps ...string) index.Entry {
		en := index.Entry{ID: index.MustParseID(id), Version: version, Platform: plat, Engine: "^1.80.0"}
		for _, d := range deps {
			en.Dependencies = append(en.Dependencies, index.MustParseID(d))
		}
		return en
	}
	entries := []index.Entry{
		e("a.one", "1.0.0", index.Universal),
		e("a.one", "1.1.0", index.Universal),
		e("a.one", "1.2.0", index.Universal),
		e("a.one", "1.2.0", "linux-x64"),
		e("b.dep", "0.1.0", index.Universal),
		e("b.dep", "0.2.0", index.Universal),
		e("c.user", "2.0.0", index.Universal, "b.dep"),
		e("d.other", "1.0.0", index.Universal),
	}
	tests := []struct {
		name    string
		policy  string
		dropped []string
		needed  []string
	}{
		{
			name:    "latest one, universal only, no dependencies",
			policy:  "extensions:\n  - id: a.one\n    latest: 1\n  - id: c.user\n  - id: d.other\nplatforms: [universal]\n",
			dropped: []string{"a.one@1.0.0", "a.one@1.1.0", "a.one@1.2.0@linux-x64", "b.dep@0.1.0"},
			needed:  []string{"b.dep@0.2.0 needed by c.user@2.0.0"},
		},
		{
			name:    "dependencies pulled in keep their newest",
			policy:  "extensions:\n  - id: a.*\n    latest: 2\n  - id: c.user\ndependencies: true\n",
			dropped: []string{"a.one@1.0.0", "b.dep@0.1.0", "d.other@1.0.0"},
		},
		{
			name:    "everything kept",
			policy:  "extensions:\n  - id: '*.*'\n    latest: 5\n",
			dropped: nil,
		},
		{
			name:    "an excluded extension goes though a kept one needs it: kept and said",
			policy:  "extensions:\n  - id: '*.*'\n    latest: 5\nexclude: [b.dep]\n",
			dropped: []string{"b.dep@0.1.0"},
			needed:  []string{"b.dep@0.2.0 needed by c.user@2.0.0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pol, err := policies.Parse("test.yaml", []byte("version: 1\nrequireUpstreamSignature: false\n"+platforms(tt.policy)+tt.policy))
			if err != nil {
				t.Fatal(err)
			}
			d := decide(pol, entries)
			var dropped, needed []string
			for _, x := range d.dropped {
				dropped = append(dropped, x.String())
			}
			for _, n := range d.needed {
				needed = append(needed, n.Entry+" needed by "+n.RequiredBy)
			}
			slices.Sort(dropped)
			if diff := cmp.Diff(tt.dropped, dropped); diff != "" {
				t.Errorf("dropped (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.needed, needed); diff != "" {
				t.Errorf("needed (-want +got):\n%s", diff)
			}
			if len(d.kept)+len(d.dropped) != len(entries) {
				t.Errorf("kept %d + dropped %d; want the %d entries", len(d.kept), len(d.dropped), len(entries))
			}
			for _, x := range d.dropped {
				if d.reasons[x.Key()] == "" {
					t.Errorf("%s dropped with no reason", x.String())
				}
			}
		})
	}
}

// platforms gives a policy without platforms: both of the test's.
func platforms(policy string) string {
	if strings.Contains(policy, "platforms:") {
		return ""
	}
	return "platforms: [universal, linux-x64]\n"
}
