package gallery

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index"
)

// body builds an extensionquery body the way VS Code's Query.raw
// serialises: one filter, the two criteria it always adds last.
func body(flags int, sortBy, pageSize, pageNumber int, criteria ...string) string {
	cs := append(criteria, `{"filterType":8,"value":"Microsoft.VisualStudio.Code"}`, `{"filterType":12,"value":"4096"}`)
	return fmt.Sprintf(`{"filters":[{"criteria":[%s],"pageNumber":%d,"pageSize":%d,"sortBy":%d,"sortOrder":0}],"assetTypes":[],"flags":%d}`,
		strings.Join(cs, ","), pageNumber, pageSize, sortBy, flags)
}

func crit(ft int, v string) string { return fmt.Sprintf(`{"filterType":%d,"value":%q}`, ft, v) }

func TestQueryFilters(t *testing.T) {
	ix := New(testCatalog())
	pyUUID := ExtensionUUID(index.MustParseID("ms-python.python"))
	tests := []struct {
		name  string
		body  string
		want  []string
		total int
	}{
		{"all by title", body(950, 2, 50, 1), []string{"dracula-theme.theme-dracula", "ms-vscode.live-server", "someone.plain", "ms-python.python", "ms-python.debugpy", "rust-lang.rust-analyzer"}, 6},
		{"all by installs falls back to title", body(950, 4, 2, 1), []string{"dracula-theme.theme-dracula", "ms-vscode.live-server"}, 6},
		{"page 2", body(950, 2, 2, 2), []string{"someone.plain", "ms-python.python"}, 6},
		{"page past the end", body(950, 2, 50, 9), nil, 6},
		{"last updated", body(950, 1, 3, 1), []string{"rust-lang.rust-analyzer", "ms-python.python", "ms-vscode.live-server"}, 6},
		{"publisher", body(950, 3, 50, 1), []string{"dracula-theme.theme-dracula", "ms-python.debugpy", "ms-python.python", "ms-vscode.live-server", "rust-lang.rust-analyzer", "someone.plain"}, 6},
		{"search one word", body(950, 0, 50, 1, crit(10, "python")), []string{"ms-python.python", "ms-python.debugpy"}, 2},
		{"search prefix", body(950, 0, 50, 1, crit(10, "drac")), []string{"dracula-theme.theme-dracula"}, 1},
		{"search all words", body(950, 0, 50, 1, crit(10, "python debugger")), []string{"ms-python.debugpy"}, 1},
		{"search ranks name above description", body(950, 0, 50, 1, crit(10, "python debug")), []string{"ms-python.debugpy", "ms-python.python"}, 2},
		{"search exact id first", body(950, 0, 50, 1, crit(10, "ms-python.debugpy")), []string{"ms-python.debugpy"}, 1},
		{"search description only", body(950, 0, 50, 1, crit(10, "webpages")), []string{"ms-vscode.live-server"}, 1},
		{"search nothing", body(950, 0, 50, 1, crit(10, "cobol")), nil, 0},
		{"publisher: quoted", body(950, 0, 50, 1, crit(10, `publisher:"MS-Python"`)), []string{"ms-python.python", "ms-python.debugpy"}, 2},
		{"publisher: and word", body(950, 0, 50, 1, crit(10, `publisher:ms-python debug`)), []string{"ms-python.debugpy", "ms-python.python"}, 2},
		{"category", body(950, 2, 50, 1, crit(5, "themes")), []string{"dracula-theme.theme-dracula"}, 1},
		{"two categories or'd", body(950, 2, 50, 1, crit(5, "Themes"), crit(5, "Formatters")), []string{"dracula-theme.theme-dracula", "rust-lang.rust-analyzer"}, 2},
		{"category and search", body(950, 0, 50, 1, crit(5, "Debuggers"), crit(10, "pylance")), []string{"ms-python.python"}, 1},
		{"tag", body(950, 0, 50, 1, crit(1, "rust")), []string{"rust-lang.rust-analyzer"}, 1},
		{"web tag", body(950, 0, 50, 1, crit(1, "__web_extension")), []string{"ms-vscode.live-server"}, 1},
		{"name", body(439, 0, 1, 1, crit(7, "MS-PYTHON.python")), []string{"ms-python.python"}, 1},
		{"uuid", body(439, 0, 1, 1, crit(4, pyUUID)), []string{"ms-python.python"}, 1},
		{"batch in request order, unknown skipped", body(950, 0, 3, 1, crit(4, pyUUID), crit(7, "rust-lang.rust-analyzer"), crit(7, "no.such"), crit(7, "ms-python.python")), []string{"ms-python.python", "rust-lang.rust-analyzer"}, 2},
		{"target platform", body(950, 2, 50, 1, `{"filterType":8,"value":"alpine-x64"}`), []string{"dracula-theme.theme-dracula", "ms-vscode.live-server", "someone.plain", "ms-python.python", "ms-python.debugpy"}, 5},
		{"target platform page", body(950, 2, 2, 2, `{"filterType":8,"value":"linux-x64"}`), []string{"someone.plain", "ms-python.python"}, 6},
		{"other target", body(950, 2, 50, 1, `{"filterType":8,"value":"Microsoft.VisualStudio.Services"}`), nil, 0},
		{"featured", body(950, 2, 50, 1, `{"filterType":9}`), nil, 0},
		{"unknown filter type ignored", body(950, 2, 1, 1, crit(17, "x")), []string{"dracula-theme.theme-dracula"}, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ask(t, ix, tt.body)
			if got := names(r); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if got := totalCount(t, r); got != tt.total {
				t.Errorf("TotalCount %d, want %d", got, tt.total)
			}
		})
	}
}

