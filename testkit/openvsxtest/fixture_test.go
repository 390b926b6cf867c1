package openvsxtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestFormatTimestamp(t *testing.T) {
	tests := []struct {
		t    time.Time
		want string
	}{
		{time.Date(2024, 6, 18, 3, 29, 7, 108336000, time.UTC), "2024-06-18T03:29:07.108336Z"},
		{time.Date(2024, 6, 18, 3, 29, 7, 100000000, time.UTC), "2024-06-18T03:29:07.100Z"},
		{time.Date(2024, 6, 18, 3, 29, 7, 0, time.UTC), "2024-06-18T03:29:07Z"},
		{time.Date(2024, 6, 18, 3, 29, 0, 0, time.UTC), "2024-06-18T03:29Z"},
		{time.Date(2024, 6, 18, 3, 29, 0, 5, time.UTC), "2024-06-18T03:29:00.000000005Z"},
		{time.Date(2024, 6, 18, 5, 29, 0, 0, time.FixedZone("", 2*3600)), "2024-06-18T03:29Z"},
	}
	for _, tt := range tests {
		if got := FormatTimestamp(tt.t); got != tt.want {
			t.Errorf("FormatTimestamp(%v) = %q; want %q", tt.t, got, tt.want)
		}
		if got, err := ParseTimestamp(tt.want); err != nil || !got.Equal(tt.t) {
			t.Errorf("ParseTimestamp(%q) = %v, %v; want %v", tt.want, got, err, tt.t)
		}
	}
	for _, bad := range []string{"2024-06-18T03:29:00Z", "2024-06-18T03:29:07.1Z", "2024-06-18", "2024-06-18T03:29+02:00"} {
		if _, err := ParseTimestamp(bad); err == nil {
			t.Errorf("ParseTimestamp(%q): no error; want one (upstream never prints it)", bad)
		}
	}
}

