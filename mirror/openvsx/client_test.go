package openvsx

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/internal/retry"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
)

// fakeClock is a clock that moves only when the client sleeps; it
// records every sleep.
type fakeClock struct {
	mu     sync.Mutex
	t      time.Time
	sleeps []time.Duration
}

func (f *fakeClock) now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

func (f *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sleeps = append(f.sleeps, d)
	f.t = f.t.Add(d)
	return nil
}

func (f *fakeClock) slept() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.sleeps...)
}

// newTestClient returns a fast client for base: a high rate, tiny retry
// waits (RetryWaitMax 1s, so a hint of up to 4s is honoured), and a fake
// clock whose sleeps return at once. edit, if set, changes the options.
func newTestClient(t *testing.T, base string, edit func(*ClientOptions)) (*Client, *fakeClock) {
	t.Helper()
	clk := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	opts := ClientOptions{
		BaseURL:      base,
		Rate:         1000,
		Burst:        1000,
		RetryWaitMin: time.Millisecond,
		RetryWaitMax: time.Second,
		Timeout:      10 * time.Second,
		sleep:        clk.sleep,
		now:          clk.now,
		proxy:        func(*http.Request) (*url.URL, error) { return nil, nil },
	}
	if edit != nil {
		edit(&opts)
	}
	c, err := NewClient(opts)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c, clk
}

// newFixtureClient starts a fixture server with opts and returns it with
// a test client of it (newTestClient, with the default options).
func newFixtureClient(t *testing.T, opts openvsxtest.Options) (*openvsxtest.Server, *Client) {
	t.Helper()
	s := openvsxtest.New(t, opts)
	c, _ := newTestClient(t, s.URL, nil)
	return s, c
}

var helloID = index.MustParseID("airvsx-demo.hello-command")

func TestNewClientValidates(t *testing.T) {
	tests := []struct {
		name string
		opts ClientOptions
	}{
		{"no base", ClientOptions{}},
		{"relative", ClientOptions{BaseURL: "open-vsx.org"}},
		{"ftp", ClientOptions{BaseURL: "ftp://open-vsx.org"}},
		{"userinfo", ClientOptions{BaseURL: "https://u:p@open-vsx.org"}},
		{"query", ClientOptions{BaseURL: "https://open-vsx.org/?a=b"}},
		{"negative rate", ClientOptions{BaseURL: "https://open-vsx.org", Rate: -1}},
		{"min above max", ClientOptions{BaseURL: "https://open-vsx.org", RetryWaitMin: time.Minute, RetryWaitMax: time.Second}},
		{"missing CA file", ClientOptions{BaseURL: "https://open-vsx.org", CAFile: "/nonexistent/ca.pem"}},
		{"CA file with HTTPClient", ClientOptions{BaseURL: "https://open-vsx.org", CAFile: "x.pem", HTTPClient: &http.Client{}}},
	}
	for _, tt := range tests {
		if _, err := NewClient(tt.opts); err == nil {
			t.Errorf("%s: NewClient(%+v) succeeded; want an error", tt.name, tt.opts)
		}
	}
	c, err := NewClient(ClientOptions{BaseURL: "https://open-vsx.org/"})
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL() != "https://open-vsx.org" || c.userAgent != DefaultUserAgent || c.maxRetries != DefaultMaxRetries ||
		c.waitMin != DefaultRetryWaitMin || c.waitMax != DefaultRetryWaitMax || c.stall != DefaultTimeout ||
		float64(c.limiter.Limit()) != DefaultRate || c.limiter.Burst() != DefaultBurst {
		t.Errorf("defaults not applied: %+v", c)
	}
}

