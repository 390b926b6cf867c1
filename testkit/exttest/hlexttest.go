// Package exttest writes extension folders for the tests of the host
// launcher (hostlaunch/...): package.json and extension.js, as an
// installed extension has them.
package exttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/testkit/filetest"
)

// Write makes the folder dir holding package.json, which names the
// extension name and its main ./extension.js, and extension.js with the
// source js, failing the test on an error.
func Write(tb testing.TB, dir, name, js string) {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	pkg, err := json.Marshal(map[string]string{"name": name, "main": "./extension.js"})
	if err != nil {
		tb.Fatal(err)
	}
	filetest.WriteFile(tb, filepath.Join(dir, "package.json"), pkg)
	filetest.WriteFile(tb, filepath.Join(dir, "extension.js"), []byte(js))
}
