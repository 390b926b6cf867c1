package site_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/site"
	"github.com/airvsx/airvsx/testkit/filetest"
)

// stores returns the registry in dir opened as a directory store
// (read-only) and copied raw into an in-memory one (storetest.Mem), for
// tests that must give the same verdict from either.
func stores(t *testing.T, dir string) map[string]store.Store {
	t.Helper()
	d := storetest.OpenDir(t, dir, dirstore.Options{ReadOnly: true})
	t.Cleanup(func() { d.Close() })
	return map[string]store.Store{"dir": d, "mem": storetest.MemFromDir(t, dir)}
}

// TestRenderMem renders the demo registry from its directory and from a
// storetest.Mem copied from it, and compares every byte of every file
// and the results: the site reads its registry through store.Store only
// (a Mem has no directory to read around it, nor a directory store's
// extras).
func TestRenderMem(t *testing.T) {
	f := demoRegistry(t)
	opts := site.Options{Anchor: trust.Anchor{Root: f.Root}, Registry: "reg", Now: demoNow}
	sites := map[string]map[string]string{}
	results := map[string]*site.Result{}
	for name, st := range stores(t, f.Dir1) {
		o := opts
		o.Out = filepath.Join(t.TempDir(), name)
		res, err := site.Render(t.Context(), st, o)
		if err != nil {
			t.Fatalf("Render from %s: %v", name, err)
		}
		sites[name], results[name] = filetest.Files(t, o.Out), res
	}
	if diff := cmp.Diff(sites["dir"], sites["mem"]); diff != "" {
		t.Errorf("the site rendered from a Mem differs (-dir +mem):\n%s", diff)
	}
	if diff := cmp.Diff(results["dir"], results["mem"], cmpopts.IgnoreFields(site.Result{}, "Out")); diff != "" {
		t.Errorf("Render's result from a Mem differs (-dir +mem):\n%s", diff)
	}
	if len(sites["dir"]) < 20 {
		t.Errorf("only %d files rendered", len(sites["dir"]))
	}
}
