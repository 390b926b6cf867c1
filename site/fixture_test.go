package site_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index/trust"

	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/mirror"
	"github.com/airvsx/airvsx/mirror/openvsxtest"
	"github.com/airvsx/airvsx/policies"
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
	os.RemoveAll(dir)
	os.Exit(code)
}

// fixture is a registry synced from the fixture upstream with the demo
// policy, and the key that signed it.
type fixture struct {
	dir  string
	key  signature.Verifier
	root []byte // the registry's root.json, as a user would pin it
}

var (
	fixtureOnce sync.Once
	theFixture  *fixture
	fixtureErr  error
)

// demoRegistry syncs the demo policy from the fixture Open VSX once per
// test binary.
func demoRegistry(t *testing.T) *fixture {
	t.Helper()
	fixtureOnce.Do(func() {
		srv := openvsxtest.New(t, openvsxtest.Options{})
		c, err := mirror.NewClient(mirror.ClientOptions{BaseURL: srv.URL, Rate: 1000, Burst: 100, RetryWaitMin: time.Millisecond, RetryWaitMax: 20 * time.Millisecond})
		if err != nil {
			fixtureErr = err
			return
		}
		pol, err := policies.Load(filepath.Join("..", "policies", "examples", "demo.yaml"))
		if err != nil {
			fixtureErr = err
			return
		}
		sv, _, err := sitetest.NewSigner()
		if err != nil {
			fixtureErr = err
			return
		}
		dir := filepath.Join(shared, "demo-registry")
		st, err := store.OpenDir(dir, store.DirOptions{Create: true})
		if err != nil {
			fixtureErr = err
			return
		}
		defer st.Close()
		if _, err := mirror.Sync(t.Context(), mirror.Options{Client: c, Policy: pol, Store: st, Signer: sv, TempDir: shared}); err != nil {
			fixtureErr = err
			return
		}
		root, err := os.ReadFile(filepath.Join(dir, "metadata", "root.json"))
		if err != nil {
			fixtureErr = err
			return
		}
		theFixture = &fixture{dir: dir, key: sv, root: root}
	})
	if fixtureErr != nil {
		t.Fatalf("demo registry: %v", fixtureErr)
	}
	return theFixture
}

// render renders the registry in dir into out with opts (Out set here).
func render(t testing.TB, dir, out string, opts site.Options) *site.Result {
	t.Helper()
	st, err := store.OpenDir(dir, store.DirOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
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
		render(t, f.dir, out, site.Options{Anchor: trust.Anchor{Key: f.key}, Registry: "/media/usb/registry"})
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
