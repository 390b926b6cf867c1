package serve_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/serve"
)

// TestGalleryAssets: every asset type the gallery advertises answers the
// layer's bytes for every entry; the signature only where upstream
// signed; an asset the package lacks is a clean 404.
func TestGalleryAssets(t *testing.T) {
	f := newFixture(t, serve.Options{})
	cat := catalog(t, f.dir)
	roles := map[string]artifact.Role{
		"Microsoft.VisualStudio.Services.VSIXPackage":       artifact.RoleVsix,
		"Microsoft.VisualStudio.Code.Manifest":              artifact.RoleManifest,
		"Microsoft.VisualStudio.Services.Content.Details":   artifact.RoleReadme,
		"Microsoft.VisualStudio.Services.Content.Changelog": artifact.RoleChangelog,
		"Microsoft.VisualStudio.Services.Content.License":   artifact.RoleLicense,
		"Microsoft.VisualStudio.Services.Icons.Default":     artifact.RoleIcon,
		"Microsoft.VisualStudio.Services.VsixSignature":     artifact.RoleUpstreamSignature,
	}
	served, missing := 0, 0
	for i := range cat.Entries {
		e := &cat.Entries[i]
		m := entryManifest(t, f.dir, e)
		for asset, role := range roles {
			path := fmt.Sprintf("/vscode/asset/%s/%s/%s/%s?targetPlatform=%s", e.ID.Namespace, e.ID.Name, e.Version, asset, e.Platform)
			resp, body := f.get(t, path)
			l, ok := m.Layer(role)
			if role == artifact.RoleUpstreamSignature && !e.Upstream.Signed {
				ok = false
			}
			if !ok {
				missing++
				if resp.StatusCode != http.StatusNotFound {
					t.Errorf("%s (%s has none): %s; want 404", path, e, resp.Status)
				}
				continue
			}
			served++
			if resp.StatusCode != http.StatusOK || !bytes.Equal(body, layerBytes(t, f.dir, e, l)) {
				t.Errorf("%s: %s, %d bytes; want the %s layer's %d", path, resp.Status, len(body), role, l.Size)
			}
		}
	}
	if served == 0 || missing == 0 {
		t.Fatalf("served %d assets and found %d missing: the test proves too little", served, missing)
	}
}

// fakeGallery stands for serve/gallery: it answers every query with the
// body it was sent, and refuses a body that is not JSON.
type fakeGallery struct{ cat *index.Catalog }

func (g fakeGallery) Query(body io.Reader, base string) ([]byte, error) {
	b, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(b, []byte("{")) {
		return nil, fmt.Errorf("%w: not a JSON object", serve.ErrBadQuery)
	}
	return []byte(fmt.Sprintf(`{"base":%q,"entries":%d,"query":%s}`, base, len(g.cat.Entries), b)), nil
}

func (g fakeGallery) Latest(ns, name string, p index.Platform, base string) ([]byte, bool) {
	if ns != "airvsx-demo" {
		return nil, false
	}
	return []byte(fmt.Sprintf(`{"extensionName":%q,"platform":%q}`, name, p)), true
}

