package index

import (
	"strings"
	"testing"
)

func TestParseID(t *testing.T) {
	tests := []struct {
		in      string
		want    ID
		wantErr string
	}{
		{in: "redhat.java", want: ID{"redhat", "java"}},
		{in: "MS-Python.Python", want: ID{"MS-Python", "Python"}},
		{in: "a_b.c+d$e~f", want: ID{"a_b", "c+d$e~f"}},
		{in: "noDot", wantErr: "want namespace.name"},
		{in: ".name", wantErr: "invalid namespace"},
		{in: "ns.", wantErr: "invalid name"},
		{in: "ns.a.b", wantErr: "invalid name"},
		{in: "ns/x.y", wantErr: "invalid namespace"},
		{in: "ns.na me", wantErr: "invalid name"},
		{in: "ns.é", wantErr: "invalid name"},
		{in: "ns.a\x00", wantErr: "invalid name"},
		{in: strings.Repeat("a", 256) + ".x", wantErr: "invalid namespace"},
		{in: strings.Repeat("a", 255) + ".x", want: ID{strings.Repeat("a", 255), "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseID(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseID(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseID(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
			if got.String() != tt.in {
				t.Errorf("String() = %q; want display case %q", got.String(), tt.in)
			}
		})
	}
}

func TestIDIdentityIsCaseInsensitive(t *testing.T) {
	a, b := MustParseID("Redhat.Java"), MustParseID("redhat.JAVA")
	if !a.Equal(b) || a.Key() != "redhat.java" {
		t.Errorf("%v.Equal(%v) = false or Key() = %q; want equal with key redhat.java", a, b, a.Key())
	}
	if a.String() == b.String() {
		t.Errorf("display case lost: %q == %q", a, b)
	}
	if a.Compare(b) == 0 {
		t.Errorf("Compare(%v, %v) = 0; want a total order on spelling", a, b)
	}
	if MustParseID("a.b").Equal(MustParseID("a.c")) {
		t.Error("a.b equals a.c")
	}
}

func TestIDText(t *testing.T) {
	var id ID
	if err := id.UnmarshalText([]byte("x.y")); err != nil || id != (ID{"x", "y"}) {
		t.Fatalf("UnmarshalText(x.y) = %v, %v", id, err)
	}
	if err := id.UnmarshalText([]byte("bad")); err == nil {
		t.Fatal("UnmarshalText(bad) = nil; want error")
	}
	if _, err := (ID{}).MarshalText(); err == nil {
		t.Fatal("MarshalText of zero ID = nil error; want error")
	}
}

func TestParsePlatform(t *testing.T) {
	for _, p := range Platforms {
		got, err := ParsePlatform(string(p))
		if err != nil || got != p {
			t.Errorf("ParsePlatform(%q) = %v, %v", p, got, err)
		}
	}
	if got, err := ParsePlatform(""); err != nil || got != Universal {
		t.Errorf(`ParsePlatform("") = %v, %v; want universal`, got, err)
	}
	for _, bad := range []string{"linux", "Linux-x64", "win32-x86", "unknown", "undefined"} {
		if _, err := ParsePlatform(bad); err == nil {
			t.Errorf("ParsePlatform(%q) = nil error; want error", bad)
		}
	}
	if len(Platforms) != 12 {
		t.Errorf("len(Platforms) = %d; want the 12 VS Code target platforms", len(Platforms))
	}
}

func TestCapabilitySet(t *testing.T) {
	s := NewCapabilitySet(FSWide, Network, Network)
	if len(s) != 2 || s[0] != Network || s[1] != FSWide {
		t.Fatalf("NewCapabilitySet = %v; want [network fsWide]", s)
	}
	if got := s.Intersect(NewCapabilitySet(Spawn, FSWide)); len(got) != 1 || got[0] != FSWide {
		t.Errorf("Intersect = %v; want [fsWide]", got)
	}
	if got := s.Union(NewCapabilitySet(Spawn)); len(got) != 3 {
		t.Errorf("Union = %v; want all three", got)
	}
	if _, err := ParseCapability("camera"); err == nil {
		t.Error(`ParseCapability("camera") = nil error; want unknown capability`)
	}
}

func TestParseVersion(t *testing.T) {
	for _, ok := range []string{"1.0.0", "0.0.1", "1.2.3-beta.1", "1.2.3+build.5", "2026.11.29"} {
		if _, err := ParseVersion(ok); err != nil {
			t.Errorf("ParseVersion(%q) = %v; want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "1", "1.2", "v1.2.3", "1.2.3.4", "01.2.3", "latest"} {
		if _, err := ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q) = nil error; want error", bad)
		}
	}
}
