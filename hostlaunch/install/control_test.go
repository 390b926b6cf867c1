package install_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/policies"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
)

// withList returns a copy of the fixture registry whose next catalog
// pins list, fetched at fetched, as the upstream's control list.
func withList(t *testing.T, list string, fetched time.Time) install.Registry {
	t.Helper()
	f := base(t)
	dir := filepath.Join(t.TempDir(), "registry")
	filetest.CopyDir(t, f.dir, dir)
	cat, digest := demoreg.ReadCatalog(t, dir)
	st := storetest.OpenDir(t, dir, dirstore.Options{})
	meta := trust.Metadata(t.Context(), st)
	sum, err := trust.PutControl(t.Context(), meta, []byte(list))
	if err != nil {
		t.Fatal(err)
	}
	cat.Serial, cat.Previous = cat.Serial+1, digest
	cat.Control = []index.ControlRef{{Origin: index.ControlUpstream, Source: "https://x/extensions.json", FetchedAt: fetched, Digest: sum, Size: int64(len(list))}}
	if _, err := trust.PublishCatalog(t.Context(), meta, cat, f.signer, trust.PublishOptions{Now: func() time.Time { return testNow }}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	ro := storetest.OpenDir(t, dir, dirstore.Options{ReadOnly: true})
	t.Cleanup(func() { ro.Close() })
	return install.Registry{Store: ro, Place: dir, Anchor: trust.Anchor{Root: f.root}}
}

// TestInstallControl: an extension the list names malicious is refused,
// also as a dependency; the policy's override installs it, recorded in
// the directory's sealed control.json; a registry whose list is older
// than the one the directory enforces is refused; a control.json changed
// by something else is not trusted.
func TestInstallControl(t *testing.T) {
	const list = `{"malicious": ["airvsx-demo.git-helper"], "deprecated": {"airvsx-demo.night-theme": {"disallowInstall": true}}}`
	t1 := testNow.Add(-time.Hour).UTC()
	reg := withList(t, list, t1)
	opts := options(t)

	if _, err := install.FromRegistry(t.Context(), reg, "airvsx-demo.hello-command", opts); err != nil {
		t.Fatalf("an extension not listed: %v", err)
	}
	for ref, want := range map[string]string{
		"airvsx-demo.uses-git":    "control-malicious: malicious per the control list upstream", // through its dependency
		"airvsx-demo.night-theme": "control-deprecated: deprecated (install disallowed)",
	} {
		_, err := install.FromRegistry(t.Context(), reg, ref, opts)
		if !errors.Is(err, install.ErrRefused) || !strings.Contains(err.Error(), want) {
			t.Errorf("install %s: %v; want refused with %q", ref, err, want)
		}
	}
	pol, err := policies.Parse("p.yaml", []byte(testPolicy+"control:\n  allow:\n    - {id: airvsx-demo.git-helper, reason: vetted}\n"))
	if err != nil {
		t.Fatal(err)
	}
	withPol := opts
	withPol.Policy = pol
	res, err := install.FromRegistry(t.Context(), reg, "airvsx-demo.uses-git", withPol)
	if err != nil {
		t.Fatalf("with the override: %v", err)
	}
	if len(res.ControlOverrides) != 1 || res.ControlOverrides[0].ID != "airvsx-demo.git-helper" || res.ControlOverrides[0].Reason != "vetted" {
		t.Errorf("ControlOverrides = %+v", res.ControlOverrides)
	}
	st, err := install.LoadControl(opts.Dir, dirOpts(opts))
	if err != nil || st == nil || len(st.Lists) != 1 || !st.Lists[0].Ref.FetchedAt.Equal(t1) {
		t.Fatalf("LoadControl = %+v, %v", st, err)
	}
	if a, ok := st.Allowed(index.MustParseID("AIRVSX-DEMO.git-helper")); !ok || a.Reason != "vetted" {
		t.Errorf("the override is not recorded: %+v", st.Allow)
	}

	// An older list (a registry rolled back, or copied from a stale side).
	older := withList(t, list, t1.Add(-time.Minute))
	if _, err := install.FromRegistry(t.Context(), older, "airvsx-demo.demo-pack", opts); !errors.Is(err, install.ErrRefused) || !strings.Contains(err.Error(), "control list rolled back") {
		t.Errorf("older list: %v; want refused, rolled back", err)
	}

	// control.json changed by something else: not trusted.
	file := filepath.Join(opts.Dir, install.ControlFile)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), `"vetted"`, `"forged"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := install.LoadControl(opts.Dir, dirOpts(opts)); err == nil || !strings.Contains(err.Error(), "not sealed by airvsx") {
		t.Errorf("a forged control.json: %v", err)
	}
}
