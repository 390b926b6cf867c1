// Package demoreg is the test fixture the mirror, verify and site tests
// share: the demo registry, that is the demo policy
// (policies/examples/demo.yaml) synced by mirror.Sync from the fixture
// Open VSX (testkit/openvsxtest), built once per test binary. It syncs
// twice, at SyncNow1 and SyncNow2 (the second finds nothing new and
// renews: mirror.Options.Renew), signing with an in-process ECDSA key
// (no scrypt), and keeps a copy of the registry after the first sync, a
// second key that signed nothing, and both public keys as files.
//
// Get builds it on first use in a temporary directory that the test
// binary's TestMain removes with Cleanup after m.Run. Tests must not
// change what Get returns: they copy the registry first.
//
// The package also holds the pieces a suite that syncs for itself needs:
// the demo policy (or one given as text), a client tuned for the fixture
// upstream, a signer.
package demoreg

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/mirror"
	"github.com/airvsx/airvsx/mirror/openvsx"
	"github.com/airvsx/airvsx/policies"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
	"github.com/airvsx/airvsx/testkit/synthreg"
)

// The clock: the first sync signs at SyncNow1, the second an hour later;
// VerifyNow, two hours after that, is when tests check the registry
// (its catalogs are valid for 90 days).
var (
	SyncNow1  = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	SyncNow2  = SyncNow1.Add(time.Hour)
	VerifyNow = SyncNow1.Add(3 * time.Hour)
)

// Registry is the demo registry and what made it.
type Registry struct {
	// Dir is the registry after both syncs: catalog serial 2.
	Dir string
	// Dir1 is a copy of the registry after the first sync: serial 1.
	Dir1 string
	// Root is the registry's metadata/1.root.json, the root a user pins.
	Root []byte
	// Signer signed the registry; PubPath is its public key file.
	Signer  signature.SignerVerifier
	PubPath string
	// Other is a key that signed nothing; OtherPub is its public key file.
	Other    signature.SignerVerifier
	OtherPub string
	// Upstream is the base URL of the fixture upstream both syncs used
	// (closed once the test that built the registry ended).
	Upstream string
	// Reports are the two syncs' reports.
	Reports [2]*mirror.Report
	// Downloads are how many file requests (paths under /cdn/) each sync
	// made.
	Downloads [2]int
}

var (
	once    sync.Once
	reg     *Registry
	errText string
	tmpDir  string
)

// Get returns the demo registry, building it on the first call in the
// test binary (that call's tb owns the fixture upstream, which is closed
// when it ends). A build that failed fails every caller.
func Get(tb testing.TB) *Registry {
	tb.Helper()
	once.Do(func() {
		r, err := build(tb)
		if err != nil {
			errText = err.Error()
			return
		}
		reg = r
	})
	if reg == nil {
		if errText == "" {
			errText = "the build stopped (t.Fatal in the test that built it?)"
		}
		tb.Fatalf("demo registry: %s", errText)
	}
	return reg
}

// Main runs the tests of a binary that uses Get, removes what Get made,
// and exits: a TestMain with nothing else to do is
//
//	func TestMain(m *testing.M) { demoreg.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

// Cleanup removes what Get made. A TestMain that does more than Main
// calls it after m.Run.
func Cleanup() {
	if tmpDir != "" {
		os.RemoveAll(tmpDir)
	}
}

