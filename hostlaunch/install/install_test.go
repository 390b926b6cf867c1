package install_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/policies"
	"github.com/airvsx/airvsx/testkit/demoreg"
)

func ids(rs []install.Record) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}

// loaded returns what Load sees in opts.Dir (with the seal key of
// opts.StateDir), failing the test on an error.
func loaded(t *testing.T, opts install.Options) *install.Loaded {
	t.Helper()
	l, err := install.Load(t.Context(), opts.Dir, dirOpts(opts))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestDependencyOrder(t *testing.T) {
	tests := []struct {
		ref  string
		want []string
	}{
		{"airvsx-demo.uses-git", []string{"airvsx-demo.git-helper@0.3.0", "airvsx-demo.uses-git@1.0.0"}},
		{"airvsx-demo.demo-pack", []string{"airvsx-demo.hello-command@1.0.0@linux-x64", "airvsx-demo.night-theme@2.1.0", "airvsx-demo.demo-pack@1.0.0"}},
		{"cyc.a", []string{"cyc.b@1.0.0", "cyc.a@1.0.0"}},
		{"airvsx-demo.night-theme", []string{"airvsx-demo.night-theme@2.1.0"}},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			opts := options(t)
			res, err := install.FromRegistry(t.Context(), registry(t), tt.ref, opts)
			if err != nil {
				t.Fatalf("FromRegistry(%s): %v", tt.ref, err)
			}
			if diff := cmp.Diff(tt.want, ids(res.Installed)); diff != "" {
				t.Errorf("FromRegistry(%s) installed (-want +got):\n%s", tt.ref, diff)
			}
			l := loaded(t, opts)
			got := ids(l.Extensions)
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("installed.json (-want +got):\n%s", diff)
			}
			for _, r := range l.Extensions {
				if !r.Enabled {
					t.Errorf("%s disabled: %s", r.String(), r.Reason)
				}
				if r.Source.Kind != install.SourceRegistry || r.Source.CatalogSerial != 1 || r.Source.Registry != base(t).dir {
					t.Errorf("%s source = %+v", r.String(), r.Source)
				}
				if _, err := os.Stat(filepath.Join(opts.Dir, r.Dir, "package.json")); err != nil {
					t.Errorf("%s: %v", r.String(), err)
				}
			}
			// Again: everything is kept, nothing reinstalled.
			res, err = install.FromRegistry(t.Context(), registry(t), tt.ref, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Installed) != 0 || len(res.Kept) == 0 {
				t.Errorf("second install: installed %v, kept %v; want nothing installed", ids(res.Installed), ids(res.Kept))
			}
		})
	}
}

func TestPlatformPick(t *testing.T) {
	tests := []struct {
		name     string
		ref      string
		platform index.Platform
		pre      bool
		want     string
		dir      string
	}{
		{"own build over universal", "airvsx-demo.hello-command", index.LinuxX64, false, "airvsx-demo.hello-command@1.0.0@linux-x64", "airvsx-demo.hello-command-1.0.0@linux-x64"},
		{"another platform's build", "airvsx-demo.hello-command", index.DarwinArm64, false, "airvsx-demo.hello-command@1.0.0@darwin-arm64", "airvsx-demo.hello-command-1.0.0@darwin-arm64"},
		{"universal when there is no own build", "airvsx-demo.hello-command", index.Win32X64, false, "airvsx-demo.hello-command@1.0.0", "airvsx-demo.hello-command-1.0.0"},
		{"pre-release when asked", "airvsx-demo.hello-command", index.LinuxX64, true, "airvsx-demo.hello-command@1.1.0", "airvsx-demo.hello-command-1.1.0"},
		{"explicit version", "airvsx-demo.hello-command@1.1.0", index.LinuxX64, false, "airvsx-demo.hello-command@1.1.0", "airvsx-demo.hello-command-1.1.0"},
		{"ID in another case", "AIRVSX-DEMO.Night-Theme", index.LinuxX64, false, "airvsx-demo.night-theme@2.1.0", "airvsx-demo.night-theme-2.1.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := options(t)
			opts.Platform, opts.PreRelease = tt.platform, tt.pre
			res, err := install.FromRegistry(t.Context(), registry(t), tt.ref, opts)
			if err != nil {
				t.Fatalf("FromRegistry(%s): %v", tt.ref, err)
			}
			if got := ids(res.Installed); len(got) != 1 || got[0] != tt.want || res.Installed[0].Dir != tt.dir {
				t.Errorf("FromRegistry(%s) on %s = %v in %s; want %s in %s", tt.ref, tt.platform, got, res.Installed[0].Dir, tt.want, tt.dir)
			}
		})
	}
}

