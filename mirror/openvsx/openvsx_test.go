package openvsx

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
)

func TestExtensionVersion(t *testing.T) {
	s, c := newFixtureClient(t, openvsxtest.Options{})
	signed := []string{"download", "manifest", "publicKey", "sha256", "signature"}
	tests := []struct {
		name     string
		id       string
		platform index.Platform
		version  string

		wantVersion  string
		wantPlatform index.Platform
		wantTime     time.Time
		wantPre      bool
		wantFiles    []string // keys that must be present
		noFiles      bool
		wantDeps     []string
		wantPack     []string
	}{
		{name: "microseconds", id: "airvsx-demo.hello-command", version: "1.0.0",
			wantVersion: "1.0.0", wantPlatform: index.Universal,
			wantTime:  time.Date(2024, 1, 15, 3, 29, 7, 108336000, time.UTC),
			wantFiles: append(signed, "readme", "changelog", "license", "icon", "vsixmanifest")},
		{name: "milliseconds/platform", id: "airvsx-demo.hello-command", platform: index.LinuxX64, version: "1.0.0",
			wantVersion: "1.0.0", wantPlatform: index.LinuxX64,
			wantTime: time.Date(2024, 1, 15, 3, 29, 9, 500000000, time.UTC), wantFiles: signed},
		{name: "seconds/platform", id: "airvsx-demo.hello-command", platform: index.DarwinArm64, version: "1.0.0",
			wantVersion: "1.0.0", wantPlatform: index.DarwinArm64,
			wantTime: time.Date(2024, 1, 15, 3, 29, 11, 0, time.UTC), wantFiles: signed},
		{name: "minutes", id: "airvsx-demo.hello-command", platform: index.Universal, version: "2.0.0",
			wantVersion: "2.0.0", wantPlatform: index.Universal,
			wantTime: time.Date(2024, 6, 18, 3, 29, 0, 0, time.UTC), wantFiles: signed},
		{name: "pre-release", id: "airvsx-demo.hello-command", version: "1.1.0",
			wantVersion: "1.1.0", wantPlatform: index.Universal, wantPre: true,
			wantTime: time.Date(2024, 2, 20, 18, 45, 33, 123000, time.UTC), wantFiles: signed},
		{name: "alias", id: "airvsx-demo.hello-command", version: "pre-release",
			wantVersion: "1.1.0", wantPlatform: index.Universal, wantPre: true,
			wantTime: time.Date(2024, 2, 20, 18, 45, 33, 123000, time.UTC), wantFiles: signed},
		{name: "no files", id: "airvsx-demo.hello-command", version: "0.9.0",
			wantVersion: "0.9.0", wantPlatform: index.Universal, noFiles: true,
			wantTime: time.Date(2023, 12, 1, 9, 0, 0, 0, time.UTC)},
		{name: "unsigned", id: "other-pub.unsigned-tool", version: "0.1.0",
			wantVersion: "0.1.0", wantPlatform: index.Universal,
			wantTime: time.Date(2022, 5, 6, 7, 8, 0, 0, time.UTC), wantFiles: []string{"download", "sha256", "manifest"}},
		{name: "dependency", id: "airvsx-demo.uses-git", version: "1.0.0",
			wantVersion: "1.0.0", wantPlatform: index.Universal,
			wantTime:  time.Date(2024, 4, 2, 11, 22, 33, 444555000, time.UTC),
			wantFiles: signed, wantDeps: []string{"airvsx-demo.git-helper"}},
		{name: "pack", id: "airvsx-demo.demo-pack", version: "1.0.0",
			wantVersion: "1.0.0", wantPlatform: index.Universal,
			wantTime:  time.Date(2024, 3, 1, 10, 20, 30, 0, time.UTC),
			wantFiles: signed, wantPack: []string{"airvsx-demo.hello-command", "airvsx-demo.night-theme"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := index.MustParseID(tt.id)
			e, err := c.ExtensionVersion(t.Context(), id, tt.platform, tt.version)
			if err != nil {
				t.Fatalf("ExtensionVersion(%s, %q, %s): %v", id, tt.platform, tt.version, err)
			}
			gotID, err := e.ID()
			if err != nil || !gotID.Equal(id) {
				t.Errorf("ID() = %v, %v; want %s", gotID, err, id)
			}
			p, err := e.Platform()
			if err != nil || p != tt.wantPlatform {
				t.Errorf("Platform() = %q, %v; want %q", p, err, tt.wantPlatform)
			}
			if e.Version != tt.wantVersion || e.PreRelease != tt.wantPre {
				t.Errorf("version %q pre-release %v; want %q %v", e.Version, e.PreRelease, tt.wantVersion, tt.wantPre)
			}
			if !e.Timestamp.Equal(tt.wantTime) {
				t.Errorf("Timestamp = %v; want %v", e.Timestamp, tt.wantTime)
			}
			for _, k := range tt.wantFiles {
				u := e.Files[k]
				if !strings.HasPrefix(u, s.URL+"/api/") {
					t.Errorf("Files[%q] = %q; want a URL under %s/api/", k, u, s.URL)
				}
			}
			if tt.noFiles && len(e.Files) != 0 {
				t.Errorf("Files = %v; want none", e.Files)
			}
			if len(tt.wantFiles) > 0 && e.DownloadSize <= 0 {
				t.Errorf("DownloadSize = %d; want the vsix size", e.DownloadSize)
			}
			if e.Engines["vscode"] == "" {
				t.Errorf("Engines = %v; want a vscode range", e.Engines)
			}
			deps, err := e.DependencyIDs()
			if err != nil {
				t.Errorf("DependencyIDs: %v", err)
			}
			if diff := cmp.Diff(tt.wantDeps, idStrings(deps)); diff != "" {
				t.Errorf("DependencyIDs (-want +got):\n%s", diff)
			}
			pack, err := e.PackIDs()
			if err != nil {
				t.Errorf("PackIDs: %v", err)
			}
			if diff := cmp.Diff(tt.wantPack, idStrings(pack)); diff != "" {
				t.Errorf("PackIDs (-want +got):\n%s", diff)
			}
			// Raw is the upstream's bytes, exactly.
			path := "/api/" + id.Namespace + "/" + id.Name + "/"
			if tt.platform != "" {
				path += string(tt.platform) + "/"
			}
			if want := httpGet(t, s.URL+path+tt.version); !bytes.Equal(e.Raw, want) {
				t.Errorf("Raw differs from the upstream's body:\n%s\nwant\n%s", e.Raw, want)
			}
		})
	}
}

