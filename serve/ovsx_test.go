package serve_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/testkit/citool"
)

// ovsxBin is the ovsx CLI pinned in testdata/ovsx, installed there
// (npm ci) first when it is not, as hostlaunch/host installs its pinned
// typescript: the README's test command needs nothing installed by hand.
func ovsxBin(t *testing.T) string {
	t.Helper()
	citool.Need(t, "node")
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "testdata", "ovsx")
	bin := filepath.Join(dir, "node_modules", ".bin", "ovsx")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	npm := citool.Need(t, "npm")
	cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s (installs the pinned ovsx): %v\n%s", dir, err, out)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("npm ci in %s did not install ovsx: %v", dir, err)
	}
	return bin
}

// TestOVSX: the real ovsx CLI downloads from a loopback serve by ID (the
// latest), by version (an older one, through allVersions), by a range,
// and by platform, byte for byte what the registry holds.
func TestOVSX(t *testing.T) {
	bin := ovsxBin(t)
	f := multiFixture(t)
	cat := catalog(t, f.dir)
	find := func(version string, p index.Platform) *index.Entry {
		e := cat.Find(index.ID{Namespace: "syn", Name: "multi"}, version, p)
		if e == nil {
			t.Fatalf("no syn.multi@%s@%s in the catalog", version, p)
		}
		return e
	}
	for _, g := range []struct {
		name string
		args []string
		want *index.Entry
	}{
		{"by ID", []string{"syn.multi"}, find("2.0.0", index.Universal)},
		{"by version", []string{"syn.multi", "--versionRange", "1.0.0"}, find("1.0.0", index.Universal)},
		{"by range", []string{"syn.multi", "--versionRange", "^1.0.0"}, find("1.1.0", index.Universal)},
		{"by platform", []string{"syn.multi", "--target", "linux-x64"}, find("2.0.0", index.LinuxX64)},
		{"by platform and version", []string{"syn.multi", "--target", "universal", "--versionRange", "1.1.0"}, find("1.1.0", index.Universal)},
	} {
		t.Run(g.name, func(t *testing.T) {
			out := t.TempDir() + "/"
			cmd := exec.CommandContext(t.Context(), bin, append([]string{"--registryUrl", f.ts.URL, "get"}, append(g.args, "-o", out)...)...)
			b, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("ovsx get %v: %v\n%s", g.args, err, b)
			}
			ents, err := os.ReadDir(out)
			if err != nil || len(ents) != 1 {
				t.Fatalf("ovsx get %v wrote %v (%v)\n%s", g.args, ents, err, b)
			}
			if ents[0].Name() != vsixFileName(g.want) {
				t.Errorf("ovsx get %v wrote %s; want %s", g.args, ents[0].Name(), vsixFileName(g.want))
			}
			got, err := os.ReadFile(filepath.Join(out, ents[0].Name()))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, vsixBytes(t, f.dir, g.want)) {
				t.Fatalf("ovsx get %v: %d bytes, not the registry's %d of %s", g.args, len(got), g.want.VsixSize, g.want)
			}
		})
	}
}

// vsixFileName is Open VSX's name of e's package.
func vsixFileName(e *index.Entry) string {
	s := e.ID.String() + "-" + e.Version
	if e.Platform != index.Universal {
		s += "@" + string(e.Platform)
	}
	return s + ".vsix"
}