func TestEngineRefusal(t *testing.T) {
	opts := options(t)
	_, err := install.FromRegistry(t.Context(), registry(t), "airvsx-demo.hello-command@2.0.0", opts)
	var re *install.RefusedError
	if !errors.As(err, &re) || !errors.Is(err, install.ErrRefused) {
		t.Fatalf("install of 2.0.0 = %v; want a *RefusedError", err)
	}
	if !strings.Contains(err.Error(), "engines.vscode ^1.999.0 does not accept the host's API version 1.140.0") {
		t.Errorf("error %q does not name the engine", err)
	}
	reason, rerr := os.ReadFile(filepath.Join(re.Quarantine, "REASON"))
	if re.Quarantine == "" || rerr != nil || !strings.Contains(string(reason), "engines.vscode") {
		t.Errorf("quarantine %q: REASON %q, %v", re.Quarantine, reason, rerr)
	}
	if _, err := os.Stat(filepath.Join(re.Quarantine, "airvsx-demo.hello-command-2.0.0.vsix")); err != nil {
		t.Errorf("quarantined package: %v", err)
	}
	if l := loaded(t, opts); len(l.Extensions) != 0 {
		t.Errorf("installed %v after a refusal", ids(l.Extensions))
	}
	// An editor that accepts it.
	opts = options(t)
	opts.APIVersion = "1.999.0"
	res, err := install.FromRegistry(t.Context(), registry(t), "airvsx-demo.hello-command", opts)
	if err != nil || ids(res.Installed)[0] != "airvsx-demo.hello-command@2.0.0" {
		t.Errorf("with API 1.999.0: %v, %v; want 2.0.0", res, err)
	}
}

func TestRegistryRefusals(t *testing.T) {
	f := base(t)
	other, err := trust.LoadAnchor("", f.otherPub)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		ref    string
		anchor *trust.Anchor
		want   string
	}{
		{"wrong key", "airvsx-demo.night-theme", &other, "not signed by the given key"},
		{"not in the catalog", "nobody.nothing", nil, "nobody.nothing is not in the catalog"},
		{"no such version", "airvsx-demo.night-theme@9.9.9", nil, "has no version 9.9.9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := registry(t)
			if tt.anchor != nil {
				reg.Anchor = *tt.anchor
			}
			opts := options(t)
			_, err := install.FromRegistry(t.Context(), reg, tt.ref, opts)
			if !errors.Is(err, install.ErrRefused) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("FromRegistry(%s) = %v; want a refusal saying %q", tt.ref, err, tt.want)
			}
			if _, err := os.Stat(filepath.Join(opts.Dir, install.IndexFile)); err == nil {
				t.Errorf("installed.json written after a refusal")
			}
			// The extensions directory did not exist: the refusal
			// leaves none.
			if _, err := os.Lstat(opts.Dir); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the new extensions directory %s is left after a refusal (%v)", opts.Dir, err)
			}
		})
	}
}

