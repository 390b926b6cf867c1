package site_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/testkit/demoreg"

	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/site"
	"github.com/airvsx/airvsx/site/sitetest"
)

// shared is the per-binary scratch directory: fixtures built once are
// kept here and removed by TestMain.
var shared string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "site-test-")
	if err != nil {
		panic(err)
	}
	shared = dir
	code := m.Run()
	closeBrowser()
	demoreg.Cleanup()
	os.RemoveAll(dir)
	os.Exit(code)
}

// demoRegistry is the demo registry the tests share (testkit/demoreg).
// The site tests render the registry as the first sync left it
// (Registry.Dir1, catalog serial 1), verified at demoreg.VerifyNow.
func demoRegistry(t *testing.T) *demoreg.Registry {
	t.Helper()
	return demoreg.Get(t)
}

// demoNow is the clock renders of the demo registry check expiry against.
func demoNow() time.Time { return demoreg.VerifyNow }

// render renders the registry in dir into out with opts (Out set here).
func render(t testing.TB, dir, out string, opts site.Options) *site.Result {
	t.Helper()
	st := storetest.OpenDir(t, dir, dirstore.Options{ReadOnly: true})
	defer st.Close()
	opts.Out = out
	res, err := site.Render(t.Context(), st, opts)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	return res
}

var (
	demoSiteOnce sync.Once
	demoSiteDir  string
)

// demoSite is the demo registry rendered once per test binary (verified
// with the signer's key); tests must not change it.
func demoSite(t *testing.T) string {
	t.Helper()
	f := demoRegistry(t)
	demoSiteOnce.Do(func() {
		out := filepath.Join(shared, "demo-site")
		render(t, f.Dir1, out, site.Options{Anchor: trust.Anchor{Key: f.Signer}, Registry: "/media/usb/registry", Now: demoNow})
		demoSiteDir = out
	})
	if demoSiteDir == "" {
		t.Fatal("demo site was not rendered")
	}
	return demoSiteDir
}

// synthetic builds a registry of exts, signed now, in a new directory.
func synthetic(t testing.TB, exts []sitetest.Extension) (dir string, key signature.Verifier) {
	t.Helper()
	sv, _, err := sitetest.NewSigner()
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(t.TempDir(), "registry")
	if _, err := sitetest.Build(t.Context(), dir, exts, sv, sitetest.Options{}); err != nil {
		t.Fatalf("sitetest.Build: %v", err)
	}
	return dir, sv
}

func mustID(s string) index.ID { return index.MustParseID(s) }