func build(tb testing.TB) (*Registry, error) {
	dir, err := os.MkdirTemp("", "airvsx-demoreg-")
	if err != nil {
		return nil, err
	}
	tmpDir = dir
	r := &Registry{Dir: filepath.Join(dir, "registry"), Dir1: filepath.Join(dir, "registry-1")}
	if r.Signer, r.PubPath, err = newSigner(dir, "signer"); err != nil {
		return nil, err
	}
	if r.Other, r.OtherPub, err = newSigner(dir, "other"); err != nil {
		return nil, err
	}
	pol, err := policies.Load(PolicyPath())
	if err != nil {
		return nil, err
	}
	srv := openvsxtest.New(tb, openvsxtest.Options{})
	c, err := newClient(srv)
	if err != nil {
		return nil, err
	}
	r.Upstream = srv.URL
	for i, now := range []time.Time{SyncNow1, SyncNow2} {
		before := srv.Count("/cdn/")
		st, err := dirstore.Open(r.Dir, dirstore.Options{Create: true})
		if err != nil {
			return nil, err
		}
		// The second sync finds nothing new: it renews (Renew), so that
		// the registry has a second serial chained to the first.
		r.Reports[i], err = mirror.Sync(context.Background(), mirror.Options{Client: c, Policy: pol, Store: st, Signer: r.Signer,
			Now: func() time.Time { return now }, TempDir: dir, Renew: i == 1})
		st.Close()
		if err != nil {
			return nil, fmt.Errorf("sync %d: %w", i+1, err)
		}
		if r.Reports[i].Failed() {
			return nil, fmt.Errorf("sync %d failed: quarantined %v, missing %v", i+1, r.Reports[i].Quarantined, r.Reports[i].Plan.Missing)
		}
		r.Downloads[i] = srv.Count("/cdn/") - before
		if i == 0 {
			if err := os.CopyFS(r.Dir1, os.DirFS(r.Dir)); err != nil {
				return nil, err
			}
		}
	}
	r.Root, err = os.ReadFile(filepath.Join(r.Dir, "metadata", "1.root.json"))
	return r, err
}

// ReadCatalog reads the catalog of the registry in dir, checked against
// the registry's own root at VerifyNow, and returns it with its digest.
func ReadCatalog(tb testing.TB, dir string) (*index.Catalog, string) {
	tb.Helper()
	st, err := dirstore.Open(dir, dirstore.Options{ReadOnly: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer st.Close()
	cat, tr, err := trust.ReadCatalog(tb.Context(), st, trust.CatalogOptions{Load: trust.LoadOptions{Now: func() time.Time { return VerifyNow }}})
	if err != nil {
		tb.Fatalf("ReadCatalog: %v", err)
	}
	return cat, tr.CatalogDigest
}

// PolicyPath is the file of the demo policy.
func PolicyPath() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "policies", "examples", "demo.yaml")
}

// Policy loads the demo policy.
func Policy(tb testing.TB) *policies.Policy {
	tb.Helper()
	p, err := policies.Load(PolicyPath())
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// ParsePolicy parses a policy given as YAML text.
func ParsePolicy(tb testing.TB, yaml string) *policies.Policy {
	tb.Helper()
	p, err := policies.Parse("test.yaml", []byte(yaml))
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// Client returns a client of the fixture upstream srv that is never
// throttled and retries at once.
func Client(tb testing.TB, srv *openvsxtest.Server) *openvsx.Client {
	tb.Helper()
	c, err := newClient(srv)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func newClient(srv *openvsxtest.Server) (*openvsx.Client, error) {
	return openvsx.NewClient(openvsx.ClientOptions{BaseURL: srv.URL, Rate: 1000, Burst: 100, RetryWaitMin: time.Millisecond, RetryWaitMax: 20 * time.Millisecond})
}

// Signer returns a fresh signer (synthreg.NewSigner: cheap) and writes
// its public key to dir/name.pub, whose path it returns too.
func Signer(tb testing.TB, dir, name string) (signature.SignerVerifier, string) {
	tb.Helper()
	sv, pub, err := newSigner(dir, name)
	if err != nil {
		tb.Fatal(err)
	}
	return sv, pub
}

func newSigner(dir, name string) (signature.SignerVerifier, string, error) {
	sv, pubPEM, err := synthreg.NewSigner()
	if err != nil {
		return nil, "", err
	}
	p := filepath.Join(dir, name+".pub")
	if err := os.WriteFile(p, pubPEM, 0o644); err != nil {
		return nil, "", err
	}
	return sv, p, nil
}