func TestRetries(t *testing.T) {
	const vsixName = "airvsx-demo.hello-command-1.0.0.vsix"
	jsonPath := "/api/airvsx-demo/hello-command/1.0.0"
	cdnPath := "/cdn/airvsx-demo/hello-command/1.0.0/" + vsixName
	tests := []struct {
		name     string
		pattern  string
		fault    openvsxtest.Fault
		times    int
		download bool
		wantReqs int // requests to pattern
		wantErr  int // status of the *HTTPError wanted; 0 = success
		minSleep time.Duration
	}{
		{name: "429 Retry-After", pattern: jsonPath, fault: openvsxtest.TooManyRequests, times: 1, wantReqs: 2, minSleep: time.Second},
		{name: "503", pattern: jsonPath, fault: openvsxtest.Unavailable, times: 2, wantReqs: 3},
		{name: "reset", pattern: jsonPath, fault: openvsxtest.Reset, times: 2, wantReqs: 3},
		{name: "truncated JSON", pattern: jsonPath, fault: openvsxtest.Truncated, times: 1, wantReqs: 2},
		{name: "truncated download", pattern: cdnPath, fault: openvsxtest.Truncated, times: 1, download: true, wantReqs: 2},
		{name: "reset download", pattern: cdnPath, fault: openvsxtest.Reset, times: 2, download: true, wantReqs: 3},
		{name: "429 download", pattern: cdnPath, fault: openvsxtest.TooManyRequests, times: 1, download: true, wantReqs: 2, minSleep: time.Second},
		{name: "exhausted", pattern: jsonPath, fault: openvsxtest.Unavailable, times: openvsxtest.Always, wantReqs: 4, wantErr: 503},
		{name: "exhausted 429", pattern: jsonPath, fault: openvsxtest.TooManyRequests, times: openvsxtest.Always, wantReqs: 4, wantErr: 429},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := openvsxtest.New(t, openvsxtest.Options{})
			s.Fault(tt.pattern, tt.fault, tt.times)
			c, clk := newTestClient(t, s.URL, func(o *ClientOptions) { o.MaxRetries = 3 })
			var err error
			if tt.download {
				var buf bytes.Buffer
				f, ferr := os.Create(filepath.Join(t.TempDir(), "dl"))
				if ferr != nil {
					t.Fatal(ferr)
				}
				defer f.Close()
				var n int64
				n, err = c.Download(t.Context(), s.URL+"/api/airvsx-demo/hello-command/1.0.0/file/"+vsixName, 1<<20, f)
				if err == nil {
					f.Seek(0, io.SeekStart)
					io.Copy(&buf, f)
					if want := openvsxtest.ReadFixture(t, vsixName); !bytes.Equal(buf.Bytes(), want) || n != int64(len(want)) {
						t.Errorf("downloaded %d bytes (%d in file); want the fixture's %d", n, buf.Len(), len(want))
					}
				}
			} else {
				var e *Extension
				e, err = c.ExtensionVersion(t.Context(), helloID, "", "1.0.0")
				if err == nil && e.Version != "1.0.0" {
					t.Errorf("version %q; want 1.0.0", e.Version)
				}
			}
			if tt.wantErr == 0 && err != nil {
				t.Fatalf("call failed: %v", err)
			}
			if tt.wantErr != 0 {
				var he *HTTPError
				if !errors.As(err, &he) || he.Status != tt.wantErr {
					t.Fatalf("err = %v; want an *HTTPError %d", err, tt.wantErr)
				}
			}
			if n := s.Count(tt.pattern); n != tt.wantReqs {
				t.Errorf("%d requests to %s; want %d", n, tt.pattern, tt.wantReqs)
			}
			if tt.minSleep > 0 {
				slept := clk.slept()
				if len(slept) == 0 || slept[0] < tt.minSleep {
					t.Errorf("slept %v; want a first wait of at least %v (Retry-After)", slept, tt.minSleep)
				}
			}
			// Attempts are numbered in the egress log.
			maxAttempt := 0
			for _, r := range c.Egress() {
				maxAttempt = max(maxAttempt, r.Attempt)
			}
			if maxAttempt < 2 {
				t.Errorf("highest attempt in the egress log %d; want a retry recorded", maxAttempt)
			}
		})
	}
}

