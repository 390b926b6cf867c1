package host

import (
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/airvsx/airvsx/hostlaunch/vscodeapi"
	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/internal/tempdir"
)

// js holds the extension host's JavaScript; host.js is its entry point.
// Only the files directly in js/ are the host's: js/test holds its unit
// tests (TestJSUnit), which the launcher does not write.
//
//go:embed js/*.js js/*.mjs
var js embed.FS

// apiFile is the file, beside the scripts, that the guard over each
// extension's vscode module (js/unsupported.js) reads: the names of the
// VS Code API, vscodeapi's api.json.
const apiFile = "vscode-api.json"

// modulesFile is the file, beside the scripts, that the seat belt
// (js/policy.js) reads the capability each gated Node built-in module
// needs from: index's nodemodules.json, the map static detection
// (index/vsix.Detect) uses too.
const modulesFile = "node-modules.json"

// writeHost writes the host's scripts, vscode-api.json and
// node-modules.json into a new
// private directory under parent (the system's temporary directory when
// ""), read-only, and returns the directory (which tempdir removes if
// this process is killed before it does).
func writeHost(parent string, log *slog.Logger) (*tempdir.Dir, error) {
	return writeHostWith(parent, vscodeapi.APIJSON(), log)
}

// writeHostWith is writeHost with apiJSON as vscode-api.json.
func writeHostWith(parent string, apiJSON []byte, log *slog.Logger) (*tempdir.Dir, error) {
	td, err := tempdir.New(parent, "airvsx-host-", log)
	if err != nil {
		return nil, fmt.Errorf("host scripts: %w", err)
	}
	dir := td.Path
	err = fs.WalkDir(js, "js", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := js.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, d.Name()), b, 0o400)
	})
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, apiFile), apiJSON, 0o400)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, modulesFile), index.NodeModulesJSON(), 0o400)
	}
	if err != nil {
		td.Remove()
		return nil, fmt.Errorf("host scripts: %w", err)
	}
	return td, nil
}