// TestGalleryRoutes: the query and latest routes reach the snapshot's
// Gallery with the base URL, its ErrBadQuery is a 400, a body over the
// bound a 413; stats POSTs are answered; item redirects to the
// extension's page; without a Gallery the query is a 501.
func TestGalleryRoutes(t *testing.T) {
	f := newFixture(t, serve.Options{Gallery: func(cat *index.Catalog) serve.Gallery { return fakeGallery{cat} }})
	post := func(path, body string) (*http.Response, []byte) {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", f.ts.URL+path, strings.NewReader(body))
		return do(t, req)
	}
	for _, p := range []string{"/vscode/gallery/extensionquery", "/_apis/public/gallery/extensionquery"} {
		resp, body := post(p, `{"filters":[]}`)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"base":"`+f.ts.URL+`"`) {
			t.Errorf("POST %s: %s %s", p, resp.Status, body)
		}
	}
	if resp, body := post("/vscode/gallery/extensionquery", "nope"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a bad query: %s %s; want 400", resp.Status, body)
	}
	if resp, _ := post("/vscode/gallery/extensionquery", "{"+strings.Repeat(" ", 1<<20)+"}"); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a 1 MB query: %s; want 413", resp.Status)
	}
	for _, p := range []string{"/vscode/gallery/airvsx-demo/night-theme/latest", "/vscode/gallery/vscode/airvsx-demo/night-theme/latest?targetPlatform=linux-x64"} {
		if resp, body := f.get(t, p); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "night-theme") {
			t.Errorf("GET %s: %s %s", p, resp.Status, body)
		}
	}
	if resp, _ := f.get(t, "/vscode/gallery/other-pub/unsigned-tool/latest"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("latest the gallery does not know: %s; want 404", resp.Status)
	}
	if resp, _ := post("/vscode/gallery/publishers/airvsx-demo/extensions/night-theme/2.1.0/stats?statType=install", ""); resp.StatusCode != http.StatusOK {
		t.Errorf("stats: %s; want 200", resp.Status)
	}
	if resp, _ := f.get(t, "/vscode/item?itemName=airvsx-demo.night-theme"); resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != f.ts.URL+"/ext/airvsx-demo.night-theme.html" {
		t.Errorf("item: %s %s", resp.Status, resp.Header.Get("Location"))
	}

	bare := newFixture(t, serve.Options{})
	req, _ := http.NewRequestWithContext(t.Context(), "POST", bare.ts.URL+"/vscode/gallery/extensionquery", strings.NewReader("{}"))
	if resp, _ := do(t, req); resp.StatusCode != http.StatusNotImplemented {
		t.Errorf("no gallery: %s; want 501", resp.Status)
	}
}

// TestSite: the static catalog is served at "/", its search index and
// pages with it; a directory is its index.html or a 404, never a
// listing.
func TestSite(t *testing.T) {
	f := newFixture(t, serve.Options{SiteDir: t.TempDir()})
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, body := f.get(t, "/")
		if resp.StatusCode == http.StatusOK && bytes.Contains(body, []byte("assets/site.js")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the static catalog was not served within 20 s: %s %.200s", resp.Status, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for path, want := range map[string]int{
		"/index.html": 200, "/assets/search-index.js": 200, "/assets/site.css": 200,
		"/ext/airvsx-demo.night-theme.html": 200, "/ext/": 404, "/assets": 404, "/nothing.html": 404,
	} {
		if resp, body := f.get(t, path); resp.StatusCode != want {
			t.Errorf("GET %s: %s %.100s; want %d", path, resp.Status, body, want)
		}
	}
	if _, body := f.get(t, "/assets/search-index.js"); !bytes.Contains(body, []byte("night-theme")) {
		t.Errorf("the search index lacks night-theme")
	}
}

// countingGallery is fakeGallery counting the queries it answers.
type countingGallery struct {
	fakeGallery
	n *atomic.Int64
}

func (g countingGallery) Query(body io.Reader, base string) ([]byte, error) {
	g.n.Add(1)
	return g.fakeGallery.Query(body, base)
}

// TestGalleryQueryCache: a query body asked again at the same base is
// answered from the snapshot's cache, the same bytes (gzipped too);
// another body or another base asks the gallery; a bad query is never
// kept.
func TestGalleryQueryCache(t *testing.T) {
	var n atomic.Int64
	f := newFixture(t, serve.Options{Gallery: func(cat *index.Catalog) serve.Gallery { return countingGallery{fakeGallery{cat}, &n} }})
	post := func(host, body string, gz bool) []byte {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", f.ts.URL+"/vscode/gallery/extensionquery", strings.NewReader(body))
		if host != "" {
			req.Host = host
		}
		var resp *http.Response
		var b []byte
		if gz { // do asks for identity
			req.Header.Set("Accept-Encoding", "gzip")
			r, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Body.Close()
			if b, err = io.ReadAll(r.Body); err != nil {
				t.Fatal(err)
			}
			resp = r
		} else {
			resp, b = do(t, req)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %s %s", body, resp.Status, b)
		}
		if gz {
			if resp.Header.Get("Content-Encoding") != "gzip" {
				t.Fatalf("asked for gzip, got Content-Encoding %q", resp.Header.Get("Content-Encoding"))
			}
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		return b
	}
	big := `{"filters":[],"pad":"` + strings.Repeat("x", 2000) + `"}`
	first := post("", big, false)
	for _, gz := range []bool{false, true, true} {
		if got := post("", big, gz); !bytes.Equal(got, first) {
			t.Fatalf("asked again (gzip %v): %s; want %s", gz, got, first)
		}
	}
	if got := n.Load(); got != 1 {
		t.Errorf("the same body asked 4 times reached the gallery %d times; want once", got)
	}
	if got := post("mirror.example:8080", big, false); !strings.Contains(string(got), `"base":"http://mirror.example:8080"`) {
		t.Errorf("another Host was answered with %s", got)
	}
	post("", `{"filters":[1]}`, false)
	if got := n.Load(); got != 3 {
		t.Errorf("another base and another body reached the gallery %d times in all; want 3", got)
	}
	for range 2 {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", f.ts.URL+"/vscode/gallery/extensionquery", strings.NewReader("nope"))
		if resp, _ := do(t, req); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("a bad query: %s; want 400", resp.Status)
		}
	}
	if got := n.Load(); got != 5 {
		t.Errorf("a bad query asked twice reached the gallery %d times; want twice (never kept)", got-3)
	}
}
