package openvsx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/testkit/openvsxtest"
)

// TestLocate: Locate reads where a file lives without following the
// redirect, and from then on (not before) the client may ask that
// storage origin directly.
func TestLocate(t *testing.T) {
	s := openvsxtest.New(t, openvsxtest.Options{CDN: true})
	c, _ := newTestClient(t, s.URL, nil)
	const dir = "/cdn/airvsx-demo/night-theme/2.1.0/"
	sumURL := s.CDNURL + dir + "airvsx-demo.night-theme-2.1.0.sha256"
	if _, err := c.Fetch(t.Context(), sumURL, 100); !errors.Is(err, ErrRefused) {
		t.Fatalf("Fetch from the CDN before any redirect there = %v; want ErrRefused", err)
	}
	loc, err := c.Locate(t.Context(), s.URL+"/api/airvsx-demo/night-theme/2.1.0/file/airvsx-demo.night-theme-2.1.0.vsix")
	if err != nil {
		t.Fatal(err)
	}
	if want := s.CDNURL + dir + "airvsx-demo.night-theme-2.1.0.vsix"; loc != want {
		t.Errorf("Locate = %q; want %q", loc, want)
	}
	sum, err := c.Fetch(t.Context(), sumURL, 100)
	if err != nil || len(sum) != 64 {
		t.Errorf("Fetch(sha256 on the CDN) = %q, %v", sum, err)
	}
	var buf bytes.Buffer
	if _, err := c.Download(t.Context(), loc, 1<<20, &buf); err != nil || !bytes.Equal(buf.Bytes(), openvsxtest.ReadFixture(t, "airvsx-demo.night-theme-2.1.0.vsix")) {
		t.Errorf("Download(CDN) = %d bytes, %v; want the package", buf.Len(), err)
	}
	var got []string
	for _, r := range c.Egress() {
		u, _ := url.Parse(r.URL)
		got = append(got, fmt.Sprintf("%s %s %d", r.Method, u.Path, r.Status))
	}
	want := []string{
		"HEAD /api/airvsx-demo/night-theme/2.1.0/file/airvsx-demo.night-theme-2.1.0.vsix 302",
		"GET " + dir + "airvsx-demo.night-theme-2.1.0.sha256 200",
		"GET " + dir + "airvsx-demo.night-theme-2.1.0.vsix 200",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("egress (-want +got):\n%s", diff)
	}
}

// TestLocateServedDirectly: an upstream that serves its files itself
// (no redirect), or answers no HEAD, is told by an empty location.
func TestLocateServedDirectly(t *testing.T) {
	for _, status := range []int{http.StatusOK, http.StatusMethodNotAllowed, http.StatusNotImplemented} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodHead {
				t.Errorf("%s %s; want HEAD", r.Method, r.URL)
			}
			w.WriteHeader(status)
		}))
		c, _ := newTestClient(t, ts.URL, nil)
		loc, err := c.Locate(t.Context(), ts.URL+"/api/a/b/1.0.0/file/a.b-1.0.0.vsix")
		if err != nil || loc != "" {
			t.Errorf("%d: Locate = %q, %v; want \"\"", status, loc, err)
		}
		if n := len(c.Egress()); n != 1 {
			t.Errorf("%d: %d requests; want 1 (no retry)", status, n)
		}
		ts.Close()
	}
	// Any other answer is an error.
	ts := httptest.NewServer(http.NotFoundHandler())
	defer ts.Close()
	c, _ := newTestClient(t, ts.URL, nil)
	if _, err := c.Locate(t.Context(), ts.URL+"/api/a/b/1.0.0/file/a.b-1.0.0.vsix"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Locate of a 404 = %v; want ErrNotFound", err)
	}
}

// TestLocateRefused: a redirect the file calls would not follow is
// refused, and its host stays out of reach.
func TestLocateRefused(t *testing.T) {
	var hits int
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		io.WriteString(w, "x")
	}))
	t.Cleanup(other.Close)
	plain := redirector(t, other.URL, false)
	secure := redirector(t, other.URL, true)
	userinfo := redirector(t, "http://user:pw@127.0.0.1:1", false)
	tests := []struct {
		name string
		base string
		edit func(*ClientOptions)
	}{
		{"host not in RedirectHosts", plain.URL, func(o *ClientOptions) { o.RedirectHosts = []string{"cdn.example"} }},
		{"https to http", secure.URL, func(o *ClientOptions) { o.HTTPClient = secure.Client() }},
		{"userinfo", userinfo.URL, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newTestClient(t, tt.base, tt.edit)
			if _, err := c.Locate(t.Context(), tt.base+"/api/a/b/1.0.0/file/x.vsix"); !errors.Is(err, ErrRefused) {
				t.Fatalf("Locate = %v; want ErrRefused", err)
			}
			if _, err := c.Fetch(t.Context(), other.URL+"/api/a/b/1.0.0/x.sha256", 10); !errors.Is(err, ErrRefused) {
				t.Errorf("Fetch from the refused host = %v; want ErrRefused", err)
			}
			if hits != 0 {
				t.Errorf("the other host got %d requests; want 0", hits)
			}
		})
	}
}

// TestLocateRetries: a Locate that gets a 429 is retried.
func TestLocateRetries(t *testing.T) {
	s := openvsxtest.New(t, openvsxtest.Options{})
	s.Fault("/api/airvsx-demo/night-theme/", openvsxtest.TooManyRequests, 1)
	c, _ := newTestClient(t, s.URL, nil)
	loc, err := c.Locate(t.Context(), s.URL+"/api/airvsx-demo/night-theme/2.1.0/file/download")
	if err != nil || loc != s.URL+"/cdn/airvsx-demo/night-theme/2.1.0/airvsx-demo.night-theme-2.1.0.vsix" {
		t.Errorf("Locate = %q, %v", loc, err)
	}
	if n := s.Count("/api/"); n != 2 {
		t.Errorf("%d requests; want 2 (a 429, then the redirect)", n)
	}
}

// TestRateLimitSparesStorage: the rate limiter paces requests to the
// upstream, not to the storage it sends files to: after a Locate, the
// package, its .sha256 and its signature come from storage without a
// wait, while a second request to the upstream waits its turn.
func TestRateLimitSparesStorage(t *testing.T) {
	s := openvsxtest.New(t, openvsxtest.Options{CDN: true})
	c, clk := newTestClient(t, s.URL, func(o *ClientOptions) { o.Rate, o.Burst = 2, 1 })
	loc, err := c.Locate(t.Context(), s.URL+"/api/airvsx-demo/night-theme/2.1.0/file/airvsx-demo.night-theme-2.1.0.vsix")
	if err != nil || loc == "" {
		t.Fatalf("Locate = %q, %v", loc, err)
	}
	base := strings.TrimSuffix(loc, ".vsix")
	for _, u := range []string{base + ".sha256", base + ".sigzip"} {
		if _, err := c.Fetch(t.Context(), u, 1<<20); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := c.Download(t.Context(), loc, 1<<20, &buf); err != nil {
		t.Fatal(err)
	}
	if got := clk.slept(); len(got) != 0 {
		t.Errorf("storage requests waited %v; want no wait", got)
	}
	if _, err := c.Locate(t.Context(), s.URL+"/api/airvsx-demo/night-theme/2.1.0/file/airvsx-demo.night-theme-2.1.0.vsix"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]time.Duration{500 * time.Millisecond}, clk.slept()); diff != "" {
		t.Errorf("the upstream's second request (-want +got sleeps):\n%s", diff)
	}
}
