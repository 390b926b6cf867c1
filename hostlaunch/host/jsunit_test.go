package host

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/testkit/citool"
)

// TestJSUnit runs the host's JavaScript unit tests, js/test/*.test.js,
// with node --test against the host's scripts as the launcher writes them
// (AIRVSX_HOST_JS names their directory).
func TestJSUnit(t *testing.T) {
	node := citool.Need(t, "node")
	td := hostScripts(t)
	files, err := filepath.Glob(filepath.Join("js", "test", "*.test.js"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no js/test/*.test.js (%v)", err)
	}
	tmp := t.TempDir()
	cmd := exec.Command(node, append([]string{"--test", "--test-reporter=spec"}, files...)...)
	cmd.Env = append(os.Environ(), "AIRVSX_HOST_JS="+td.Path, "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test js/test: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// TestHostScriptsExcludeTests: the launcher writes the host's scripts and
// its two JSON files, never its unit tests.
func TestHostScriptsExcludeTests(t *testing.T) {
	td := hostScripts(t)
	written, err := os.ReadDir(td.Path)
	if err != nil {
		t.Fatal(err)
	}
	names := make(map[string]bool)
	for _, e := range written {
		names[e.Name()] = true
		if strings.Contains(e.Name(), ".test.") || e.IsDir() {
			t.Errorf("the launcher writes %s; want only the host's scripts", e.Name())
		}
	}
	for _, want := range []string{"host.js", "gate.js", "policy.js", "esm.mjs", apiFile, modulesFile} {
		if !names[want] {
			t.Errorf("the launcher does not write %s", want)
		}
	}
	err = fs.WalkDir(js, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(p, ".test.") {
			t.Errorf("%s is embedded in the host", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