func TestQuerySortOrder(t *testing.T) {
	ix := New(testCatalog())
	asc := ask(t, ix, strings.Replace(body(950, 1, 2, 1), `"sortOrder":0`, `"sortOrder":1`, 1))
	if got, want := names(asc), []string{"someone.plain", "dracula-theme.theme-dracula"}; !slices.Equal(got, want) {
		t.Errorf("last updated ascending: %q, want %q", got, want)
	}
	desc := ask(t, ix, strings.Replace(body(950, 2, 1, 1, crit(5, "Programming Languages")), `"sortOrder":0`, `"sortOrder":2`, 1))
	if got, want := names(desc), []string{"rust-lang.rust-analyzer"}; !slices.Equal(got, want) {
		t.Errorf("title descending among a category: %q, want %q", got, want)
	}
}

func TestQueryVersions(t *testing.T) {
	ix := New(testCatalog())
	versions := func(flags int, id string) []string {
		r := ask(t, ix, body(flags, 0, 1, 1, crit(7, id)))
		var out []string
		for _, v := range r.Results[0].Extensions[0].Versions {
			s := v.Version
			if v.TargetPlatform != "" {
				s += "@" + v.TargetPlatform
			}
			out = append(out, s)
		}
		return out
	}
	tests := []struct {
		flags int
		id    string
		want  []string
	}{
		{950, "ms-python.python", []string{"2024.3.0"}},
		{439, "ms-python.python", []string{"2024.3.0", "2024.2.0", "2024.0.0"}},
		{0x10000 | 0x10, "ms-python.python", []string{"2024.3.0", "2024.2.0"}},
		{0x200 | 0x1 | 0x10, "ms-python.python", []string{"2024.3.0"}}, // latest-only wins, as VS Code expects
		{0x4, "ms-python.python", nil},
		{0x10, "ms-python.python", []string{"2024.3.0"}},
		{950, "rust-lang.rust-analyzer", []string{"0.4.2@darwin-arm64", "0.4.2@linux-x64", "0.4.2@win32-x64"}},
		{439, "rust-lang.rust-analyzer", []string{"0.4.2@darwin-arm64", "0.4.2@linux-x64", "0.4.2@win32-x64", "0.4.1@darwin-arm64", "0.4.1@linux-x64", "0.4.1@win32-x64"}},
		{950, "ms-vscode.live-server", []string{"0.5.0", "0.5.0@web"}},
	}
	for _, tt := range tests {
		if got := versions(tt.flags, tt.id); !slices.Equal(got, tt.want) {
			t.Errorf("flags %#x %s: versions %q, want %q", tt.flags, tt.id, got, tt.want)
		}
	}
}