// TestRefusalKeepsExistingDir: a refused install into an extensions
// directory that existed (empty) leaves it there.
func TestRefusalKeepsExistingDir(t *testing.T) {
	f := base(t)
	other, err := trust.LoadAnchor("", f.otherPub)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry(t)
	reg.Anchor = other
	opts := options(t)
	if err := os.Mkdir(opts.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := install.FromRegistry(t.Context(), reg, "airvsx-demo.night-theme", opts); !errors.Is(err, install.ErrRefused) {
		t.Fatalf("FromRegistry with another key = %v; want a refusal", err)
	}
	if fi, err := os.Stat(opts.Dir); err != nil || !fi.IsDir() {
		t.Errorf("the extensions directory that existed is gone: %v", err)
	}
}

func TestStateRecorded(t *testing.T) {
	reg := registry(t)
	reg.State = trust.OpenStateDir(filepath.Join(t.TempDir(), "state"))
	if _, err := install.FromRegistry(t.Context(), reg, "airvsx-demo.night-theme", options(t)); err != nil {
		t.Fatal(err)
	}
	c, err := trust.Check(t.Context(), reg.Store, reg.Anchor, trust.CheckOptions{State: reg.State})
	if err != nil {
		t.Fatal(err)
	}
	if c.Previous.Serial != 1 {
		t.Errorf("state after install: serial %d; want 1 (the chain recorded as verify records it)", c.Previous.Serial)
	}
}

func TestCapabilities(t *testing.T) {
	for _, withPolicy := range []bool{true, false} {
		opts := options(t)
		if withPolicy {
			opts.Policy = base(t).policy
		}
		if _, err := install.FromRegistry(t.Context(), registry(t), "airvsx-demo.uses-git", opts); err != nil {
			t.Fatal(err)
		}
		r := loaded(t, opts).Find(index.MustParseID("airvsx-demo.git-helper"))
		var want []install.Grant
		if withPolicy {
			want = []install.Grant{{Capability: index.Spawn, Rule: "capabilities[0] (airvsx-demo.git-helper)"}}
		}
		if diff := cmp.Diff(want, r.Capabilities); diff != "" || !r.Declared.Has(index.Spawn) {
			t.Errorf("policy %v: capabilities (-want +got):\n%s (declared %v)", withPolicy, diff, r.Declared)
		}
		var programs []string
		if withPolicy {
			programs = []string{"/usr/bin/git"}
		}
		if !slices.Equal(r.Programs, programs) || r.AllowedHosts != nil {
			t.Errorf("policy %v: programs %q, allowed hosts %q; want programs %q and no hosts", withPolicy, r.Programs, r.AllowedHosts, programs)
		}
		if !slices.Equal(r.Activation, []string{"onStartupFinished", "onCommand:gitHelper.showVersion"}) || r.Eager {
			t.Errorf("activation %v, eager %v", r.Activation, r.Eager)
		}
	}
}

// TestRegistryDamaged: a registry whose vsix or manifest bytes are not
// the ones its catalog pins refuses the install as damaged (the registry
// needs repair); a refusal of the package itself does not say so.
func TestRegistryDamaged(t *testing.T) {
	f := base(t)
	cat, _, err := trust.ReadCatalog(t.Context(), registry(t).Store, trust.CatalogOptions{Load: trust.LoadOptions{Now: func() time.Time { return testNow }}})
	if err != nil {
		t.Fatal(err)
	}
	var e *index.Entry
	for i := range cat.Entries {
		if cat.Entries[i].ID.String() == "airvsx-demo.night-theme" {
			e = &cat.Entries[i]
		}
	}
	if e == nil {
		t.Fatal("no airvsx-demo.night-theme in the fixture's catalog")
	}
	for _, tc := range []struct {
		name    string
		digest  string // the blob damaged, "" for none
		ref     string
		damaged bool
	}{
		{"vsix", artifact.VsixDigest(e), "airvsx-demo.night-theme", true},
		{"manifest", e.ManifestDigest, "airvsx-demo.night-theme", true},
		{"not in the catalog", "", "nobody.nothing", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := storetest.MemFromDir(t, f.dir)
			if tc.digest != "" {
				data, ok := st.RawBlob(artifact.Repo(e.ID), tc.digest)
				if !ok {
					t.Fatalf("no blob %s", tc.digest)
				}
				data[len(data)/2] ^= 1
				st.SetRawBlob(artifact.Repo(e.ID), tc.digest, data)
			}
			reg := install.Registry{Store: st, Place: "reg", Anchor: trust.Anchor{Root: f.root}}
			_, err := install.FromRegistry(t.Context(), reg, tc.ref, options(t))
			var r *install.RefusedError
			if !errors.As(err, &r) {
				t.Fatalf("FromRegistry = %v; want a *RefusedError", err)
			}
			if r.Damaged != tc.damaged {
				t.Errorf("Damaged = %v; want %v (%v)", r.Damaged, tc.damaged, err)
			}
		})
	}
}

