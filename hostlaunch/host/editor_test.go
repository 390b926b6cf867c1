package host

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/testkit/citool"
)

// TestEditorModel runs testdata/js/editor.test.js under node against the
// host's scripts as the launcher writes them: documents and their edits,
// selectors and providers, diagnostics, quick input, tree views and the
// editor's own commands behave as VS Code's do.
func TestEditorModel(t *testing.T) {
	node := citool.Need(t, "node")
	td := hostScripts(t)
	script, err := filepath.Abs(filepath.Join("testdata", "js", "editor.test.js"))
	if err != nil {
		t.Fatal(err)
	}
	// The tests' own temporary files go to a directory of their own,
	// which they must leave as they found it.
	tmp := t.TempDir()
	cmd := exec.Command(node, script, td.Path)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node editor.test.js: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	if left, err := os.ReadDir(tmp); err != nil || len(left) > 0 {
		t.Errorf("editor.test.js left %d files in its temporary directory (%v); want none", len(left), err)
	}
}