// TestQueryVersionFields checks each field VS Code reads from a version
// (toExtension, getVersionAsset, getDownloadAsset, getEngine, ...).
func TestQueryVersionFields(t *testing.T) {
	ix := New(testCatalog())
	r := ask(t, ix, body(439, 0, 1, 1, crit(7, "ms-python.python")))
	e := r.Results[0].Extensions[0]
	if e.ExtensionID != ExtensionUUID(index.MustParseID("ms-python.python")) || e.Publisher.PublisherID != PublisherUUID("ms-python") {
		t.Errorf("UUIDs: %q %q", e.ExtensionID, e.Publisher.PublisherID)
	}
	if e.DisplayName != "Python" || e.ShortDescription == "" || e.Publisher.PublisherName != "ms-python" {
		t.Errorf("names: %+v", e)
	}
	if !slices.Equal(e.Categories, []string{"Debuggers", "Programming Languages"}) || !slices.Equal(e.Tags, []string{"jupyter", "python"}) {
		t.Errorf("categories %q tags %q", e.Categories, e.Tags)
	}
	if e.LastUpdated != "2026-01-13T12:00:00.000Z" || e.ReleaseDate != "2026-01-05T12:00:00.000Z" || e.PublishedDate != e.ReleaseDate {
		t.Errorf("dates: updated %s released %s published %s", e.LastUpdated, e.ReleaseDate, e.PublishedDate)
	}
	if e.Statistics == nil || len(e.Statistics) != 0 {
		t.Errorf("statistics %v, want [] (a registry counts nothing)", e.Statistics)
	}
	if e.InstallationTargets != nil {
		t.Errorf("installationTargets %+v without flag 0x40", e.InstallationTargets)
	}
	withTargets := ask(t, ix, body(0x40, 0, 1, 1, crit(7, "ms-python.python"))).Results[0].Extensions[0]
	if len(withTargets.InstallationTargets) != 1 || withTargets.InstallationTargets[0].Target != "Microsoft.VisualStudio.Code" {
		t.Errorf("installationTargets %+v", withTargets.InstallationTargets)
	}
	pre, stable, old := e.Versions[0], e.Versions[1], e.Versions[2]
	if v, _ := pre.prop(PropPreRelease); v != "true" {
		t.Errorf("pre-release version: PreRelease %q", v)
	}
	if _, ok := stable.prop(PropPreRelease); ok {
		t.Error("stable version has the PreRelease property")
	}
	if v, _ := stable.prop(PropEngine); v != "^1.80.0" {
		t.Errorf("Engine %q", v)
	}
	if v, _ := stable.prop(PropDependencies); v != "ms-python.debugpy" {
		t.Errorf("ExtensionDependencies %q", v)
	}
	if v, _ := stable.prop(PropExtensionPack); v != "ms-python.debugpy,ms-python.vscode-pylance" {
		t.Errorf("ExtensionPack %q", v)
	}
	if v, _ := stable.prop(AssetSource); v != "https://github.com/microsoft/vscode-python.git" {
		t.Errorf("Links.Source %q", v)
	}
	want := testBase + "/vscode/asset/ms-python/python/2024.2.0"
	if stable.AssetURI != want || stable.FallbackAssetURI != want {
		t.Errorf("assetUri %q fallbackAssetUri %q, want %q", stable.AssetURI, stable.FallbackAssetURI, want)
	}
	for _, typ := range append(slices.Clone(fileTypes), AssetSignature) {
		src, ok := stable.file(typ)
		if !ok || src != want+"/"+typ {
			t.Errorf("files[%s] = %q, %v; want %q", typ, src, ok, want+"/"+typ)
		}
	}
	if _, ok := old.file(AssetSignature); ok {
		t.Error("an unsigned build lists a VsixSignature file: VS Code would fetch a .sigzip that is not there")
	}
	if stable.LastUpdated != "2026-01-10T12:00:00.000Z" || stable.TargetPlatform != "" {
		t.Errorf("version lastUpdated %q targetPlatform %q", stable.LastUpdated, stable.TargetPlatform)
	}

	r = ask(t, ix, body(950, 0, 1, 1, crit(7, "rust-lang.rust-analyzer")))
	v := r.Results[0].Extensions[0].Versions[1]
	if v.TargetPlatform != "linux-x64" {
		t.Fatalf("targetPlatform %q", v.TargetPlatform)
	}
	if src, _ := v.file(AssetVSIX); src != testBase+"/vscode/asset/rust-lang/rust-analyzer/0.4.2/"+AssetVSIX+"?targetPlatform=linux-x64" {
		t.Errorf("platform-specific VSIX source %q", src)
	}
	if v.AssetURI != testBase+"/vscode/asset/rust-lang/rust-analyzer/0.4.2" {
		t.Errorf("platform-specific assetUri %q (VS Code appends /{type}?targetPlatform= itself)", v.AssetURI)
	}

	r = ask(t, ix, body(950, 0, 1, 1, crit(7, "someone.plain")))
	if _, ok := r.Results[0].Extensions[0].Versions[0].prop(PropEngine); ok {
		t.Error("an entry without an engine got an Engine property")
	}
	r = ask(t, ix, body(950, 0, 1, 1, crit(7, "ms-vscode.live-server")))
	if v, _ := r.Results[0].Extensions[0].Versions[1].prop(PropWebExtension); v != "true" {
		t.Errorf("web build: WebExtension %q", v)
	}
}