func TestNotFoundIsNotRetried(t *testing.T) {
	s := openvsxtest.New(t, openvsxtest.Options{Missing: []string{"nobody.nothing"}})
	c, clk := newTestClient(t, s.URL, nil)
	_, err := c.ExtensionVersion(t.Context(), index.MustParseID("nobody.nothing"), "", "1.0.0")
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v; want ErrNotFound", err)
	}
	if n := len(s.Requests()); n != 1 {
		t.Errorf("%d requests; want 1 (no retry on 404)", n)
	}
	if len(clk.slept()) != 0 {
		t.Errorf("slept %v; want no waits", clk.slept())
	}
}

func TestRetryHintCapped(t *testing.T) {
	var n atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		io.WriteString(w, `<urlset></urlset>`)
	}))
	t.Cleanup(ts.Close)
	c, clk := newTestClient(t, ts.URL, nil) // RetryWaitMax 1s: a hint is capped at 4s
	if _, err := c.Sitemap(t.Context()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]time.Duration{4 * time.Second}, clk.slept()); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
}

func TestRetryHint(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
		ok     bool
	}{
		{"seconds", http.Header{"Retry-After": {"7"}}, 7 * time.Second, true},
		{"HTTP date", http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second, true},
		{"past date", http.Header{"Retry-After": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 0, true},
		{"nginx", http.Header{"X-Rate-Limit-Retry-After-Seconds": {"3"}}, 3 * time.Second, true},
		{"reset seconds", http.Header{"X-Ratelimit-Reset": {"12"}}, 12 * time.Second, true},
		{"reset epoch", http.Header{"X-Ratelimit-Reset": {fmt.Sprint(now.Add(time.Minute).Unix())}}, time.Minute, true},
		{"Retry-After first", http.Header{"Retry-After": {"1"}, "X-Ratelimit-Reset": {"60"}}, time.Second, true},
		{"huge", http.Header{"Retry-After": {"99999999999999999"}}, retry.MaxDelay, true},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0, false},
		{"negative", http.Header{"Retry-After": {"-1"}}, 0, false},
		{"none", http.Header{}, 0, false},
	}
	for _, tt := range tests {
		got, ok := retryHint(tt.header, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: retryHint(%v) = %v, %v; want %v, %v", tt.name, tt.header, got, ok, tt.want, tt.ok)
		}
	}
}

func TestBackoffBounds(t *testing.T) {
	c, _ := newTestClient(t, "https://open-vsx.org", func(o *ClientOptions) {
		o.RetryWaitMin, o.RetryWaitMax = time.Second, 30*time.Second
	})
	for n := range 40 {
		ceil := min(30*time.Second, time.Second<<min(n+1, 20))
		for range 20 {
			if d := c.retryWait(n, nil, nil, "u"); d < time.Second || d > ceil {
				t.Fatalf("retryWait(%d) = %v; want within [1s, %v]", n, d, ceil)
			}
		}
	}
}

func TestRateLimit(t *testing.T) {
	s := openvsxtest.New(t, openvsxtest.Options{})
	c, clk := newTestClient(t, s.URL, func(o *ClientOptions) { o.Rate, o.Burst = 2, 1 })
	for range 4 {
		if _, err := c.Extension(t.Context(), helloID); err != nil {
			t.Fatal(err)
		}
	}
	// The first request goes at once; each next one waits 1/Rate.
	want := []time.Duration{500 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond}
	if diff := cmp.Diff(want, clk.slept()); diff != "" {
		t.Errorf("rate limiter sleeps (-want +got):\n%s", diff)
	}
}

func TestRateLimitPausesOn429(t *testing.T) {
	// A 429's hint holds every request of the client, not only the one
	// that got it.
	s := openvsxtest.New(t, openvsxtest.Options{})
	s.Fault("/api/airvsx-demo/hello-command", openvsxtest.TooManyRequests, 1)
	c, clk := newTestClient(t, s.URL, func(o *ClientOptions) { o.MaxRetries = -1 })
	if _, err := c.Extension(t.Context(), helloID); err == nil {
		t.Fatal("want the 429")
	}
	if _, err := c.Extension(t.Context(), index.MustParseID("airvsx-demo.night-theme")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]time.Duration{time.Second}, clk.slept()); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
}