func TestExtensionLatest(t *testing.T) {
	_, c := newFixtureClient(t, openvsxtest.Options{Missing: []string{"nobody.nothing"}})
	e, err := c.Extension(t.Context(), helloID)
	if err != nil {
		t.Fatal(err)
	}
	if e.Version != "2.0.0" || e.DisplayName != "Hello Command" || !slices.Contains(e.VersionAlias, "latest") {
		t.Errorf("Extension = %s %q aliases %v; want 2.0.0 \"Hello Command\" [latest]", e.Version, e.DisplayName, e.VersionAlias)
	}
	for _, v := range []string{"latest", "pre-release", "2.0.0", "1.1.0", "1.0.0", "0.9.0"} {
		if e.AllVersions[v] == "" {
			t.Errorf("AllVersions has no %q: %v", v, e.AllVersions)
		}
	}
	if len(e.Downloads) == 0 || e.License != "MIT" || e.Repository == "" || e.Homepage == "" || !e.Verified {
		t.Errorf("Extension lacks fields: downloads %v license %q repository %q homepage %q verified %v",
			e.Downloads, e.License, e.Repository, e.Homepage, e.Verified)
	}

	_, err = c.Extension(t.Context(), index.MustParseID("nobody.nothing"))
	var he *HTTPError
	if !errors.Is(err, ErrNotFound) || !errors.As(err, &he) || he.Status != 404 || !strings.Contains(he.Body, "Extension not found") {
		t.Errorf("Extension(missing) = %v; want an *HTTPError 404 matching ErrNotFound", err)
	}
}

func TestExtensionLegacyShape(t *testing.T) {
	_, c := newFixtureClient(t, openvsxtest.Options{Legacy: true})
	e, err := c.ExtensionVersion(t.Context(), helloID, "", "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if e.DownloadSize != 0 {
		t.Errorf("legacy DownloadSize = %d; want 0 (not sent)", e.DownloadSize)
	}
}

