package mirror_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/mirror"
	"github.com/airvsx/airvsx/mirror/openvsx"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
)

// requestsPolicy mirrors every version and platform of a few signed
// extensions: several versions and platforms of hello-command, and
// extensions of one version each.
const requestsPolicy = `version: 1
platforms: [universal, linux-x64, darwin-arm64]
extensions:
  - id: airvsx-demo.hello-command
    latest: 10
    preRelease: true
  - id: airvsx-demo.night-theme
  - id: airvsx-demo.git-helper
  - id: airvsx-demo.demo-pack
  - id: airvsx-demo.uses-git
requireUpstreamSignature: true
`

// TestSyncRequestsPerPackage: a sync of N new packages sends at most 2N
// requests to the upstream's API host (the query pages of each
// extension's versions, one HEAD per package asking where it lives, the
// signing key once); the package, its .sha256 and its signature come
// from storage, here a listener of its own as open-vsx.org's CDN is. A
// second sync that finds nothing new asks the API host one query page per
// extension and storage nothing.
func TestSyncRequestsPerPackage(t *testing.T) {
	srv := openvsxtest.New(t, openvsxtest.Options{CDN: true})
	sv, _ := demoreg.Signer(t, t.TempDir(), "signer")
	e := &env{srv: srv, client: demoreg.Client(t, srv), signer: sv, dir: filepath.Join(t.TempDir(), "registry")}
	pol := demoreg.ParsePolicy(t, requestsPolicy)
	apiHost := func() int { return srv.Count("/api/") + srv.Count("/sitemap.xml") }

	rep := e.sync(t, pol, false)
	n := len(rep.Stored)
	if rep.Failed() || n < 8 || n != len(rep.Plan.New) {
		t.Fatalf("stored %v, quarantined %v; want every planned package (8 or more)", rep.Stored, rep.Quarantined)
	}
	api, storage := apiHost(), srv.Count("/cdn/")
	t.Logf("%d new packages: %d requests to the API host (%.2f a package), %d to storage", n, api, float64(api)/float64(n), storage)
	if api > 2*n {
		t.Errorf("%d requests to the API host for %d new packages; want at most %d (2 a package)", api, n, 2*n)
	}
	if want := 3 * n; storage != want {
		t.Errorf("%d requests to storage; want %d (each package, its .sha256 and its signature)", storage, want)
	}
	// The plan told what fetching would cost before it started: a HEAD a
	// package and the key on the API host (the rest of the API host's
	// requests, one query page per extension, made the plan), and every
	// file from storage.
	if want := (mirror.Requests{API: n + 1, Storage: 3 * n}); rep.Plan.FetchRequests != want || api-5 != want.API {
		t.Errorf("plan's FetchRequests %+v; want %+v, the %d and %d sent fetching", rep.Plan.FetchRequests, want, api-5, storage)
	}
	if len(rep.Egress) != api+storage {
		t.Errorf("egress log has %d requests; the upstream answered %d", len(rep.Egress), api+storage)
	}

	rep = e.sync(t, pol, false)
	api2, storage2 := apiHost()-api, srv.Count("/cdn/")-storage
	t.Logf("nothing new: %d requests to the API host, %d to storage", api2, storage2)
	if len(rep.Plan.New) != 0 || rep.Catalog == nil || !rep.Catalog.Unchanged {
		t.Fatalf("second sync: %d new, catalog %+v; want nothing new", len(rep.Plan.New), rep.Catalog)
	}
	if api2 > 5 || storage2 != 0 {
		t.Errorf("a sync with nothing new sent %d requests to the API host and %d to storage; want one query page per extension (5) and none", api2, storage2)
	}
}

func TestRequestsDuration(t *testing.T) {
	tests := []struct {
		r    mirror.Requests
		rate float64
		want time.Duration
	}{
		{mirror.Requests{API: 10, Storage: 27}, 2, 5 * time.Second},
		{mirror.Requests{API: 100_000, Storage: 300_000}, 2, 50_000 * time.Second},
		{mirror.Requests{API: 3}, 0.5, 6 * time.Second},
		{mirror.Requests{}, 2, 0},
		{mirror.Requests{API: 3}, 0, 0},
	}
	for _, tt := range tests {
		if got := tt.r.Duration(tt.rate); got != tt.want {
			t.Errorf("%+v.Duration(%g) = %v; want %v", tt.r, tt.rate, got, tt.want)
		}
	}
}

// TestSyncUpstreamServesFiles: an upstream that answers the package's API
// URL itself (no redirect to storage) has its .sha256 and signature
// fetched from their API URLs, and every check still holds.
func TestSyncUpstreamServesFiles(t *testing.T) {
	fx, err := openvsxtest.LoadFixtures(openvsxtest.DefaultDir())
	if err != nil {
		t.Fatal(err)
	}
	h, err := openvsxtest.NewHandler(fx, openvsxtest.Options{}, func(r *http.Request) {
		t.Errorf("no fixture for %s %s", r.Method, r.URL)
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead && strings.Contains(r.URL.Path, "/file/") {
			w.Header().Set("Content-Type", "application/octet-stream")
			return // served here: no redirect
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	c, err := openvsx.NewClient(openvsx.ClientOptions{BaseURL: ts.URL, Rate: 1000, Burst: 100})
	if err != nil {
		t.Fatal(err)
	}
	sv, _ := demoreg.Signer(t, t.TempDir(), "signer")
	e := &env{client: c, signer: sv, dir: filepath.Join(t.TempDir(), "registry")}
	rep := e.sync(t, demoreg.ParsePolicy(t, "version: 1\nrequireUpstreamSignature: true\nextensions:\n  - id: airvsx-demo.night-theme\n"), false)
	if rep.Failed() || len(rep.Stored) != 1 {
		t.Fatalf("stored %v, quarantined %v; want night-theme", rep.Stored, rep.Quarantined)
	}
	var got []string
	for _, r := range rep.Egress {
		u, _ := url.Parse(r.URL)
		got = append(got, r.Method+" "+u.Path)
	}
	const api, cdn = "/api/airvsx-demo/night-theme/2.1.0/file/", "/cdn/airvsx-demo/night-theme/2.1.0/"
	for _, want := range []string{
		"HEAD " + api + "airvsx-demo.night-theme-2.1.0.vsix",
		"GET " + api + "airvsx-demo.night-theme-2.1.0.sha256",
		"GET " + api + "airvsx-demo.night-theme-2.1.0.sigzip",
		"GET " + api + "airvsx-demo.night-theme-2.1.0.vsix",
		"GET " + cdn + "airvsx-demo.night-theme-2.1.0.vsix",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("egress lacks %q: %q", want, got)
		}
	}
}