func TestDownloadFollowsRedirect(t *testing.T) {
	s, c := newFixtureClient(t, openvsxtest.Options{})
	e, err := c.ExtensionVersion(t.Context(), helloID, index.LinuxX64, "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := c.Download(t.Context(), e.Files["download"], 1<<20, &buf)
	if err != nil {
		t.Fatal(err)
	}
	want := openvsxtest.ReadFixture(t, "airvsx-demo.hello-command-1.0.0@linux-x64.vsix")
	if !bytes.Equal(buf.Bytes(), want) || n != int64(len(want)) {
		t.Errorf("downloaded %d bytes; want the fixture's %d", n, len(want))
	}
	sum, err := c.Fetch(t.Context(), e.Files["sha256"], 64)
	if err != nil || len(sum) != 64 {
		t.Errorf("Fetch(sha256) = %q, %v; want 64 hex digits", sum, err)
	}
	key, err := c.Fetch(t.Context(), e.Files["publicKey"], 4096)
	if err != nil || !bytes.Equal(key, s.PublicKeyPEM()) {
		t.Errorf("Fetch(publicKey) = %q, %v; want the server's key", key, err)
	}
	if n := s.Count("/cdn/"); n != 2 {
		t.Errorf("%d requests to /cdn/; want 2 (vsix and sha256 via redirect)", n)
	}
	// The egress log shows each hop with its status and bytes.
	var got []string
	for _, r := range c.Egress() {
		u, _ := url.Parse(r.URL)
		got = append(got, fmt.Sprintf("%s %s %d %d", r.Method, u.Path, r.Status, r.Attempt))
		if r.Status == 200 && r.Bytes == 0 || r.Time.IsZero() {
			t.Errorf("record %+v: want bytes and a time", r)
		}
	}
	wantLog := []string{
		"GET /api/airvsx-demo/hello-command/linux-x64/1.0.0 200 1",
		"GET /api/airvsx-demo/hello-command/linux-x64/1.0.0/file/airvsx-demo.hello-command-1.0.0@linux-x64.vsix 302 1",
		"GET /cdn/airvsx-demo/hello-command/linux-x64/1.0.0/airvsx-demo.hello-command-1.0.0@linux-x64.vsix 200 1",
		"GET /api/airvsx-demo/hello-command/linux-x64/1.0.0/file/airvsx-demo.hello-command-1.0.0@linux-x64.sha256 302 1",
		"GET /cdn/airvsx-demo/hello-command/linux-x64/1.0.0/airvsx-demo.hello-command-1.0.0@linux-x64.sha256 200 1",
		"GET /api/-/public-key/" + s.KeyID() + " 200 1",
	}
	if diff := cmp.Diff(wantLog, got); diff != "" {
		t.Errorf("egress (-want +got):\n%s", diff)
	}
	if recs := c.Egress(); recs[2].Bytes != int64(len(want)) {
		t.Errorf("egress bytes of the vsix = %d; want %d", recs[2].Bytes, len(want))
	}
	b, err := json.Marshal(c.Egress()[0])
	if err != nil || !strings.Contains(string(b), `"url":`) || !strings.Contains(string(b), `"attempt":1`) {
		t.Errorf("EgressRecord JSON = %s, %v", b, err)
	}
}

// redirector answers every request with a redirect to target+path.
func redirector(t *testing.T, target string, tlsServer bool) *httptest.Server {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target+r.URL.Path, http.StatusFound)
	})
	var ts *httptest.Server
	if tlsServer {
		ts = httptest.NewTLSServer(h)
	} else {
		ts = httptest.NewServer(h)
	}
	t.Cleanup(ts.Close)
	return ts
}

