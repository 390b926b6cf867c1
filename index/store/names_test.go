package store_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
)

// TestCheckRepoWindowsReserved: CheckRepo refuses every repository part
// index.WindowsReserved calls a device name, the ones only index/vsix
// refused before the two lists were merged (CLOCK$) included.
func TestCheckRepoWindowsReserved(t *testing.T) {
	tests := []struct {
		repo string
		ok   bool
	}{
		{"con/x", false},
		{"pub/nul", false},
		{"pub/conin$", false},
		{"conout$/x", false},
		{"pub/com0", false},
		{"lpt9/x", false},
		{"clock$/x", false}, // was accepted
		{"pub/clock$", false},

		{"pub/console", true},
		{"pub/com10", true},
		{"clock/x", true},
		{"pub/x$", true},
	}
	for _, tt := range tests {
		err := store.CheckRepo(tt.repo)
		switch {
		case tt.ok && err != nil:
			t.Errorf("CheckRepo(%q) = %v; want nil", tt.repo, err)
		case !tt.ok && err == nil:
			t.Errorf("CheckRepo(%q) = nil; want an error", tt.repo)
		case !tt.ok && (!errors.Is(err, store.ErrInvalidName) || !strings.Contains(err.Error(), "Windows reserved device name")):
			t.Errorf("CheckRepo(%q) = %v; want a Windows reserved device name error wrapping ErrInvalidName", tt.repo, err)
		}
	}
}

func TestQuarantineName(t *testing.T) {
	long := strings.Repeat("a", 300)
	tests := []struct{ in, want string }{
		{"ns.name-1.0.0", "ns.name-1.0.0"},
		{"ns.name-1.0.0@linux-x64.vsix", "ns.name-1.0.0_linux-x64.vsix"},
		{"ns.name-1.0.0+build.7", "ns.name-1.0.0_build.7"},
		{"con", "xcon"},
		{"con.txt", "xcon.txt"},
		{".hidden", "x.hidden"},
		{"", "x"},
		{"é", "x__"},
	}
	for _, tt := range tests {
		if got := store.QuarantineName(tt.in); got != tt.want {
			t.Errorf("QuarantineName(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
	for _, in := range []string{long, long + "b", "../" + long, strings.Repeat("@", 500)} {
		got := store.QuarantineName(in)
		if err := store.CheckQuarantine(got, []string{got}); err != nil {
			t.Errorf("QuarantineName(%.20q…) = %q, which Quarantine refuses: %v", in, got, err)
		}
	}
	if store.QuarantineName(long) == store.QuarantineName(long+"b") {
		t.Error("two long names that differ only past the limit map to one name")
	}
}

func TestCheckEntryName(t *testing.T) {
	tests := []struct {
		id, version string
		platform    index.Platform
		want        string // "" means valid
	}{
		{"ns.name", "1.0.0", index.Universal, ""},
		{"ns.name", "1.0.0+build.7", "linux-x64", ""},
		{"ns.con", "1.0.0", index.Universal, "Windows reserved device name"},
		{"aux.name", "1.0.0", index.Universal, "Windows reserved device name"},
		{"ns.name", "1.0.0+" + strings.Repeat("b", 130), index.Universal, "want [A-Za-z0-9_]"},
	}
	for _, tt := range tests {
		err := artifact.CheckEntryName(index.MustParseID(tt.id), tt.version, tt.platform)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("CheckEntryName(%s, %.20s…, %s) = %v; want %q", tt.id, tt.version, tt.platform, err, tt.want)
		}
	}
}

// TestValidTag: the hand-written check accepts exactly what the OCI
// distribution spec's tag pattern does.
func TestValidTag(t *testing.T) {
	spec := regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$`)
	cases := []string{"", "a", "_", ".a", "-a", "linux-x64-1.0.0", "universal-2.0.0-rc.1", "a b", "a/b", "é", "a:b",
		strings.Repeat("a", 128), strings.Repeat("a", 129), "A.B_C-D", "0", "a\x00", "sha256-" + strings.Repeat("f", 64)}
	for _, c := range cases {
		if got, want := store.ValidTag(c), spec.MatchString(c); got != want {
			t.Errorf("store.ValidTag(%q) = %v, the pattern says %v", c, got, want)
		}
	}
}
