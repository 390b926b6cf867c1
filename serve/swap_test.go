package serve_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/serve"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
)

// replaceRegistry makes dir hold a copy of src, as a copy or a sync
// over it leaves it (metadata replaced file by file).
func replaceRegistry(t *testing.T, src, dir string) {
	t.Helper()
	tmp := dir + ".new"
	filetest.CopyDir(t, src, tmp)
	old := dir + ".old"
	if err := os.Rename(dir, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(old)
}

// serial answers /healthz's serial.
func serial(t *testing.T, f *fixture) string {
	t.Helper()
	resp, body := f.get(t, "/healthz")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %s", resp.Status)
	}
	return strings.Fields(string(body))[2]
}

// TestHotSwap: a registry replaced by a newer verified one is served
// without a restart; one whose catalog is then tampered with is refused
// and the verified one keeps being served, as is one that goes back to
// an older catalog.
func TestHotSwap(t *testing.T) {
	f := newFixture(t, serve.Options{State: trust.OpenStateDir(t.TempDir())})
	if got := serial(t, f); got != "1" {
		t.Fatalf("serving serial %s; want 1", got)
	}
	if swapped, err := f.srv.Reload(t.Context()); swapped || err != nil {
		t.Fatalf("Reload of an unchanged registry = %v, %v; want false, nil", swapped, err)
	}
	replaceRegistry(t, f.reg.Dir, f.dir)
	if swapped, err := f.srv.Reload(t.Context()); !swapped || err != nil {
		t.Fatalf("Reload of a newer registry = %v, %v; want true, nil", swapped, err)
	}
	if got := serial(t, f); got != "2" {
		t.Fatalf("after the reload serving serial %s; want 2", got)
	}

	// Tampered: the catalog's bytes changed under a timestamp that
	// changed too (so the poll looks again).
	good := filepath.Join(t.TempDir(), "good")
	filetest.CopyDir(t, f.dir, good)
	ts := filepath.Join(f.dir, "metadata", trust.TimestampFile)
	b := filetest.ReadFile(t, ts)
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	doc["signatures"] = []any{}
	nb, _ := json.Marshal(doc)
	filetest.WriteFile(t, ts, nb)
	swapped, err := f.srv.Reload(t.Context())
	if swapped || err == nil {
		t.Fatalf("Reload of a tampered registry = %v, %v; want a refusal", swapped, err)
	}
	if got := serial(t, f); got != "2" {
		t.Fatalf("after a refused reload serving serial %s; want 2", got)
	}
	// What is served still downloads.
	e := &catalog(t, good).Entries[0]
	path := "/vscode/gallery/publishers/" + e.ID.Namespace + "/vsextensions/" + e.ID.Name + "/" + e.Version + "/vspackage?targetPlatform=" + string(e.Platform)
	if resp, body := f.get(t, path); resp.StatusCode != http.StatusOK || int64(len(body)) != e.VsixSize {
		t.Fatalf("after a refused reload %s: %s", path, resp.Status)
	}

	// Rollback: the registry as it was at serial 1.
	replaceRegistry(t, f.reg.Dir1, f.dir)
	if swapped, err := f.srv.Reload(t.Context()); swapped || err == nil {
		t.Fatalf("Reload of an older registry = %v, %v; want a refusal", swapped, err)
	} else {
		t.Logf("refused: %v", err)
	}
	if got := serial(t, f); got != "2" {
		t.Fatalf("after a rollback serving serial %s; want 2", got)
	}
}

// TestRefusedAtStart: a registry that does not verify is not served.
func TestRefusedAtStart(t *testing.T) {
	f := newFixture(t, serve.Options{})
	open := func(context.Context) (store.Store, error) {
		return dirstore.Open(f.dir, dirstore.Options{ReadOnly: true})
	}
	if _, err := serve.New(t.Context(), serve.Options{Open: open, Anchor: trust.Anchor{Key: f.reg.Other}, Poll: -1}); err == nil {
		t.Fatal("New served a registry signed by another key")
	}
	filetest.FlipByte(t, filepath.Join(f.dir, "metadata", trust.TimestampFile))
	if _, err := serve.New(t.Context(), serve.Options{Open: open, Anchor: trust.Anchor{Key: f.reg.Signer}, Poll: -1}); err == nil {
		t.Fatal("New served a registry whose timestamp was tampered with")
	} else {
		t.Logf("refused: %v", err)
	}
}

// TestWatch: Watch notices a new catalog on its own and serves it.
func TestWatch(t *testing.T) {
	f := newFixture(t, serve.Options{Poll: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go f.srv.Watch(ctx)
	replaceRegistry(t, f.reg.Dir, f.dir)
	deadline := time.Now().Add(10 * time.Second)
	for serial(t, f) != "2" {
		if time.Now().After(deadline) {
			t.Fatal("Watch did not swap to serial 2 within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestExpired: once the metadata of the catalog served expires, nothing
// is served (503, saying what to do) until a renewed registry verifies.
func TestExpired(t *testing.T) {
	var now atomic.Pointer[time.Time]
	n := demoreg.VerifyNow
	now.Store(&n)
	f := newFixture(t, serve.Options{})
	f2 := newFixtureClock(t, f, func() time.Time { return *now.Load() })
	if resp, _ := f2.get(t, "/api/airvsx-demo/night-theme"); resp.StatusCode != http.StatusOK {
		t.Fatalf("before expiry: %s", resp.Status)
	}
	later := demoreg.VerifyNow.Add(400 * 24 * time.Hour)
	now.Store(&later)
	resp, body := f2.get(t, "/api/airvsx-demo/night-theme")
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "expired") {
		t.Fatalf("after expiry: %s %s; want 503", resp.Status, body)
	}
	if resp, _ := f2.get(t, "/healthz"); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("healthz after expiry: %s; want 503", resp.Status)
	}
}

// TestReloadAfterClose: a Reload (a Watch's tick) that comes after Close
// returns ErrClosed instead of reading a snapshot that is gone, and Watch
// then stops.
func TestReloadAfterClose(t *testing.T) {
	f := newFixture(t, serve.Options{Poll: time.Millisecond})
	if err := f.srv.Close(); err != nil {
		t.Fatal(err)
	}
	if swapped, err := f.srv.Reload(t.Context()); swapped || !errors.Is(err, serve.ErrClosed) {
		t.Fatalf("Reload after Close = %v, %v; want false, ErrClosed", swapped, err)
	}
	if serial, digest := f.srv.Serial(); serial != 0 || digest != "" {
		t.Errorf("Serial after Close = %d, %q; want 0, \"\"", serial, digest)
	}
	// A request that comes after Close is answered, not a panic.
	for _, p := range []string{"/healthz", "/api/airvsx-demo/night-theme"} {
		rec := httptest.NewRecorder()
		f.srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
		if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "closed") {
			t.Errorf("GET %s after Close: %d %q; want 503, the server is closed", p, rec.Code, rec.Body.String())
		}
	}
	done := make(chan struct{})
	go func() { f.srv.Watch(t.Context()); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Watch on a closed server did not stop")
	}
}