func TestRedirectsRefused(t *testing.T) {
	var hits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, "{}")
	}))
	t.Cleanup(other.Close)
	plain := redirector(t, other.URL, false)
	secure := redirector(t, other.URL, true)
	var loop *httptest.Server
	loop = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, loop.URL+r.URL.Path+"x", http.StatusFound)
	}))
	t.Cleanup(loop.Close)

	tests := []struct {
		name string
		base string
		edit func(*ClientOptions)
		call func(c *Client, base string) error
	}{
		{name: "API redirected off upstream", base: plain.URL, call: func(c *Client, _ string) error {
			_, err := c.Extension(context.Background(), helloID)
			return err
		}},
		{name: "file to a host not in RedirectHosts", base: plain.URL,
			edit: func(o *ClientOptions) { o.RedirectHosts = []string{"cdn.example"} },
			call: func(c *Client, base string) error {
				_, err := c.Fetch(context.Background(), base+"/api/a/b/1.0.0/file/x.sha256", 100)
				return err
			}},
		{name: "https to http", base: secure.URL,
			edit: func(o *ClientOptions) { o.HTTPClient = secure.Client() },
			call: func(c *Client, base string) error {
				_, err := c.Download(context.Background(), base+"/api/a/b/1.0.0/file/x.vsix", 100, io.Discard)
				return err
			}},
		{name: "too many redirects", base: loop.URL, call: func(c *Client, base string) error {
			_, err := c.Fetch(context.Background(), base+"/f", 100)
			return err
		}},
		{name: "URL off upstream", base: plain.URL, call: func(c *Client, _ string) error {
			_, err := c.Fetch(context.Background(), other.URL+"/f", 100)
			return err
		}},
		{name: "download off upstream", base: plain.URL, call: func(c *Client, _ string) error {
			_, err := c.Download(context.Background(), "https://evil.example/f.vsix", 100, io.Discard)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits.Store(0)
			c, _ := newTestClient(t, tt.base, tt.edit)
			err := tt.call(c, tt.base)
			if !errors.Is(err, ErrRefused) {
				t.Fatalf("err = %v; want ErrRefused", err)
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("the other host got %d requests; want 0", n)
			}
			for _, r := range c.Egress() {
				if r.Attempt != 1 {
					t.Errorf("egress %+v: want no retry of a refused redirect", r)
				}
			}
		})
	}

	// The same redirect is followed for a file when the host is allowed.
	c, _ := newTestClient(t, plain.URL, func(o *ClientOptions) { o.RedirectHosts = []string{"127.0.0.1"} })
	if b, err := c.Fetch(context.Background(), plain.URL+"/api/a/b/1.0.0/file/x.sha256", 100); err != nil || string(b) != "{}" {
		t.Errorf("Fetch via an allowed redirect = %q, %v", b, err)
	}
}

func TestETagCache(t *testing.T) {
	s, c := newFixtureClient(t, openvsxtest.Options{})
	first, err := c.Extension(t.Context(), helloID)
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Extension(t.Context(), helloID)
	if err != nil {
		t.Fatal(err)
	}
	var statuses []int
	for _, r := range s.Requests() {
		statuses = append(statuses, r.Status)
	}
	if diff := cmp.Diff([]int{200, 304}, statuses); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if !bytes.Equal(first.Raw, second.Raw) || second.Version != first.Version || len(second.Raw) == 0 {
		t.Errorf("the 304 was not served from the cache: %q vs %q", first.Raw, second.Raw)
	}
}

func TestUserAgent(t *testing.T) {
	var mu sync.Mutex
	agents := map[string]string{}
	var ts *httptest.Server
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents[r.URL.Path] = r.UserAgent()
		mu.Unlock()
		if r.URL.Path == "/file" {
			http.Redirect(w, r, ts.URL+"/cdn", http.StatusFound)
			return
		}
		io.WriteString(w, "x")
	}))
	t.Cleanup(ts.Close)
	for _, ua := range []string{"", "site-mirror/1.0 (+ops@example.com)"} {
		c, _ := newTestClient(t, ts.URL, func(o *ClientOptions) { o.UserAgent = ua })
		if _, err := c.Fetch(t.Context(), ts.URL+"/file", 10); err != nil {
			t.Fatal(err)
		}
		want := cmpOr(ua, DefaultUserAgent)
		if diff := cmp.Diff(map[string]string{"/file": want, "/cdn": want}, agents); diff != "" {
			t.Errorf("User-Agent per path (-want +got):\n%s", diff)
		}
	}
}

