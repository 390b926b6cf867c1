package openvsxtest

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const (
	helloAPI  = "/api/airvsx-demo/hello-command"
	helloCDN  = "/cdn/airvsx-demo/hello-command/1.0.0/"
	helloVSIX = helloCDN + "airvsx-demo.hello-command-1.0.0.vsix"
)

func TestFaultTooManyRequests(t *testing.T) {
	s := New(t, Options{})
	s.Fault(helloAPI, TooManyRequests, 1)
	resp, err := http.Get(s.URL + helloAPI)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	got := map[string]string{
		"Retry-After":           resp.Header.Get("Retry-After"),
		"X-RateLimit-Limit":     resp.Header.Get("X-RateLimit-Limit"),
		"X-RateLimit-Remaining": resp.Header.Get("X-RateLimit-Remaining"),
		"X-RateLimit-Reset":     resp.Header.Get("X-RateLimit-Reset"),
		"Content-Type":          resp.Header.Get("Content-Type"),
	}
	want := map[string]string{"Retry-After": "1", "X-RateLimit-Limit": "3", "X-RateLimit-Remaining": "0",
		"X-RateLimit-Reset": "1", "Content-Type": "application/json"}
	if resp.StatusCode != http.StatusTooManyRequests || !cmp.Equal(got, want) || string(body) != RateLimitBody {
		t.Errorf("got %d %v %s; want 429 %v %s", resp.StatusCode, got, body, want, RateLimitBody)
	}
	// Used up: the next request is answered normally.
	if status, _ := get(t, s.URL+helloAPI); status != http.StatusOK {
		t.Errorf("second request: %d; want 200", status)
	}
	logs := s.Requests()
	if len(logs) != 2 || logs[0].Status != 429 || logs[0].Fault != TooManyRequests || logs[1].Status != 200 || logs[1].Fault != 0 {
		t.Errorf("Requests() = %+v", logs)
	}
}

func TestFaultUnavailableCounted(t *testing.T) {
	s := New(t, Options{})
	s.Fault("/api/*/*", Unavailable, 2)
	var got []int
	for range 3 {
		status, _ := get(t, s.URL+helloAPI)
		got = append(got, status)
	}
	// The pattern matches /api/ns/ext only, not deeper paths.
	status, _ := get(t, s.URL+helloAPI+"/1.0.0")
	got = append(got, status)
	if want := []int{503, 503, 200, 200}; !cmp.Equal(got, want) {
		t.Errorf("statuses = %v; want %v", got, want)
	}
}

func TestFaultReset(t *testing.T) {
	s := New(t, Options{})
	s.Fault(helloCDN, Reset, 1)
	// Without keep-alives: Go's Transport silently retries an idempotent
	// request once when a reused connection dies before the response.
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	_, err := c.Get(s.URL + helloAPI + "/1.0.0/file/download")
	if err == nil {
		t.Fatal("GET after Reset: no error; want a connection error")
	}
	if s.Count("/cdn/") != 1 || s.Requests()[1].Status != 0 || s.Requests()[1].Fault != Reset {
		t.Errorf("Count(/cdn/) = %d, log %+v; want 1 request with status 0", s.Count("/cdn/"), s.Requests())
	}
	// With keep-alives the retry hides a single reset; two are seen.
	s.Fault(helloCDN, Reset, 2)
	get(t, s.URL+helloAPI) // make the next request reuse a connection
	if _, err := http.Get(s.URL + helloVSIX); err == nil {
		t.Error("GET after two Resets: no error; want a connection error")
	}
	if status, _ := get(t, s.URL+helloVSIX); status != http.StatusOK {
		t.Errorf("after the fault: %d; want 200", status)
	}
}

func TestFaultTruncated(t *testing.T) {
	s := New(t, Options{})
	s.Fault("*.vsix", Truncated, 1)
	resp, err := http.Get(s.URL + helloVSIX)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("io.ReadAll: %v after %d bytes; want unexpected EOF", err, len(b))
	}
	if resp.ContentLength != 3937 || len(b) != 3937/2 {
		t.Errorf("Content-Length %d, read %d; want 3937, %d", resp.ContentLength, len(b), 3937/2)
	}
}

func TestFaultWrongSHA256(t *testing.T) {
	s := New(t, Options{})
	s.Fault("/", WrongSHA256, 1) // counts only .sha256 responses
	_, vsix := get(t, s.URL+helloVSIX)
	_, sum := get(t, s.URL+helloAPI+"/1.0.0/file/sha256")
	want := sha256.Sum256(vsix)
	if len(sum) != 64 || string(sum) == hex.EncodeToString(want[:]) {
		t.Errorf("faulty .sha256 = %q; want 64 hex digits other than %x", sum, want)
	}
	if _, sum = get(t, s.URL+helloAPI+"/1.0.0/file/sha256"); string(sum) != hex.EncodeToString(want[:]) {
		t.Errorf("next .sha256 = %q; want %x", sum, want)
	}
}

func TestFaultBadSignature(t *testing.T) {
	s := New(t, Options{})
	s.Fault("*.sigzip", BadSignature, 1)
	key := fetchKey(t, s.URL+"/api/-/public-key/"+KeyID)
	_, vsix := get(t, s.URL+helloVSIX)
	for i, want := range []bool{false, true} {
		_, sz := get(t, s.URL+helloAPI+"/1.0.0/file/signature")
		_, content := sigzipEntries(t, sz)
		sig := content[".signature.sig"]
		if len(sig) != ed25519.SignatureSize || ed25519.Verify(key, vsix, sig) != want {
			t.Errorf("request %d: %d-byte signature verifies = %v; want %v", i, len(sig), !want, want)
		}
	}
}

func TestFaultSlow(t *testing.T) {
	s := New(t, Options{SlowDelay: time.Minute})
	s.Fault(helloAPI, Slow, 1)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+helloAPI, nil)
	_, err := http.DefaultClient.Do(req)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("slow request: %v; want deadline exceeded", err)
	}
	if status, _ := get(t, s.URL+helloAPI); status != http.StatusOK {
		t.Errorf("after the fault: %d; want 200", status)
	}
}

func TestFaultAlwaysAndLatency(t *testing.T) {
	s := New(t, Options{Latency: 20 * time.Millisecond})
	s.Fault("/sitemap.xml", Unavailable, Always)
	start := time.Now()
	for range 3 {
		if status, _ := get(t, s.URL+"/sitemap.xml"); status != http.StatusServiceUnavailable {
			t.Errorf("status %d; want 503", status)
		}
	}
	if d := time.Since(start); d < 60*time.Millisecond {
		t.Errorf("3 requests took %v; want at least 3×Latency", d)
	}
}