// TestRegrant installs uses-git (and its dependency git-helper, which
// declares spawn) again and again into one directory: with a policy
// whose grants differ from those recorded, what is installed gets them
// (Result.Updated) and nothing is unpacked; with the same grants, or no
// policy, it is kept as it is.
func TestRegrant(t *testing.T) {
	other := demoreg.ParsePolicy(t, "version: 1\nextensions: [{id: airvsx-demo.*}]\ncapabilities:\n  - {id: airvsx-demo.git-helper, grant: [spawn], programs: [/bin/true]}\n")
	spawn := func(programs ...string) []string { return programs }
	steps := []struct {
		name                     string
		policy                   *policies.Policy
		installed, updated, kept []string
		grants                   []install.Grant
		programs                 []string
	}{
		{"no policy", nil, []string{"airvsx-demo.git-helper@0.3.0", "airvsx-demo.uses-git@1.0.0"}, nil, nil, nil, nil},
		{"a policy where there was none", base(t).policy, nil, []string{"airvsx-demo.git-helper@0.3.0"}, []string{"airvsx-demo.uses-git@1.0.0"},
			[]install.Grant{{Capability: index.Spawn, Rule: "capabilities[0] (airvsx-demo.git-helper)"}}, spawn("/usr/bin/git")},
		{"the same policy", base(t).policy, nil, nil, []string{"airvsx-demo.uses-git@1.0.0", "airvsx-demo.git-helper@0.3.0"},
			[]install.Grant{{Capability: index.Spawn, Rule: "capabilities[0] (airvsx-demo.git-helper)"}}, spawn("/usr/bin/git")},
		{"no policy keeps the grants", nil, nil, nil, []string{"airvsx-demo.uses-git@1.0.0", "airvsx-demo.git-helper@0.3.0"},
			[]install.Grant{{Capability: index.Spawn, Rule: "capabilities[0] (airvsx-demo.git-helper)"}}, spawn("/usr/bin/git")},
		{"another program", other, nil, []string{"airvsx-demo.git-helper@0.3.0"}, []string{"airvsx-demo.uses-git@1.0.0"},
			[]install.Grant{{Capability: index.Spawn, Rule: "capabilities[0] (airvsx-demo.git-helper)"}}, spawn("/bin/true")},
	}
	opts := options(t)
	id := index.MustParseID("airvsx-demo.git-helper")
	for i, s := range steps {
		o := opts
		o.Policy = s.policy
		o.Now = func() time.Time { return testNow.Add(time.Duration(i) * time.Hour) }
		res, err := install.FromRegistry(t.Context(), registry(t), "airvsx-demo.uses-git", o)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if diff := cmp.Diff([][]string{s.installed, s.updated, s.kept}, [][]string{ids(res.Installed), ids(res.Updated), ids(res.Kept)}); diff != "" {
			t.Errorf("%s: installed, updated, kept (-want +got):\n%s", s.name, diff)
		}
		r := loaded(t, o).Find(id)
		if diff := cmp.Diff(s.grants, r.Capabilities); diff != "" || !slices.Equal(r.Programs, s.programs) {
			t.Errorf("%s: capabilities (-want +got):\n%s programs %q; want %q", s.name, diff, r.Programs, s.programs)
		}
		// Sealed, enabled, and installed once: at the first step.
		if !r.Enabled || !r.Installed.Equal(testNow) {
			t.Errorf("%s: enabled %v (%s), installed %v; want enabled, installed %v", s.name, r.Enabled, r.Reason, r.Installed, testNow)
		}
	}
}