func TestMaxBytes(t *testing.T) {
	body := strings.Repeat("a", 1000)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			// No Content-Length: the limit applies while reading.
			for range 10 {
				io.WriteString(w, body[:100])
				w.(http.Flusher).Flush()
			}
			return
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(ts.Close)
	c, _ := newTestClient(t, ts.URL, nil)
	for _, p := range []string{"/sized", "/chunked"} {
		if _, err := c.Fetch(t.Context(), ts.URL+p, 999); !errors.Is(err, ErrTooLarge) {
			t.Errorf("Fetch(%s, 999) = %v; want ErrTooLarge", p, err)
		}
		if b, err := c.Fetch(t.Context(), ts.URL+p, 1000); err != nil || len(b) != 1000 {
			t.Errorf("Fetch(%s, 1000) = %d bytes, %v; want 1000", p, len(b), err)
		}
		if _, err := c.Download(t.Context(), ts.URL+p, 999, io.Discard); !errors.Is(err, ErrTooLarge) {
			t.Errorf("Download(%s, 999) = %v; want ErrTooLarge", p, err)
		}
		if n, err := c.Download(t.Context(), ts.URL+p, 1000, io.Discard); err != nil || n != 1000 {
			t.Errorf("Download(%s, 1000) = %d, %v; want 1000", p, n, err)
		}
	}
	for _, r := range c.Egress() {
		if r.Attempt != 1 {
			t.Errorf("egress %+v: want no retry of a size error", r)
		}
	}
}

func TestDownloadRestart(t *testing.T) {
	const name = "airvsx-demo.night-theme-2.1.0.vsix"
	want := openvsxtest.ReadFixture(t, name)
	s, c := newFixtureClient(t, openvsxtest.Options{})
	u := s.URL + "/api/airvsx-demo/night-theme/2.1.0/file/" + name

	// A file is rewound for the retry.
	s.Fault("/cdn/", openvsxtest.Truncated, 1)
	f, err := os.Create(filepath.Join(t.TempDir(), "dl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("stale bytes from an earlier run")
	if _, err := c.Download(t.Context(), u, 1<<20, f); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(f.Name()); !bytes.Equal(got, want) {
		t.Errorf("file holds %d bytes; want the fixture's %d", len(got), len(want))
	}

	// A writer that cannot be rewound is not retried once written to.
	s.Fault("/cdn/", openvsxtest.Truncated, 1)
	var buf bytes.Buffer
	if _, err := c.Download(t.Context(), u, 1<<20, &buf); err == nil || !strings.Contains(err.Error(), "cannot be rewound") {
		t.Errorf("Download(bytes.Buffer) after a truncated body = %v; want a cannot-rewind error", err)
	}

	// A failure before any byte is written is retried for it too.
	s.Fault("/cdn/", openvsxtest.Unavailable, 1)
	buf.Reset()
	if _, err := c.Download(t.Context(), u, 1<<20, &buf); err != nil || !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("Download(bytes.Buffer) after a 503 = %d bytes, %v; want the fixture", buf.Len(), err)
	}
}

func TestDownloadStall(t *testing.T) {
	s := openvsxtest.New(t, openvsxtest.Options{SlowDelay: 10 * time.Second})
	s.Fault("/cdn/", openvsxtest.Slow, 1)
	c, _ := newTestClient(t, s.URL, func(o *ClientOptions) { o.Timeout = 100 * time.Millisecond })
	const name = "airvsx-demo.git-helper-0.3.0.vsix"
	var buf bytes.Buffer
	if _, err := c.Download(t.Context(), s.URL+"/api/airvsx-demo/git-helper/0.3.0/file/"+name, 1<<20, &buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), openvsxtest.ReadFixture(t, name)) {
		t.Error("download differs from the fixture")
	}
	var stalled bool
	for _, r := range c.Egress() {
		stalled = stalled || strings.Contains(r.Error, "stalled")
	}
	if !stalled {
		t.Errorf("egress %+v: want a stalled attempt recorded", c.Egress())
	}
}