// TestLoadFixtures checks the metadata derived from the real packages.
func TestLoadFixtures(t *testing.T) {
	fx, err := LoadFixtures(DefaultDir())
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		File, Platform, Timestamp     string
		PreRelease, NoFiles, Unsigned bool
		Engines                       []Engine
		Deps, Pack, Resources         []string
	}
	got := map[string]row{}
	for _, f := range fx {
		var res []string
		for _, r := range f.Resources {
			res = append(res, r.Type+"="+r.Name)
		}
		got[f.FileBase()] = row{f.File, string(f.Platform), f.Timestamp, f.PreRelease, f.NoFiles, f.Unsigned,
			f.Engines, f.Dependencies, f.BundledExtensions, res}
	}
	all := []string{"manifest=package.json", "readme=readme.md", "changelog=changelog.md", "license=LICENSE.txt", "icon=icon.png", "vsixmanifest=extension.vsixmanifest"}
	noIcon := []string{"manifest=package.json", "readme=readme.md", "changelog=changelog.md", "license=LICENSE.txt", "vsixmanifest=extension.vsixmanifest"}
	eng := func(r string) []Engine { return []Engine{{"vscode", r}} }
	want := map[string]row{
		"airvsx-demo.hello-command-0.9.0":              {"airvsx-demo.hello-command-0.9.0.vsix", "universal", "2023-12-01T09:00Z", false, true, false, eng("^1.80.0"), []string{}, []string{}, all},
		"airvsx-demo.hello-command-1.0.0":              {"airvsx-demo.hello-command-1.0.0.vsix", "universal", "2024-01-15T03:29:07.108336Z", false, false, false, eng("^1.80.0"), []string{}, []string{}, all},
		"airvsx-demo.hello-command-1.0.0@linux-x64":    {"airvsx-demo.hello-command-1.0.0@linux-x64.vsix", "linux-x64", "2024-01-15T03:29:09.500Z", false, false, false, eng("^1.80.0"), []string{}, []string{}, all},
		"airvsx-demo.hello-command-1.0.0@darwin-arm64": {"airvsx-demo.hello-command-1.0.0@darwin-arm64.vsix", "darwin-arm64", "2024-01-15T03:29:11Z", false, false, false, eng("^1.80.0"), []string{}, []string{}, all},
		"airvsx-demo.hello-command-1.1.0":              {"airvsx-demo.hello-command-1.1.0.vsix", "universal", "2024-02-20T18:45:33.000123Z", true, false, false, eng("^1.80.0"), []string{}, []string{}, all},
		"airvsx-demo.hello-command-2.0.0":              {"airvsx-demo.hello-command-2.0.0.vsix", "universal", "2024-06-18T03:29Z", false, false, false, eng("^1.999.0"), []string{}, []string{}, all},
		"airvsx-demo.night-theme-2.1.0":                {"airvsx-demo.night-theme-2.1.0.vsix", "universal", "2023-10-05T12:00:01.100Z", false, false, false, eng("^1.70.0"), []string{}, []string{}, all},
		"airvsx-demo.git-helper-0.3.0":                 {"airvsx-demo.git-helper-0.3.0.vsix", "universal", "2024-03-10T07:07:07.070707Z", false, false, false, eng("^1.85.0"), []string{}, []string{}, all},
		"airvsx-demo.demo-pack-1.0.0":                  {"airvsx-demo.demo-pack-1.0.0.vsix", "universal", "2024-03-01T10:20:30Z", false, false, false, eng("^1.80.0"), []string{}, []string{"airvsx-demo.hello-command", "airvsx-demo.night-theme"}, all},
		"airvsx-demo.uses-git-1.0.0":                   {"airvsx-demo.uses-git-1.0.0.vsix", "universal", "2024-04-02T11:22:33.444555Z", false, false, false, eng("^1.85.0"), []string{"airvsx-demo.git-helper"}, []string{}, noIcon},
		"other-pub.unsigned-tool-0.1.0":                {"other-pub.unsigned-tool-0.1.0.vsix", "universal", "2022-05-06T07:08Z", false, false, true, eng("^1.75.0"), []string{}, []string{}, []string{"manifest=package.json", "readme=readme.md", "license=LICENSE.txt", "vsixmanifest=extension.vsixmanifest"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LoadFixtures (-want +got):\n%s", diff)
	}
	// Total size stays small.
	var total int
	for _, f := range fx {
		total += len(f.VSIX)
	}
	if total > 200_000 {
		t.Errorf("fixtures total %d bytes; keep them small", total)
	}
}

// TestLoadFixturesErrors: a misnamed package or a sidecar naming a missing
// file is reported, all problems at once.
func TestLoadFixturesErrors(t *testing.T) {
	dir := t.TempDir()
	src := ReadFixture(t, "airvsx-demo.night-theme-2.1.0.vsix")
	os.WriteFile(filepath.Join(dir, "wrong-name.vsix"), src, 0o644)
	os.WriteFile(filepath.Join(dir, SidecarName), []byte(`{"files":{"gone.vsix":{"timestamp":"2024-01-01T00:00Z"}}}`), 0o644)
	_, err := LoadFixtures(dir)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"wrong-name.vsix: package is airvsx-demo.night-theme-2.1.0", "names gone.vsix, which is not a fixture"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q; want it to mention %q", err, want)
		}
	}
}

// TestNewFromFixturesInvalid: invalid fixtures built in code are fatal.
func TestNewFromFixturesInvalid(t *testing.T) {
	for _, fx := range []Fixtures{
		{{Namespace: "a", Name: "b", Version: "1.0"}},
		{{Namespace: "a", Name: "b", Version: "1.0.0", Platform: "plan9-mips"}},
		{{Namespace: "a.b", Name: "c", Version: "1.0.0"}},
		{{Namespace: "a", Name: "b", Version: "1.0.0"}, {Namespace: "A", Name: "B", Version: "1.0.0", Platform: "universal"}},
	} {
		if _, err := NewHandler(fx, Options{}, nil); err == nil {
			t.Errorf("NewHandler(%+v): no error", fx)
		}
	}
	if _, err := NewHandler(Fixtures{{Namespace: "a", Name: "b", Version: "1.0.0"}}, Options{}, nil); err != nil {
		t.Errorf("NewHandler(valid): %v", err)
	}
}
