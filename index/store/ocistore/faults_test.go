package ocistore_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/ocistore"
)

func TestInsecureOnlyLocal(t *testing.T) {
	tests := []struct {
		host        string
		allowRemote bool
		ok          bool
	}{
		{"127.0.0.1:5000", false, true},
		{"localhost:5000", false, true},
		{"[::1]:5000", false, true},
		{"10.1.2.3", false, true},
		{"192.168.0.7:443", false, true},
		{"registry.example.com:5000", false, false},
		{"8.8.8.8", false, false},
		{"registry.example.com:5000", true, true},
	}
	for _, tt := range tests {
		p, err := store.ParsePlace("docker://" + tt.host + "/airvsx")
		if err != nil {
			t.Fatal(err)
		}
		_, err = ocistore.Open(t.Context(), p, ocistore.Options{Insecure: true, AllowInsecureRemote: tt.allowRemote})
		if got := err == nil; got != tt.ok || (!tt.ok && !errors.Is(err, ocistore.ErrInsecureRemote)) {
			t.Errorf("Open(%s, Insecure, AllowInsecureRemote %v) = %v; want ok %v", tt.host, tt.allowRemote, err, tt.ok)
		}
	}
	p, _ := store.ParsePlace("docker://127.0.0.1:5000/airvsx")
	if _, err := ocistore.Open(t.Context(), store.Place{Kind: store.PlaceDir, Path: "x"}, ocistore.Options{}); err == nil {
		t.Error("Open(a directory place) = nil error")
	}
	if _, err := ocistore.Open(t.Context(), p, ocistore.Options{}); err != nil {
		t.Errorf("Open(TLS) = %v", err)
	}
}

// TestRetryAfter: a 429 and a 503 are retried, every wait (the backoff
// of an hour here, the one a Retry-After asks for) capped by
// MaxRetryAfter, so a store that ignored the cap would not finish.
func TestRetryAfter(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v2/" {
			return
		}
		switch n.Add(1) {
		case 1:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
		case 2:
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			w.Header().Set("Content-Length", "5")
		}
	}))
	defer srv.Close()
	s := openInsecure(t, srv.Listener.Addr().String(), "airvsx", ocistore.Options{Backoff: time.Hour, MaxRetryAfter: 10 * time.Millisecond})
	size, err := s.StatBlob(t.Context(), "golang/go", index.DigestBytes([]byte("hello")))
	if err != nil || size != 5 {
		t.Fatalf("StatBlob = %d, %v; want 5", size, err)
	}
	if got := n.Load(); got != 3 {
		t.Errorf("%d requests; want 3", got)
	}

	// Retries run out: the last status is the error.
	n.Store(-100)
	s2 := openInsecure(t, srv.Listener.Addr().String(), "airvsx", ocistore.Options{Retries: 2, Backoff: time.Millisecond, MaxRetryAfter: time.Millisecond})
	var flaky atomic.Int32
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v2/" {
			flaky.Add(1)
			w.WriteHeader(http.StatusBadGateway)
		}
	})
	if _, err := s2.StatBlob(t.Context(), "golang/go", index.DigestBytes([]byte("hello"))); err == nil || !strings.Contains(err.Error(), "Bad Gateway") {
		t.Errorf("StatBlob against a failing registry = %v; want Bad Gateway", err)
	}
	if got := flaky.Load(); got != 3 {
		t.Errorf("%d attempts with Retries 2; want 3", got)
	}
}

// TestRetryWait: the wait before a retry of a 429 or 503 is the backoff,
// or what Retry-After asks for when that is longer (seconds or an HTTP
// date), at most MaxRetryAfter; a shorter Retry-After does not hurry the
// retry.
func TestRetryWait(t *testing.T) {
	const backoff, maxWait = 5 * time.Millisecond, 40 * time.Millisecond
	tests := []struct {
		name       string
		status     int
		retryAfter string
		lo, hi     time.Duration // the logged wait is within [lo, hi]
	}{
		{"no header", http.StatusServiceUnavailable, "", backoff, 2 * backoff},
		{"shorter", http.StatusTooManyRequests, "0", backoff, 2 * backoff},
		{"unreadable", http.StatusTooManyRequests, "soon", backoff, 2 * backoff},
		{"longer, capped", http.StatusTooManyRequests, "3600", maxWait, maxWait},
		{"date, capped", http.StatusServiceUnavailable, time.Now().Add(time.Hour).UTC().Format(http.TimeFormat), maxWait, maxWait},
		{"past date", http.StatusServiceUnavailable, time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat), backoff, 2 * backoff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/v2/" {
					return
				}
				if n.Add(1) == 1 {
					if tt.retryAfter != "" {
						w.Header().Set("Retry-After", tt.retryAfter)
					}
					w.WriteHeader(tt.status)
					return
				}
				w.Header().Set("Content-Length", "5")
			}))
			defer srv.Close()
			var logs bytes.Buffer
			logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			s := openInsecure(t, srv.Listener.Addr().String(), "airvsx", ocistore.Options{Backoff: backoff, MaxRetryAfter: maxWait, Logger: logger})
			if _, err := s.StatBlob(t.Context(), "golang/go", index.DigestBytes([]byte("hello"))); err != nil {
				t.Fatalf("StatBlob = %v", err)
			}
			var waits []time.Duration
			for line := range strings.Lines(logs.String()) {
				var rec struct {
					Msg  string
					Wait time.Duration
				}
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatalf("log line %q: %v", line, err)
				}
				if rec.Msg == "retrying" {
					waits = append(waits, rec.Wait)
				}
			}
			if len(waits) != 1 || waits[0] < tt.lo || waits[0] > tt.hi {
				t.Errorf("retry waits %v; want one within [%v, %v]", waits, tt.lo, tt.hi)
			}
		})
	}
}

