package install_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/sigstore/sigstore/pkg/signature"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/index/vsix/vsixtest"
	"github.com/airvsx/airvsx/mirror"
	"github.com/airvsx/airvsx/policies"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
)

// testNow is the clock of the sync and of every install.
var testNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// testPolicy mirrors every build of hello-command (three platforms, the
// pre-release 1.1.0 and 2.0.0, which needs engine ^1.999.0), the pack and
// uses-git with what they pull in, and two extensions that depend on each
// other (cyc.a and cyc.b); it grants git-helper spawn.
const testPolicy = `version: 1
platforms: [universal, linux-x64, darwin-arm64]
extensions:
  - id: airvsx-demo.hello-command
    versions: ">=1.0.0"
    latest: all
    preRelease: true
  - id: airvsx-demo.demo-pack
  - id: airvsx-demo.uses-git
  - id: cyc.a
  - id: cyc.b
dependencies: true
capabilities:
  - id: airvsx-demo.git-helper
    grant: [spawn]
    programs: [/usr/bin/git]
`

// fixture is the registry every registry test reads (read-only).
type fixture struct {
	dir      string
	root     []byte
	otherPub string
	policy   *policies.Policy
	signer   signature.Signer // signs the fixture registry (control_test.go signs copies of it)
}

var (
	fixOnce sync.Once
	fix     *fixture
	fixErr  error
	tmpRoot string
)

func TestMain(m *testing.M) {
	var err error
	tmpRoot, err = os.MkdirTemp("", "airvsx-install-test-")
	if err != nil {
		panic(err)
	}
	// The default state directory (DirOptions.StateDir ""), which holds
	// the seal key, is never the user's.
	if err := os.Setenv("XDG_STATE_HOME", filepath.Join(tmpRoot, "xdg-state")); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(tmpRoot)
	os.Exit(code)
}

func base(t *testing.T) *fixture {
	t.Helper()
	fixOnce.Do(func() { fix, fixErr = buildFixture(t) })
	if fixErr != nil {
		t.Fatalf("fixture: %v", fixErr)
	}
	return fix
}

func buildFixture(t *testing.T) (*fixture, error) {
	fx := filepath.Join(tmpRoot, "fixtures")
	if err := os.MkdirAll(fx, 0o755); err != nil {
		return nil, err
	}
	src := openvsxtest.DefaultDir()
	names, _ := filepath.Glob(filepath.Join(src, "*.vsix"))
	for _, n := range append(names, filepath.Join(src, openvsxtest.SidecarName)) {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(fx, filepath.Base(n)), b, 0o644); err != nil {
			return nil, err
		}
	}
	for _, c := range []struct{ name, dep string }{{"a", "cyc.b"}, {"b", "cyc.a"}} {
		files := pkgFiles("cyc", c.name, "1.0.0", map[string]any{"extensionDependencies": []string{c.dep}})
		if err := vsixtest.Write(filepath.Join(fx, "cyc."+c.name+"-1.0.0.vsix"), vsixtest.Minimal(files)); err != nil {
			return nil, err
		}
	}
	srv := openvsxtest.New(t, openvsxtest.Options{Fixtures: fx})
	c := demoreg.Client(t, srv)
	pol := demoreg.ParsePolicy(t, testPolicy)
	f := &fixture{dir: filepath.Join(tmpRoot, "registry"), policy: pol}
	signer, _ := demoreg.Signer(t, tmpRoot, "signer")
	f.signer = signer
	_, f.otherPub = demoreg.Signer(t, tmpRoot, "other")
	st, err := dirstore.Open(f.dir, dirstore.Options{Create: true})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if _, err := mirror.Sync(context.Background(), mirror.Options{Client: c, Policy: pol, Store: st, Signer: signer,
		Now: func() time.Time { return testNow }, TempDir: tmpRoot}); err != nil {
		return nil, err
	}
	f.root, err = os.ReadFile(filepath.Join(f.dir, "metadata", "1.root.json"))
	return f, err
}

