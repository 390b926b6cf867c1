package host

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/testkit/citool"
)

// TestTypes runs testdata/js/types.test.js under node against js/types.js:
// the vscode API's classes and enums behave as VS Code's do.
func TestTypes(t *testing.T) {
	node := citool.Need(t, "node")
	types, err := filepath.Abs(filepath.Join("js", "types.js"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, filepath.Join("testdata", "js", "types.test.js"), types).CombinedOutput()
	if err != nil {
		t.Fatalf("node types.test.js: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