func TestExtensionVersionRejectsWrongAnswer(t *testing.T) {
	body := `{"namespace":"a","name":"b","version":"9.9.9","targetPlatform":"universal","timestamp":"2024-01-01T00:00Z"}`
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, body)
	}))
	t.Cleanup(ts.Close)
	c, _ := newTestClient(t, ts.URL, nil)
	tests := []struct {
		id       string
		platform index.Platform
		version  string
	}{
		{"a.b", "", "1.0.0"},                  // wrong version
		{"a.other", "", "9.9.9"},              // wrong extension
		{"a.b", index.LinuxX64, "9.9.9"},      // wrong platform
		{"a.b", "", "1.0"},                    // not SemVer: no request
		{"a.b", index.Platform("x"), "1.0.0"}, // unknown platform: no request
	}
	for _, tt := range tests {
		if e, err := c.ExtensionVersion(t.Context(), index.MustParseID(tt.id), tt.platform, tt.version); err == nil {
			t.Errorf("ExtensionVersion(%s, %q, %s) = %s; want an error", tt.id, tt.platform, tt.version, e.Version)
		}
	}
}

func TestSitemap(t *testing.T) {
	_, c := newFixtureClient(t, openvsxtest.Options{})
	ids, err := c.Sitemap(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"airvsx-demo.demo-pack", "airvsx-demo.git-helper", "airvsx-demo.hello-command",
		"airvsx-demo.night-theme", "airvsx-demo.uses-git", "other-pub.unsigned-tool"}
	if diff := cmp.Diff(want, idStrings(ids)); diff != "" {
		t.Errorf("Sitemap (-want +got):\n%s", diff)
	}
}

func TestParseSitemap(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		want    []string
		skipped int
		wantErr bool
	}{
		{name: "entries", doc: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
			<url><loc> https://open-vsx.org/extension/ms-python/python </loc><lastmod>2024-01-01</lastmod></url>
			<url><loc>https://open-vsx.org/prefix/extension/a/b%2Bc/</loc></url>
			<url><loc>https://open-vsx.org/extension/MS-PYTHON/Python</loc></url>
			<url><loc>https://open-vsx.org/namespace/ms-python</loc></url>
			<url><loc>https://open-vsx.org/extension/bad.ns/x</loc></url>
			<url><loc>https://open-vsx.org/extension/a/%zz</loc></url>
			</urlset>`,
			want: []string{"ms-python.python", "a.b+c"}, skipped: 3},
		{name: "empty", doc: `<urlset></urlset>`},
		{name: "index", doc: `<sitemapindex><sitemap><loc>x</loc></sitemap></sitemapindex>`, wantErr: true},
		{name: "not xml", doc: `{"a":1}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			skipped := 0
			ids, err := parseSitemap([]byte(tt.doc), func(string, error) { skipped++ })
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseSitemap: %v; want error %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, idStrings(ids)); diff != "" {
				t.Errorf("IDs (-want +got):\n%s", diff)
			}
			if skipped != tt.skipped {
				t.Errorf("skipped %d; want %d", skipped, tt.skipped)
			}
		})
	}
}

