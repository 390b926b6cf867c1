package openvsxtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGolden compares representative responses with testdata/*.golden,
// field by field (decoded JSON, the base URL replaced by {base}).
// UPDATE_GOLDEN=1 rewrites the golden files.
func TestGolden(t *testing.T) {
	s := New(t, Options{})
	tests := []struct {
		name, path string
	}{
		{"extension-latest", "/api/airvsx-demo/hello-command"},
		{"extension-version", "/api/airvsx-demo/hello-command/1.0.0"},
		{"extension-platform", "/api/airvsx-demo/hello-command/linux-x64"},
		{"extension-platform-version", "/api/airvsx-demo/hello-command/darwin-arm64/1.0.0"},
		{"extension-pre-release", "/api/airvsx-demo/hello-command/pre-release"},
		{"extension-no-files", "/api/airvsx-demo/hello-command/0.9.0"},
		{"extension-pack", "/api/airvsx-demo/demo-pack"},
		{"extension-dependency", "/api/airvsx-demo/uses-git"},
		{"extension-unsigned", "/api/other-pub/unsigned-tool"},
		{"version-references", "/api/airvsx-demo/hello-command/version-references?size=3&offset=4"},
		{"version-references-platform", "/api/airvsx-demo/hello-command/linux-x64/version-references"},
		{"versions", "/api/airvsx-demo/hello-command/versions"},
		{"search", "/api/-/search?query=git"},
		{"search-all-versions", "/api/-/search?query=publisher:other-pub&includeAllVersions=true"},
		{"namespace", "/api/airvsx-demo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := relative(getJSON(t, s.URL+tt.path), s.URL)
			b, _ := json.MarshalIndent(got, "", "  ")
			var want any
			if err := json.Unmarshal(golden(t, tt.name, append(b, '\n')), &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("GET %s mismatch (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}

// TestFieldOrder checks that ExtensionJson keys come in upstream's
// (Jackson declaration) order and allVersions in alias-then-newest order.
func TestFieldOrder(t *testing.T) {
	s := New(t, Options{})
	_, b := get(t, s.URL+"/api/airvsx-demo/hello-command")
	keys := topLevelKeys(t, b)
	want := []string{"namespaceUrl", "reviewsUrl", "files", "downloadSize", "name", "namespace",
		"targetPlatform", "version", "preRelease", "publishedBy", "publishedWithTrustedPublishing",
		"verified", "allVersions", "allVersionsUrl", "averageRating", "downloadCount", "reviewCount",
		"versionAlias", "timestamp", "preview", "displayName", "namespaceDisplayName", "description",
		"engines", "categories", "extensionKind", "tags", "license", "homepage", "repository",
		"sponsorLink", "bugs", "galleryColor", "galleryTheme", "localizedLanguages", "dependencies",
		"bundledExtensions", "downloads", "deprecated", "downloadable"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("key order (-want +got):\n%s", diff)
	}
	var raw struct{ AllVersions json.RawMessage }
	json.Unmarshal(b, &raw)
	if got, want := topLevelKeys(t, raw.AllVersions), []string{"latest", "pre-release", "2.0.0", "1.1.0", "1.0.0", "0.9.0"}; !cmp.Equal(got, want) {
		t.Errorf("allVersions keys = %q; want %q", got, want)
	}

	legacy := New(t, Options{Legacy: true})
	_, b = get(t, legacy.URL+"/api/airvsx-demo/hello-command")
	keys = topLevelKeys(t, b)
	for _, k := range []string{"unrelatedPublisher", "namespaceAccess"} {
		if !strings.Contains(strings.Join(keys, " "), k) {
			t.Errorf("Legacy: no %s in %q", k, keys)
		}
	}
	for _, k := range []string{"downloadSize", "publishedWithTrustedPublishing"} {
		if strings.Contains(strings.Join(keys, " "), k) {
			t.Errorf("Legacy: %s present", k)
		}
	}
}

func topLevelKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestResolution covers which version each path resolves to, the timestamps'
// varying precision, and the aliases.
func TestResolution(t *testing.T) {
	s := New(t, Options{})
	tests := []struct {
		path                         string
		version, platform, timestamp string
		preRelease                   bool
		alias                        []any
	}{
		{"/api/airvsx-demo/hello-command", "2.0.0", "universal", "2024-06-18T03:29Z", false, []any{"latest"}},
		{"/api/airvsx-demo/hello-command/latest", "2.0.0", "universal", "2024-06-18T03:29Z", false, []any{"latest"}},
		{"/api/airvsx-demo/hello-command/pre-release", "1.1.0", "universal", "2024-02-20T18:45:33.000123Z", true, []any{"pre-release"}},
		{"/api/airvsx-demo/hello-command/1.0.0", "1.0.0", "universal", "2024-01-15T03:29:07.108336Z", false, []any{}},
		{"/api/airvsx-demo/hello-command/linux-x64", "1.0.0", "linux-x64", "2024-01-15T03:29:09.500Z", false, []any{"latest"}},
		{"/api/airvsx-demo/hello-command/darwin-arm64/latest", "1.0.0", "darwin-arm64", "2024-01-15T03:29:11Z", false, []any{"latest"}},
		{"/api/airvsx-demo/hello-command/universal", "2.0.0", "universal", "2024-06-18T03:29Z", false, []any{"latest"}},
		{"/api/airvsx-demo/hello-command/universal/0.9.0", "0.9.0", "universal", "2023-12-01T09:00Z", false, []any{}},
		{"/api/airvsx-demo/night-theme", "2.1.0", "universal", "2023-10-05T12:00:01.100Z", false, []any{"latest"}},
	}
	for _, tt := range tests {
		j := getJSON(t, s.URL+tt.path)
		got := []any{j["version"], j["targetPlatform"], j["timestamp"], j["preRelease"], j["versionAlias"]}
		want := []any{tt.version, tt.platform, tt.timestamp, tt.preRelease, tt.alias}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("GET %s: (version, platform, timestamp, preRelease, versionAlias) (-want +got):\n%s", tt.path, diff)
		}
		if _, err := ParseTimestamp(j["timestamp"].(string)); err != nil {
			t.Errorf("GET %s: %v", tt.path, err)
		}
	}
}

// TestNotFound: a known extension's missing version or platform is a
// legitimate upstream 404 and does not fail the test; neither do the IDs
// in Options.Missing.
func TestNotFound(t *testing.T) {
	s, fake := newFake(t, Options{Missing: []string{"nobody.nothing"}})
	tests := []struct {
		path   string
		status int
		body   string
	}{
		{"/api/airvsx-demo/hello-command/9.9.9", 404, `{"error":"Extension not found: airvsx-demo.hello-command 9.9.9"}`},
		{"/api/airvsx-demo/hello-command/win32-x64", 404, `{"error":"Extension not found: airvsx-demo.hello-command (win32-x64)"}`},
		{"/api/airvsx-demo/hello-command/linux-x64/2.0.0", 404, `{"error":"Extension not found: airvsx-demo.hello-command 2.0.0 (linux-x64)"}`},
		{"/api/airvsx-demo/night-theme/pre-release", 404, `{"error":"Extension not found: airvsx-demo.night-theme pre-release"}`},
		{"/api/nobody/nothing", 404, `{"error":"Extension not found: nobody.nothing"}`},
		{"/api/nobody/nothing/version-references", 200, `{"offset":0,"totalSize":0,"versions":[]}`},
		{"/api/airvsx-demo/hello-command/win32-x64/version-references", 200, `{"offset":0,"totalSize":0,"versions":[]}`},
	}
	for _, tt := range tests {
		status, body := get(t, s.URL+tt.path)
		if status != tt.status || string(body) != tt.body {
			t.Errorf("GET %s = %d %s; want %d %s", tt.path, status, body, tt.status, tt.body)
		}
	}
	if errs := fake.Errors(); len(errs) > 0 {
		t.Errorf("server reported %q; want nothing", errs)
	}
}

// TestUnknownFailsTest: requests without a fixture call tb.Errorf and get a
// 404 in upstream's error shape.
func TestUnknownFailsTest(t *testing.T) {
	s, fake := newFake(t, Options{})
	paths := []string{
		"/api/nobody/nothing",
		"/api/airvsx-demo/hello-command/not-a-version",
		"/api/airvsx-demo/hello-command/1.0.0/file/no-such-file.txt",
		"/api/airvsx-demo/hello-command/0.9.0/file/download", // files {}
		"/api/other-pub/unsigned-tool/0.1.0/file/signature",  // unsigned
		"/api/-/public-key/00000000-0000-0000-0000-000000000000",
		"/cdn/airvsx-demo/hello-command/9.9.9/x.vsix",
		"/favicon.ico",
	}
	for _, p := range paths {
		status, body := get(t, s.URL+p)
		var e errorJSON
		if status != http.StatusNotFound || json.Unmarshal(body, &e) != nil || e.Error == "" {
			t.Errorf("GET %s = %d %s; want 404 {\"error\":…}", p, status, body)
		}
	}
	if resp, err := http.Post(s.URL+"/api/airvsx-demo/hello-command", "application/json", nil); err == nil {
		resp.Body.Close()
	}
	var want []string
	for _, p := range paths {
		want = append(want, "openvsxtest: no fixture for GET "+p)
	}
	want = append(want, "openvsxtest: no fixture for POST /api/airvsx-demo/hello-command")
	if diff := cmp.Diff(want, fake.Errors()); diff != "" {
		t.Errorf("Errorf calls (-want +got):\n%s", diff)
	}
}

// TestDownloads: every download URL answers 302 to the CDN path, the bytes
// are the fixture file and match the .sha256 file.
func TestDownloads(t *testing.T) {
	s := New(t, Options{})
	fx, err := LoadFixtures(DefaultDir())
	if err != nil {
		t.Fatal(err)
	}
	hexRE := regexp.MustCompile(`^[0-9a-f]{64}$`)
	for _, f := range fx {
		t.Run(f.FileBase(), func(t *testing.T) {
			tp := ""
			if f.TargetPlatform() != "universal" {
				tp = "/" + string(f.TargetPlatform())
			}
			fs := files(t, getJSON(t, s.URL+"/api/"+f.Namespace+"/"+f.Name+tp+"/"+f.Version))
			if f.NoFiles {
				if len(fs) != 0 {
					t.Fatalf("files = %v; want {}", fs)
				}
				return
			}
			resp, err := noRedirect.Get(fs["download"])
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			wantLoc := s.URL + "/cdn/" + f.Namespace + "/" + f.Name + tp + "/" + f.Version + "/" + f.File
			if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != wantLoc {
				t.Errorf("GET %s = %d Location %q; want 302 %q", fs["download"], resp.StatusCode, resp.Header.Get("Location"), wantLoc)
			}
			_, vsix := get(t, fs["download"])
			if !bytes.Equal(vsix, ReadFixture(t, f.File)) {
				t.Errorf("download differs from %s", f.File)
			}
			_, sum := get(t, fs["sha256"])
			got := sha256.Sum256(vsix)
			if !hexRE.Match(sum) || string(sum) != hex.EncodeToString(got[:]) {
				t.Errorf(".sha256 = %q; want lowercase hex %x, no newline", sum, got)
			}
			// The type keyword works like the file name, case-insensitively.
			_, byType := get(t, strings.Replace(fs["download"], f.File, "DownLoad", 1))
			if !bytes.Equal(byType, vsix) {
				t.Errorf("file/DownLoad differs from the download")
			}
		})
	}
}

// TestHead: HEAD works on the API (a mirror HEADs the download without
// following the redirect) and on the CDN.
func TestHead(t *testing.T) {
	s := New(t, Options{})
	req, _ := http.NewRequest(http.MethodHead, s.URL+"/api/airvsx-demo/hello-command/linux-x64/1.0.0/file/download", nil)
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || !strings.HasSuffix(loc, "/airvsx-demo.hello-command-1.0.0@linux-x64.vsix") {
		t.Fatalf("HEAD download = %d %q; want 302 to the .vsix", resp.StatusCode, loc)
	}
	resp, err = http.Head(loc)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.ContentLength != 3957 {
		t.Errorf("HEAD %s = %d, length %d; want 200, 3957", loc, resp.StatusCode, resp.ContentLength)
	}
}

// TestETag: JSON answers carry upstream's shallow ETag and If-None-Match
// gets a 304.
func TestETag(t *testing.T) {
	s := New(t, Options{})
	for _, p := range []string{"/api/airvsx-demo/hello-command", "/api/-/search?query=hello", "/sitemap.xml"} {
		resp, err := http.Get(s.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		etag := resp.Header.Get("ETag")
		if !regexp.MustCompile(`^"0[0-9a-f]{32}"$`).MatchString(etag) {
			t.Errorf("GET %s: ETag %q; want \"0<md5 hex>\"", p, etag)
		}
		req, _ := http.NewRequest(http.MethodGet, s.URL+p, nil)
		req.Header.Set("If-None-Match", etag)
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotModified {
			t.Errorf("GET %s with If-None-Match %s = %d; want 304", p, etag, resp.StatusCode)
		}
		req.Header.Set("If-None-Match", `"0stale"`)
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s with a stale ETag = %d; want 200", p, resp.StatusCode)
		}
	}
}

// TestSitemap compares /sitemap.xml with its golden file.
func TestSitemap(t *testing.T) {
	s := New(t, Options{})
	status, b := get(t, s.URL+"/sitemap.xml")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	got := strings.ReplaceAll(string(b), s.URL, "{base}")
	if diff := cmp.Diff(string(golden(t, "sitemap", []byte(got))), got); diff != "" {
		t.Errorf("sitemap (-want +got):\n%s", diff)
	}
}

// TestSearch covers parameters, the 10,000-result window and errors.
func TestSearch(t *testing.T) {
	s := New(t, Options{})
	tests := []struct {
		query  string
		status int
		names  []string
		total  float64
	}{
		{"", 200, []string{"hello-command", "night-theme", "git-helper", "demo-pack", "uses-git", "unsigned-tool"}, 6},
		{"size=2&offset=1", 200, []string{"night-theme", "git-helper"}, 6},
		{"query=@publisher:other-pub", 200, []string{"unsigned-tool"}, 1},
		{"query=THEME", 200, []string{"night-theme", "demo-pack"}, 2},
		{"category=Extension%20Packs", 200, []string{"demo-pack"}, 1},
		{"targetPlatform=darwin-arm64", 200, []string{"hello-command"}, 1},
		{"targetPlatform=bogus&size=1", 200, []string{"hello-command"}, 6},
		{"sortBy=timestamp&sortOrder=asc&size=1", 200, []string{"unsigned-tool"}, 6},
		{"offset=9995&size=10", 200, nil, 0},
		{"size=0", 200, nil, 0},
		{"size=-1", 400, nil, 0},
	}
	for _, tt := range tests {
		status, b := get(t, s.URL+"/api/-/search?"+tt.query)
		if status != tt.status {
			t.Errorf("search?%s: status %d; want %d", tt.query, status, tt.status)
			continue
		}
		if status != http.StatusOK {
			continue
		}
		var res struct {
			TotalSize  float64
			Extensions []struct{ Name string }
		}
		json.Unmarshal(b, &res)
		var names []string
		for _, e := range res.Extensions {
			names = append(names, e.Name)
		}
		if !cmp.Equal(names, tt.names) || res.TotalSize != tt.total {
			t.Errorf("search?%s = %q (total %v); want %q (total %v)", tt.query, names, res.TotalSize, tt.names, tt.total)
		}
	}
}
