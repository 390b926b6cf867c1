package exttest

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/testkit/filetest"
)

// TestWrite: the folder holds the two files, package.json naming the
// extension and its main.
func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ext", "a.b")
	Write(t, dir, "a.b", "exports.activate = () => {};\n")
	files := filetest.Files(t, dir)
	if len(files) != 2 || files["extension.js"] != "exports.activate = () => {};\n" {
		t.Fatalf("files %q", files)
	}
	var pkg map[string]string
	if err := json.Unmarshal([]byte(files["package.json"]), &pkg); err != nil || pkg["name"] != "a.b" || pkg["main"] != "./extension.js" || len(pkg) != 2 {
		t.Errorf("package.json %s (%v)", files["package.json"], err)
	}
}