func FuzzParseSitemap(f *testing.F) {
	f.Add([]byte(`<urlset><url><loc>https://h/extension/a/b</loc></url></urlset>`))
	f.Add([]byte(`<urlset><url><loc>https://h/extension/a/b</loc></url><url><loc>/extension/A/B/</loc></url></urlset>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ids, err := parseSitemap(b, func(string, error) {})
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, id := range ids {
			if err := id.Validate(); err != nil {
				t.Errorf("accepted invalid ID %q: %v", id, err)
			}
			if seen[id.Key()] {
				t.Errorf("ID %s listed twice", id)
			}
			seen[id.Key()] = true
		}
	})
}

func TestParseTimestamp(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
		err  bool
	}{
		{in: "2024-06-18T03:29:07.108336Z", want: time.Date(2024, 6, 18, 3, 29, 7, 108336000, time.UTC)},
		{in: "2024-06-18T03:29:07.100Z", want: time.Date(2024, 6, 18, 3, 29, 7, 100000000, time.UTC)},
		{in: "2024-06-18T03:29:07Z", want: time.Date(2024, 6, 18, 3, 29, 7, 0, time.UTC)},
		{in: "2024-06-18T03:29Z", want: time.Date(2024, 6, 18, 3, 29, 0, 0, time.UTC)},
		{in: "2024-06-18T05:29:07+02:00", want: time.Date(2024, 6, 18, 3, 29, 7, 0, time.UTC)},
		{in: "2024-06-18T03:29:07.5", want: time.Date(2024, 6, 18, 3, 29, 7, 500000000, time.UTC)},
		{in: "2024-06-18T03:29", want: time.Date(2024, 6, 18, 3, 29, 0, 0, time.UTC)},
		{in: "2024-06-18", err: true},
		{in: "yesterday", err: true},
		{in: "", err: true},
	}
	for _, tt := range tests {
		got, err := ParseTimestamp(tt.in)
		if (err != nil) != tt.err || !got.Equal(tt.want) {
			t.Errorf("ParseTimestamp(%q) = %v, %v; want %v (error %v)", tt.in, got, err, tt.want, tt.err)
		}
		if err == nil && got.Location() != time.UTC {
			t.Errorf("ParseTimestamp(%q) is in %v; want UTC", tt.in, got.Location())
		}
	}
}

func FuzzParseTimestamp(f *testing.F) {
	for _, s := range []string{"2024-06-18T03:29:07.108336Z", "2024-06-18T03:29Z", "2024-06-18T03:29", "2024-06-18T03:29:07+02:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseTimestamp(s)
		if err != nil {
			return
		}
		// Accepted ⇒ it round-trips through the format we store it in.
		back, err := time.Parse(time.RFC3339Nano, got.Format(time.RFC3339Nano))
		if err != nil || !back.Equal(got) {
			t.Errorf("ParseTimestamp(%q) = %v, which does not round-trip: %v, %v", s, got, back, err)
		}
	})
}

func TestExtensionDecode(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		wantErr bool
		check   func(t *testing.T, e *Extension)
	}{
		{name: "2020 shape", json: `{"namespace":"usernamehw","name":"indent-one-space","version":"0.2.6",
			"timestamp":"2020-06-16T13:41:21.518786Z","dependencies":[],"bundledExtensions":[],"unrelatedPublisher":false}`,
			check: func(t *testing.T, e *Extension) {
				if p, err := e.Platform(); p != index.Universal || err != nil {
					t.Errorf("Platform() = %q, %v; want universal", p, err)
				}
			}},
		{name: "bad refs", json: `{"namespace":"a","name":"b","version":"1.0.0","timestamp":"2024-01-01T00:00Z",
			"dependencies":[{"namespace":"x","extension":"y"},{"namespace":"bad ns","extension":"z"}],
			"bundledExtensions":[{"namespace":"","extension":"q"}]}`,
			check: func(t *testing.T, e *Extension) {
				ids, err := e.DependencyIDs()
				if err == nil || !strings.Contains(err.Error(), "dependencies[1]") || len(ids) != 1 {
					t.Errorf("DependencyIDs = %v, %v; want [x.y] and an error naming dependencies[1]", ids, err)
				}
				if _, err := e.PackIDs(); err == nil {
					t.Error("PackIDs: want an error")
				}
			}},
		{name: "bad timestamp", json: `{"namespace":"a","name":"b","version":"1.0.0","timestamp":"soon"}`, wantErr: true},
		{name: "bad platform", json: `{"namespace":"a","name":"b","version":"1.0.0","targetPlatform":"amiga"}`,
			check: func(t *testing.T, e *Extension) {
				if _, err := e.Platform(); err == nil {
					t.Error("Platform(): want an error")
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e Extension
			err := json.Unmarshal([]byte(tt.json), &e)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Unmarshal: %v; want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if string(e.Raw) != tt.json {
				t.Errorf("Raw = %s; want the input", e.Raw)
			}
			if tt.check != nil {
				tt.check(t, &e)
			}
		})
	}
}

func idStrings(ids []index.ID) []string {
	var out []string
	for _, id := range ids {
		out = append(out, id.String())
	}
	return out
}

// httpGet fetches u with a plain client and returns the body.
func httpGet(t *testing.T, u string) []byte {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
