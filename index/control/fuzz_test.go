package control_test

import (
	"errors"
	"os"
	"testing"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/control"
)

// FuzzParse: Parse never panics, fails only with ErrMalformed, and a list
// it accepts answers verdicts and merges into a list Parse accepts again.
func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile("testdata/extensions.json"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"malicious": ["a", "b.c"], "deprecated": {"d.e": true, "f.g": {"disallowInstall": true}}}`))
	f.Add([]byte(`{"malicious": [], "deprecated": {"a.b": {"a": 1, "a": 2}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := control.Parse(data)
		if err != nil {
			if !errors.Is(err, control.ErrMalformed) {
				t.Fatalf("error without ErrMalformed: %v", err)
			}
			return
		}
		src := control.Source{Origin: index.ControlUpstream, Data: data, List: l}
		other := control.Source{Origin: "file:x", Data: data, List: l}
		set := control.NewSet(src, other)
		for _, m := range l.Malicious {
			if id, err := index.ParseID(m); err == nil && !set.Verdict(id).Malicious {
				t.Fatalf("%q is listed malicious but its verdict is not", m)
			}
		}
		merged, err := set.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := control.Parse(merged); err != nil {
			t.Fatalf("merged list does not parse: %v\n%s", err, merged)
		}
	})
}