// rewindCounter is content that counts its rewinds.
type rewindCounter struct {
	store.Content
	n int
}

func (c *rewindCounter) Rewind() error { c.n++; return c.Content.Rewind() }

// TestUploadRetriedAndMounted: an upload the registry fails midway (a 502
// for the first PATCH, after part of the body) is made again from the
// first byte of the rewound content; the same blob put into a second
// repository is mounted from the first, not uploaded; a blob the
// registry has is not uploaded again.
func TestUploadRetriedAndMounted(t *testing.T) {
	r := startRegistry(t)
	target, _ := url.Parse("http://" + r.host)
	rp := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	var log []string
	failed := false
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		log = append(log, req.Method+" "+req.URL.Path+"?"+req.URL.RawQuery)
		fail := req.Method == "PATCH" && !failed
		failed = failed || fail
		mu.Unlock()
		if fail {
			io.CopyN(io.Discard, req.Body, 1000)
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		rp.ServeHTTP(w, req)
	}))
	defer front.Close()
	s := openInsecure(t, front.Listener.Addr().String(), "airvsx/retry", ocistore.Options{Backoff: time.Millisecond})
	b := []byte(strings.Repeat("0123456789", 100000))
	d := index.DigestBytes(b)
	c := &rewindCounter{Content: store.BytesContent(b)}
	if err := s.PutBlob(t.Context(), "golang/go", d, int64(len(b)), c); err != nil {
		t.Fatalf("PutBlob through a registry failing once: %v", err)
	}
	if c.n != 1 {
		t.Errorf("content rewound %d times; want 1", c.n)
	}
	if got := readAll(t, s, "golang/go", d, int64(len(b))); string(got) != string(b) {
		t.Error("the blob read back differs")
	}

	mu.Lock()
	log = nil
	mu.Unlock()
	if err := s.PutBlob(t.Context(), "golang/tools", d, int64(len(b)), store.BytesContent(b)); err != nil {
		t.Fatal(err)
	}
	if err := s.PutBlob(t.Context(), "golang/tools", d, int64(len(b)), store.BytesContent(b)); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var mounts, patches int
	for _, l := range log {
		if strings.HasPrefix(l, "POST ") && strings.Contains(l, "mount="+url.QueryEscape(d)) && strings.Contains(l, "from=airvsx%2Fretry%2Fgolang%2Fgo") {
			mounts++
		}
		if strings.HasPrefix(l, "PATCH ") {
			patches++
		}
	}
	if mounts != 1 || patches != 0 {
		t.Errorf("second repository: %d mounts, %d uploads; want 1 mount, no upload; requests:\n%s", mounts, patches, strings.Join(log, "\n"))
	}
}

// TestManifestCapped: a hostile registry that serves a manifest larger
// than the store's cap (4 MiB) gets no more than the cap read: Tags fails
// with ErrTooLarge, and the registry sees the read stop well before it
// has sent the manifest.
func TestManifestCapped(t *testing.T) {
	const huge = 64 << 20
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v2/":
		case strings.HasSuffix(r.URL.Path, "/tags/list"):
			json.NewEncoder(w).Encode(map[string]any{"name": "airvsx/golang/go", "tags": []string{"v1"}})
		case strings.Contains(r.URL.Path, "/manifests/"):
			w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
			w.Header().Set("Docker-Content-Digest", index.DigestBytes([]byte("{}")))
			chunk := bytes.Repeat([]byte(" "), 1<<20)
			w.Write([]byte("{"))
			for range huge >> 20 {
				n, err := w.Write(chunk)
				sent.Add(int64(n))
				if err != nil {
					return
				}
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	s := openInsecure(t, srv.Listener.Addr().String(), "airvsx", ocistore.Options{Retries: -1})
	_, err := s.Tags(t.Context(), "golang/go")
	if !errors.Is(err, store.ErrTooLarge) {
		t.Fatalf("Tags of a repository whose manifest is %d MiB: %v; want ErrTooLarge", huge>>20, err)
	}
	srv.CloseClientConnections()
	if got := sent.Load(); got >= huge/2 {
		t.Errorf("the registry sent %d MiB before the read stopped; want about the 4 MiB cap", got>>20)
	}
}