func TestQueryMultipleFilters(t *testing.T) {
	ix := New(testCatalog())
	q, err := ParseQuery(strings.NewReader(`{"filters":[{"criteria":[{"filterType":10,"value":"rust"}]},{"criteria":[{"filterType":5,"value":"Themes"}]}],"flags":0}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ix.Query(q, testBase+"/")
	var r response
	decodeStrict(t, b, &r)
	if len(r.Results) != 2 || len(r.Results[0].Extensions) != 1 || len(r.Results[1].Extensions) != 1 {
		t.Fatalf("two filters, two results of one each: %s", b)
	}
	if len(r.Results[0].Extensions[0].Versions) != 0 {
		t.Errorf("flags 0: versions %v, want none", r.Results[0].Extensions[0].Versions)
	}
}

func TestLatest(t *testing.T) {
	ix := New(testCatalog())
	tests := []struct {
		id       string
		platform index.Platform
		want     []string // version@platform
		ok       bool
	}{
		{"ms-python.python", "", []string{"2024.3.0", "2024.2.0"}, true},
		{"MS-Python.Python", index.LinuxX64, []string{"2024.3.0", "2024.2.0"}, true}, // universal fallback
		{"rust-lang.rust-analyzer", index.DarwinArm64, []string{"0.4.2@darwin-arm64"}, true},
		{"rust-lang.rust-analyzer", index.AlpineX64, nil, false},
		{"rust-lang.rust-analyzer", "", []string{"0.4.2@darwin-arm64", "0.4.2@linux-x64", "0.4.2@win32-x64"}, true},
		{"rust-lang.rust-analyzer", index.Universal, nil, false},
		{"ms-vscode.live-server", "", []string{"0.5.0", "0.5.0@web"}, true},
		{"dracula-theme.theme-dracula", index.Web, []string{"2.24.3"}, true},
		{"no.such", "", nil, false},
	}
	for _, tt := range tests {
		ns, name, _ := strings.Cut(tt.id, ".")
		b, ok := ix.Latest(ns, name, tt.platform, testBase)
		if ok != tt.ok {
			t.Errorf("Latest(%s, %q): ok %v, want %v", tt.id, tt.platform, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		var e rawExtension
		decodeStrict(t, b, &e)
		var got []string
		for _, v := range e.Versions {
			s := v.Version
			if v.TargetPlatform != "" {
				s += "@" + v.TargetPlatform
			}
			got = append(got, s)
			if _, ok := v.prop(PropEngine); !ok {
				t.Errorf("Latest(%s): no Engine property", tt.id)
			}
			if len(v.Files) == 0 || v.AssetURI == "" {
				t.Errorf("Latest(%s): no files or assetUri", tt.id)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Latest(%s, %q): versions %q, want %q", tt.id, tt.platform, got, tt.want)
		}
	}
}

func TestUUIDs(t *testing.T) {
	a := ExtensionUUID(index.MustParseID("ms-python.python"))
	if b := ExtensionUUID(index.MustParseID("MS-Python.PYTHON")); a != b {
		t.Errorf("the UUID depends on case: %s %s", a, b)
	}
	if a == ExtensionUUID(index.MustParseID("ms-python.debugpy")) || a == PublisherUUID("ms-python") {
		t.Error("distinct names share a UUID")
	}
	// Pinned: every replica and every release must answer the same.
	if a != "88bc3c4b-cc36-88d3-9bc5-92d42706e471" || PublisherUUID("MS-Python") != "4318a56c-af05-8224-8b26-d75fdbbc0a5c" {
		t.Errorf("the derived UUIDs changed: %s %s", a, PublisherUUID("ms-python"))
	}
	if len(a) != 36 || a[14] != '8' || !strings.ContainsAny(a[19:20], "89ab") {
		t.Errorf("%s is not a version-8 RFC 9562 UUID", a)
	}
}

func TestNewEmptyAndInvalid(t *testing.T) {
	bad := build("ms-python.python", "1.0.0/../x", index.Universal, 1)
	ix := New(&index.Catalog{Entries: []index.Entry{bad}})
	r := ask(t, ix, body(950, 2, 50, 1))
	if len(r.Results[0].Extensions) != 0 || totalCount(t, r) != 0 {
		t.Errorf("an entry with a version unfit for a URL was served: %+v", r)
	}
	for _, sortBy := range []int{0, 1, 2, 3, 5} {
		ask(t, ix, body(950, sortBy, 50, 1, crit(10, "x")))
		ask(t, ix, body(950, sortBy, 50, 1, crit(5, "x")))
	}
	if _, ok := ix.Latest("ms-python", "python", "", testBase); ok {
		t.Error("Latest found an extension in an empty index")
	}
}
