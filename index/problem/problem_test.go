package problem

import (
	"encoding/json"
	"testing"
)

func TestString(t *testing.T) {
	tests := []struct {
		name string
		p    Problem
		want string
	}{
		{"all", Problem{File: "extension/package.json", Field: "engines.vscode", Rule: "engine", Message: "missing"}, "extension/package.json: engines.vscode: engine: missing"},
		{"no field", Problem{File: "a.js", Rule: "duplicate-name", Message: "twice"}, "a.js: duplicate-name: twice"},
		{"archive", Problem{Rule: "not-zip", Message: "no central directory"}, "not-zip: no central directory"},
		{"message only", Problem{Message: "main \"x.js\" is not in the package"}, "main \"x.js\" is not in the package"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.String(); got != tt.want {
				t.Errorf("String() = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestJSON(t *testing.T) {
	p := Problem{File: "f", Field: "x", Rule: "r", Message: "m", Severity: Warning}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"file":"f","field":"x","rule":"r","detail":"m","severity":"warning"}`
	if string(b) != want {
		t.Errorf("Marshal = %s; want %s", b, want)
	}
	var q Problem
	if err := json.Unmarshal(b, &q); err != nil || q != p {
		t.Errorf("Unmarshal(%s) = %+v, %v; want %+v", b, q, err, p)
	}
	var s Severity
	if err := s.UnmarshalText([]byte("fatal")); err == nil {
		t.Errorf("UnmarshalText(fatal) = nil; want an error")
	}
}

// TestSeverityText: each severity encodes as its name and decodes back.
func TestSeverityText(t *testing.T) {
	for _, sev := range []Severity{Error, Warning, Note} {
		b, err := sev.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var got Severity
		if err := got.UnmarshalText(b); err != nil || got != sev || string(b) != sev.String() {
			t.Errorf("%v: MarshalText = %s, UnmarshalText = %v, %v; want the name and the severity back", sev, b, got, err)
		}
	}
	if Note.String() != "note" {
		t.Errorf("Note.String() = %q; want note", Note.String())
	}
}

// TestFilter: Filter keeps the problems of one severity, in order, also
// of a type that embeds a Problem.
func TestFilter(t *testing.T) {
	type entryProblem struct {
		Problem
		Entry string
	}
	ps := []entryProblem{
		{Problem{Rule: "a", Severity: Error}, "x"},
		{Problem{Rule: "b", Severity: Warning}, "x"},
		{Problem{Rule: "c", Severity: Error}, "y"},
	}
	got := Filter(ps, Error)
	if len(got) != 2 || got[0].Rule != "a" || got[1].Rule != "c" {
		t.Errorf("Filter(Error) = %v; want a, c", got)
	}
	if got := Filter(ps, Warning); len(got) != 1 || got[0].Rule != "b" {
		t.Errorf("Filter(Warning) = %v; want b", got)
	}
	if got := Filter([]Problem(nil), Error); got != nil {
		t.Errorf("Filter(nil) = %v; want nil", got)
	}
}