func TestCAFile(t *testing.T) {
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake
	ts.StartTLS()
	t.Cleanup(ts.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	if err := os.WriteFile(ca, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}

	c, _ := newTestClient(t, ts.URL, nil)
	if _, err := c.Fetch(t.Context(), ts.URL+"/x", 10); err == nil {
		t.Fatal("Fetch without CAFile succeeded; want a certificate error")
	}
	if n := len(c.Egress()); n != 1 {
		t.Errorf("%d requests; want 1 (certificate errors are not retried)", n)
	}

	c, _ = newTestClient(t, ts.URL, func(o *ClientOptions) { o.CAFile = ca })
	if b, err := c.Fetch(t.Context(), ts.URL+"/x", 10); err != nil || string(b) != "ok" {
		t.Fatalf("Fetch with CAFile = %q, %v", b, err)
	}

	bad := filepath.Join(t.TempDir(), "bad.pem")
	os.WriteFile(bad, []byte("not a certificate"), 0o600)
	if _, err := NewClient(ClientOptions{BaseURL: ts.URL, CAFile: bad}); err == nil {
		t.Error("NewClient with a CAFile without certificates succeeded")
	}
}

func TestProxy(t *testing.T) {
	s := openvsxtest.New(t, openvsxtest.Options{})
	var proxied atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !r.URL.IsAbs() {
			http.Error(w, "not a proxy request", http.StatusBadRequest)
			return
		}
		proxied.Add(1)
		out, err := http.NewRequestWithContext(r.Context(), r.Method, r.URL.String(), nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		out.Header = r.Header.Clone()
		resp, err := http.DefaultTransport.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(proxy.Close)
	proxyURL, _ := url.Parse(proxy.URL)

	c, _ := newTestClient(t, s.URL, func(o *ClientOptions) {
		// What http.ProxyFromEnvironment answers for HTTPS_PROXY/HTTP_PROXY
		// (which never proxies loopback, hence the injection).
		o.proxy = http.ProxyURL(proxyURL)
	})
	if _, err := c.Extension(t.Context(), helloID); err != nil {
		t.Fatal(err)
	}
	if n := proxied.Load(); n != 1 {
		t.Errorf("proxy saw %d requests; want 1", n)
	}
}

func TestHTTPErrorSanitized(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, "denied\x1b[31m\r\n\tby   policy\xff"+strings.Repeat("z", 2000))
	}))
	t.Cleanup(ts.Close)
	c, _ := newTestClient(t, ts.URL, nil)
	_, err := c.Fetch(t.Context(), ts.URL+"/x", 1<<20)
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 403 {
		t.Fatalf("err = %v; want an *HTTPError 403", err)
	}
	if !strings.HasPrefix(he.Body, "denied [31m by policy\uFFFDzzz") || len(he.Body) > maxErrorBody+2 {
		t.Errorf("Body = %q; want sanitized and at most %d bytes", he.Body, maxErrorBody)
	}
	if errors.Is(err, ErrNotFound) {
		t.Error("a 403 matches ErrNotFound")
	}
	if n := len(c.Egress()); n != 1 {
		t.Errorf("%d requests; want 1 (4xx is not retried)", n)
	}
}

func TestContextCancel(t *testing.T) {
	s := openvsxtest.New(t, openvsxtest.Options{})
	s.Fault("/api/", openvsxtest.Unavailable, openvsxtest.Always)
	ctx, cancel := context.WithCancel(t.Context())
	c, _ := newTestClient(t, s.URL, func(o *ClientOptions) {
		o.sleep = func(context.Context, time.Duration) error { cancel(); return context.Canceled }
	})
	_, err := c.Extension(ctx, helloID)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v; want context.Canceled", err)
	}
	if n := len(s.Requests()); n != 1 {
		t.Errorf("%d requests; want 1", n)
	}
}