// registry opens the fixture registry read-only, anchored at its root.
func registry(t *testing.T) install.Registry {
	t.Helper()
	f := base(t)
	st := storetest.OpenDir(t, f.dir, dirstore.Options{ReadOnly: true})
	t.Cleanup(func() { st.Close() })
	return install.Registry{Store: st, Place: f.dir, Anchor: trust.Anchor{Root: f.root}}
}

// options returns install options for a new extensions directory on
// linux-x64 at testNow, with a state directory (for the seal key) of its
// own.
func options(t *testing.T) install.Options {
	t.Helper()
	tmp := t.TempDir()
	return install.Options{Dir: filepath.Join(tmp, "ext"), StateDir: filepath.Join(tmp, "state"), Platform: index.LinuxX64, Now: func() time.Time { return testNow }}
}

// dirOpts returns the options of Load, Uninstall and the other writers
// that go with opts: the same state directory.
func dirOpts(opts install.Options) install.DirOptions {
	return install.DirOptions{StateDir: opts.StateDir}
}

// pkgFiles returns the files of a small valid extension ns.name@version
// whose package.json is the sample's with extra merged in (a nil value
// deletes a key).
func pkgFiles(ns, name, version string, extra map[string]any) map[string]string {
	files := vsixtest.SampleFiles()
	m := map[string]any{
		"publisher": ns, "name": name, "version": version,
		"engines":     map[string]string{"vscode": "^1.80.0"},
		"main":        "./extension.js",
		"contributes": map[string]any{"commands": []map[string]string{{"command": name + ".hello", "title": "Hello"}}},
	}
	for k, v := range extra {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		panic(err)
	}
	files["extension/package.json"] = string(b)
	vm := vsixtest.VSIXManifest(ns, name, version, vsixtest.Asset{Type: vsixtest.AssetReadme, Path: "extension/README.md"})
	// Like vsce, the vsixmanifest repeats the dependencies and pack
	// members as properties (upstream's metadata is made from them).
	for field, id := range map[string]string{"extensionDependencies": "ExtensionDependencies", "extensionPack": "ExtensionPack"} {
		if ids, ok := m[field].([]string); ok {
			vm = strings.Replace(vm, "    </Properties>", fmt.Sprintf("      <Property Id=\"Microsoft.VisualStudio.Code.%s\" Value=%q />\n    </Properties>", id, strings.Join(ids, ",")), 1)
		}
	}
	files["extension.vsixmanifest"] = vm
	return files
}

// writePkg writes a package built from pkgFiles (files may add or replace
// files) into the test's temp dir and returns its path.
func writePkg(t *testing.T, ns, name, version string, extra map[string]any, files map[string]string) string {
	t.Helper()
	all := pkgFiles(ns, name, version, extra)
	for k, v := range files {
		if v == "" {
			delete(all, k)
		} else {
			all[k] = v
		}
	}
	p := filepath.Join(t.TempDir(), fmt.Sprintf("%s.%s-%s.vsix", ns, name, version))
	if err := vsixtest.Write(p, vsixtest.Minimal(all)); err != nil {
		t.Fatal(err)
	}
	return p
}

// installOK installs the plain package ok.x@1.0.0 (writePkg without
// changes) into opts.Dir, failing the test on an error.
func installOK(t *testing.T, opts install.Options) {
	t.Helper()
	if _, err := install.FromFile(t.Context(), writePkg(t, "ok", "x", "1.0.0", nil, nil), opts); err != nil {
		t.Fatal(err)
	}
}

// installedJSON returns the installed.json of the extensions directory
// dir.
func installedJSON(t testing.TB, dir string) []byte {
	t.Helper()
	return filetest.ReadFile(t, filepath.Join(dir, install.IndexFile))
}

// mustPkg builds the bytes of a valid package ok.x@1.0.0.
func mustPkg(tb testing.TB) []byte {
	tb.Helper()
	b, err := vsixtest.Bytes(vsixtest.Minimal(pkgFiles("ok", "x", "1.0.0", nil)))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
