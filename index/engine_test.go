package index

import (
	"testing"

	"github.com/Masterminds/semver/v3"
)

func TestEngineRange(t *testing.T) {
	tests := []struct {
		rng    string
		editor string
		want   bool
	}{
		{"*", "1.95.0", true},
		{"^1.80.0", "1.80.0", true},
		{"^1.80.0", "1.95.3", true},
		{"^1.80.0", "1.79.9", false},
		{"^1.80.0", "2.0.0", false},
		{"^1.80.0-insider", "1.80.0", true},
		{"^1.80.0-insider", "1.79.0", false},
		{"^1.80.0-20230601", "1.81.0", true},
		{"^0.10.0", "0.10.5", true},
		{"^0.10.0", "0.11.0", false},
		{">=1.60.0", "2.3.0", true},
		{">=1.60.0", "1.59.0", false},
		{"1.80.0", "1.80.0", true},
		{"1.80.0", "1.80.1", false},
		{"1.80.x", "1.80.7", true},
		{"1.x.x", "1.99.0", true},
		{"1.x.x", "2.0.0", false},
		{"^1.x.x", "1.0.0", true},
		{"^1.95.0", "1.95.0-insider", true},
	}
	for _, tt := range tests {
		t.Run(tt.rng+"/"+tt.editor, func(t *testing.T) {
			r, err := ParseEngineRange(tt.rng)
			if err != nil {
				t.Fatalf("ParseEngineRange(%q) = %v", tt.rng, err)
			}
			v := semver.MustParse(tt.editor)
			if got := r.Allows(v); got != tt.want {
				t.Errorf("ParseEngineRange(%q).Allows(%s) = %v; want %v", tt.rng, tt.editor, got, tt.want)
			}
			if r.String() != tt.rng {
				t.Errorf("String() = %q; want %q", r.String(), tt.rng)
			}
		})
	}
}

func TestParseEngineRangeRejects(t *testing.T) {
	for _, bad := range []string{"", "latest", "1.80", "~1.80.0", "^1.80.0 || ^2.0.0", "1.80.0.1", ">1.0.0", "^99999999999.0.0"} {
		if r, err := ParseEngineRange(bad); err == nil {
			t.Errorf("ParseEngineRange(%q) = %v, nil; want error", bad, r)
		}
	}
	if (EngineRange{}).Allows(semver.MustParse("1.0.0")) {
		t.Error("zero EngineRange allows a version; want fail closed")
	}
}
