package policies

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/testkit/filetest"
)

// FuzzParse: Parse never panics, and a policy it accepts survives
// MarshalYAML and Parse again with the same decision-relevant content (and
// the same decisions on a few candidates).
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("examples/*.yaml")
	for _, name := range files {
		f.Add(filetest.ReadFile(f, name))
	}
	for _, s := range []string{
		minimal,
		decidePolicy,
		// Alias expansion bomb.
		"a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\nversion: 1\nextensions: *d\n",
		"version: 1\nextensions:\n  - &r {id: a.b}\n  - *r\n",
		"version: 1\nextensions:\n  - <<: {id: a.b}\n",
		// Deep nesting.
		"version: 1\nextensions: " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n",
		"version: 1\nextensions: " + strings.Repeat("{a: ", 50) + "1" + strings.Repeat("}", 50) + "\n",
		"version: 1\nextensions:\n" + strings.Repeat("- ", 20) + "x\n",
		// Huge numbers.
		"version: 99999999999999999999999999999\nextensions: [{id: a.b}]\n",
		"version: 1\nmaxVsixBytes: 9223372036854775807\nextensions: [{id: a.b, latest: 2147483647}]\n",
		"version: 1\nmaxVsixBytes: 1e400\nextensions: [{id: a.b, latest: -9223372036854775808}]\n",
		"version: 1\ncatalog: {expires: 999999999999999999999d}\nextensions: [{id: a.b}]\n",
		// Tabs, BOM, CRLF.
		"version:\t1\nextensions:\n\t- id: a.b\n",
		"\ufeffversion: 1\nextensions: [{id: a.b}]\n",
		"version: 1\r\nextensions:\r\n  - id: a.b\r\n",
		// Duplicate keys and multiple documents.
		"version: 1\nversion: 1\nextensions: [{id: a.b}]\n",
		"version: 1\nextensions: [{id: a.b, id: c.d}]\n",
		"version: 1\nextensions: [{id: a.b}]\n---\nversion: 1\n",
		"version: 1\nextensions: [{id: a.b}]\n...\n---\n",
		// Tags, directives, odd scalars.
		"%YAML 1.2\n---\nversion: !!int 1\nextensions: [{id: !custom a.b}]\n",
		"version: 1\nextensions: [{id: 'a.b', versions: \">=1.0.0 <2.0.0 || 3.x\", latest: all, preRelease: true}]\nexclude: ['*.*-x']\n",
		"version: 1\nextensions: [{id: 1.2, versions: 1.10}, {id: true.null}, {id: \"~.$\"}]\n",
		"version: 1\nupstream: http://[::1]:80/a\neditor: 1.2.3-rc.1+b\nextensions: [{id: a.b}]\ncapabilities: [{id: '*.*', versions: '<1', declare: [fsWide]}]\n",
		"version: 1\nextensions:\n  - id: |\n      a.b\n",
		"version: 1\nextensions: [{id: a.b}]\ncapabilities: [{id: a.b, grant: [network, spawn], hosts: [A.b.com, '*.c.org:1', '[::1]:80', '1.2.3.4'], programs: [/bin/sh]}]\n",
		"version: 1\nextensions: [{id: a.b}]\ncapabilities: [{id: a.b, grant: [spawn], hosts: ['*'], programs: [sh, /a/../b]}]\n",
		"? version\n: 1\n? [extensions]\n: [{id: a.b}]\n",
		"version: 1\nextensions: [{id: a.b}]\ncontrol: {url: 'https://h/x.json', files: [a/b.json], maxAge: 7d, allow: [{id: c.d, reason: 'r: x'}]}\n",
	} {
		f.Add([]byte(s))
	}
	probe := []Candidate{
		cand("a.b", "1.0.0"),
		cand("redhat.java", "1.31.0", on(index.LinuxX64)),
		cand("golang.go", "0.42.1-rc.1", pre),
		cand("ms-python.python", "2024.1.0", size(1<<30)),
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("fuzz.yaml", data)
		if err != nil {
			if p != nil {
				t.Fatalf("Parse returned a policy and an error")
			}
			return
		}
		out, err := p.MarshalYAML()
		if err != nil {
			t.Fatalf("MarshalYAML = %v", err)
		}
		q, err := Parse("again.yaml", out)
		if err != nil {
			t.Fatalf("Parse(MarshalYAML()) = %v\ninput:\n%s\noutput:\n%s", err, data, out)
		}
		if diff := cmp.Diff(p, q, policyCmp); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s\noutput:\n%s", diff, out)
		}
		for _, c := range probe {
			if a, b := p.Match(c), q.Match(c); a != b {
				t.Fatalf("Match(%s) = %+v, after round trip %+v", key(c), a, b)
			}
			if diff := cmp.Diff(p.Capabilities(c.ID, c.Version, index.NewCapabilitySet(index.Spawn, index.Network)), q.Capabilities(c.ID, c.Version, index.NewCapabilitySet(index.Spawn, index.Network))); diff != "" {
				t.Fatalf("Capabilities(%s) differs after round trip:\n%s", key(c), diff)
			}
		}
		if diff := cmp.Diff(keys(p.Select(probe)), keys(q.Select(probe))); diff != "" {
			t.Fatalf("Select differs after round trip:\n%s", diff)
		}
		p.ExactIDs()
		p.HasGlobs()
	})
}
