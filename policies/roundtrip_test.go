package policies

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMarshalRoundTrip(t *testing.T) {
	tests := []struct{ name, src string }{
		{"minimal", minimal},
		{"full", decidePolicy + "capabilities: [{id: a.b, versions: '<2', grant: [spawn], declare: [network, fsWide]}]\ncatalog: {expires: 90m}\nupstream: http://127.0.0.1:9/x\ndependencies: true\n"},
		{"numeric-looking strings", "version: 1\nextensions: [{id: 1.2, versions: 1.10}, {id: true.null}, {id: a.b, versions: '1'}]\neditor: 1.2.3\n"},
		{"latest all", "version: 1\nextensions: [{id: a.b, latest: all}]\n"},
		{"hosts and programs", "version: 1\nextensions: [{id: a.b}]\ncapabilities: [{id: a.b, grant: [network, spawn], hosts: [Example.com, '*.b.org:8443'], programs: [/usr/bin/git, /bin/sh]}]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustParse(t, tt.src)
			out, err := p.MarshalYAML()
			if err != nil {
				t.Fatalf("MarshalYAML = %v", err)
			}
			q, err := Parse("again.yaml", out)
			if err != nil {
				t.Fatalf("Parse(MarshalYAML()) = %v\n%s", err, out)
			}
			if diff := cmp.Diff(p, q, policyCmp); diff != "" {
				t.Errorf("round trip (-first +second):\n%s\n%s", diff, out)
			}
		})
	}
}
