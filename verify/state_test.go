package verify_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/verify"
	"github.com/airvsx/airvsx/verify/verifytest"
)

// TestStateRecorded: a verified chain is recorded in the state directory,
// also when entries have problems (the versions are facts the signer
// published); key mode pins the root on first use and uses it after.
func TestStateRecorded(t *testing.T) {
	dir := fresh(t)
	state := t.TempDir()
	withState := func(o *verify.RegistryOptions) { o.State = trust.OpenStateDir(state); useKey(t, o, base(t).PubPath) }
	// A damaged entry: the chain is still recorded.
	f := blobFile(t, dir, hello, artifact.RoleVsix)
	b := filetest.ReadFile(t, f)
	b[0] ^= 1
	filetest.WriteFile(t, f, b)
	rep := check(t, dir, withState)
	if rep.OK() || !rep.Trust.Recorded || !rep.Trust.FirstUse || rep.Trust.Verified.Timestamp != 2 || rep.Trust.Mode != "key" {
		t.Fatalf("trust = %+v ok=%v; want first use, recorded timestamp 2", rep.Trust, rep.OK())
	}
	sd := rep.Trust.StateDir
	var s map[string]any
	if err := json.Unmarshal(filetest.ReadFile(t, filepath.Join(sd, "state.json")), &s); err != nil {
		t.Fatal(err)
	}
	if s["catalogSerial"].(float64) != 2 {
		t.Errorf("state.json = %v; want catalogSerial 2", s)
	}
	if _, err := os.Stat(filepath.Join(sd, "root.json")); err != nil {
		t.Errorf("key mode pinned no root: %v", err)
	}
	b[0] ^= 1
	filetest.WriteFile(t, f, b)
	rep = check(t, dir, withState)
	if !rep.OK() || rep.Trust.FirstUse || rep.Trust.Previous.Timestamp != 2 {
		t.Fatalf("second run: trust %+v problems:\n%s", rep.Trust, verifytest.ProblemList(rep))
	}
	// A damaged state file stops the run: it cannot check rollback.
	filetest.WriteFile(t, filepath.Join(sd, "state.json"), []byte("{"))
	o := regOpts(t, dir)
	o.State = trust.OpenStateDir(state)
	useKey(t, &o, base(t).PubPath)
	if _, err := verify.Registry(t.Context(), o); err == nil {
		t.Error("damaged state file: no error")
	}
}

// TestRegistryCannotRun: bad options are errors (exit 2), not reports.
func TestRegistryCannotRun(t *testing.T) {
	st := regOpts(t, base(t).Dir).Store
	key, err := trust.LoadVerifier(base(t).PubPath)
	if err != nil {
		t.Fatal(err)
	}
	for name, o := range map[string]verify.RegistryOptions{
		"no store":    {Anchor: trust.Anchor{Root: []byte("{}")}},
		"no anchor":   {Store: st},
		"two anchors": {Store: st, Anchor: trust.Anchor{Root: []byte("{}"), Key: key}},
	} {
		if _, err := verify.Registry(t.Context(), o); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestNeverCompleted: a registry whose first sync or copy stopped before
// it signed a catalog (its skeleton alone, or with the root written) is
// one problem, registry-incomplete, saying to run it again; not one per
// file the chain misses.
func TestNeverCompleted(t *testing.T) {
	for _, tc := range []struct {
		name string
		keep []string // metadata files kept from a finished registry
	}{
		{"skeleton", nil},
		{"root written", []string{"1.root.json"}},
	} {
		for _, mode := range []string{"root", "key"} {
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				src := fresh(t)
				dir := filepath.Join(t.TempDir(), "new")
				st := storetest.OpenDir(t, dir, dirstore.Options{Create: true})
				if err := st.Close(); err != nil {
					t.Fatal(err)
				}
				for _, name := range tc.keep {
					filetest.CopyFile(t, filepath.Join(src, "metadata", name), filepath.Join(dir, "metadata", name))
				}
				rep := check(t, dir, func(o *verify.RegistryOptions) {
					if mode == "key" {
						useKey(t, o, base(t).PubPath)
					}
				})
				if len(rep.Problems) != 1 {
					t.Fatalf("%d problems; want 1:\n%s", len(rep.Problems), verifytest.ProblemList(rep))
				}
				p := rep.Problems[0]
				if p.Rule != verify.RuleIncomplete || p.Severity != verify.Error || p.File != "metadata/timestamp.json" ||
					!strings.Contains(p.Message, "never completed") || !strings.Contains(p.Fix, "run the sync (or the copy) that made this registry again") {
					t.Errorf("problem %+v; want registry-incomplete at metadata/timestamp.json saying to run the sync again", p)
				}
			})
		}
	}
}
