package serve_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/serve"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
)

func TestMain(m *testing.M) { demoreg.Main(m) }

// fixture is a server over a copy of a demo registry, on loopback.
type fixture struct {
	dir string // the registry served (a copy the test may change)
	srv *serve.Server
	ts  *httptest.Server
	reg *demoreg.Registry
}

// newFixture serves a copy of the demo registry after its first sync
// (serial 1) with opts (Open, Anchor and Now set here).
func newFixture(t *testing.T, opts serve.Options) *fixture {
	t.Helper()
	reg := demoreg.Get(t)
	dir := filepath.Join(t.TempDir(), "registry")
	filetest.CopyDir(t, reg.Dir1, dir)
	opts.Open = func(context.Context) (store.Store, error) {
		return dirstore.Open(dir, dirstore.Options{ReadOnly: true})
	}
	opts.Anchor = trust.Anchor{Key: reg.Signer}
	opts.Now = func() time.Time { return demoreg.VerifyNow }
	if opts.Poll == 0 {
		opts.Poll = -1
	}
	srv, err := serve.New(t.Context(), opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return &fixture{dir: dir, srv: srv, ts: newTestServer(t, srv), reg: reg}
}

// newTestServer serves srv on loopback until the test ends.
func newTestServer(t *testing.T, srv *serve.Server) *httptest.Server {
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		ts.Close()
		srv.Close()
	})
	return ts
}

// get fetches path from the fixture's server (no gzip asked for).
func (f *fixture) get(t *testing.T, path string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", f.ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read: %v", req.Method, req.URL, err)
	}
	return resp, b
}

// catalog is the catalog of the registry in dir.
func catalog(t *testing.T, dir string) *index.Catalog {
	t.Helper()
	cat, _ := demoreg.ReadCatalog(t, dir)
	return cat
}

// vsixBytes reads e's package straight from the registry in dir.
func vsixBytes(t *testing.T, dir string, e *index.Entry) []byte {
	t.Helper()
	st, err := dirstore.Open(dir, dirstore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b, err := store.ReadBlob(t.Context(), st, artifact.Repo(e.ID), index.SHA256Digest(e.VsixSHA256), e.VsixSize, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// entryManifest reads e's manifest straight from the registry in dir.
func entryManifest(t *testing.T, dir string, e *index.Entry) *artifact.Manifest {
	t.Helper()
	st, err := dirstore.Open(dir, dirstore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m, err := artifact.EntryManifest(t.Context(), st, e)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// layerBytes reads layer l of e straight from the registry in dir.
func layerBytes(t *testing.T, dir string, e *index.Entry, l artifact.Layer) []byte {
	t.Helper()
	st, err := dirstore.Open(dir, dirstore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b, err := store.ReadBlob(t.Context(), st, artifact.Repo(e.ID), l.Digest, l.Size, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// newFixtureClock serves f's registry again with the clock now.
func newFixtureClock(t *testing.T, f *fixture, now func() time.Time) *fixture {
	t.Helper()
	srv, err := serve.New(t.Context(), serve.Options{
		Open: func(context.Context) (store.Store, error) {
			return dirstore.Open(f.dir, dirstore.Options{ReadOnly: true})
		},
		Anchor: trust.Anchor{Key: f.reg.Signer}, Now: now, Poll: -1,
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return &fixture{dir: f.dir, srv: srv, ts: newTestServer(t, srv), reg: f.reg}
}
