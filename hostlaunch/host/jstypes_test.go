package host

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/testkit/citool"
)

// jsTools is the npm project that pins the type checker (typescript and
// @types/node) beside the fixtures' vsce; npm ci installs it.
var jsTools = filepath.Join("..", "..", "testdata", "vsce")

// TestJSTypes type-checks the host's scripts, as the launcher writes them
// (beside vscode-api.json and node-modules.json, which they require), with
// tsc --noEmit and checkJs (js/tsconfig.json, js/globals.d.ts): a type error
// fails the test. The pinned typescript is installed (npm ci in
// testdata/vsce) when it is not yet.
func TestJSTypes(t *testing.T) {
	node := citool.Need(t, "node")
	tsc := installedTSC(t)
	td := hostScripts(t)
	scripts, err := filepath.Glob(filepath.Join(td.Path, "*.*js"))
	if err != nil || len(scripts) < 10 {
		t.Fatalf("the launcher wrote %d scripts (%v)", len(scripts), err)
	}
	for _, s := range scripts {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte("// @ts-check\n")) {
			t.Errorf("%s does not start with // @ts-check", filepath.Base(s))
		}
	}

	// One run of tsc checks the host's scripts and, beside them, bad.js,
	// which has a type error: the configuration must find that one and
	// no other.
	bad := filepath.Join(t.TempDir(), "bad.js")
	src := "// @ts-check\n'use strict';\nconst { Position } = require(" + jsString(filepath.Join(td.Path, "position.js")) + ");\nnew Position(0, 0).column.toFixed();\n"
	if err := os.WriteFile(bad, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "tsconfig.json")
	writeTSConfig(t, cfg, append([]string{bad}, scripts...))
	cmd := exec.Command(node, tsc, "-p", cfg, "--pretty", "false")
	cmd.Dir = td.Path
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
	var hostErrs []string
	badFound := false
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.Contains(line, "bad.js(") && strings.Contains(line, "'column'"):
			badFound = true
		case strings.Contains(line, "bad.js("):
		case strings.Contains(line, "error TS") || strings.HasPrefix(line, "  "):
			hostErrs = append(hostErrs, line)
		}
	}
	if len(hostErrs) > 0 {
		t.Errorf("tsc --noEmit found type errors in the host's scripts:\n%s", strings.Join(hostErrs, "\n"))
	}
	if !badFound || err == nil {
		t.Errorf("tsc missed the type error in bad.js (exit %v): the configuration checks nothing\n%s", err, out)
	}
}

// installedTSC returns the path of the pinned tsc, installing the tools
// (npm ci) first when they are not.
func installedTSC(t *testing.T) string {
	t.Helper()
	tsc, err := filepath.Abs(filepath.Join(jsTools, "node_modules", "typescript", "bin", "tsc"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tsc); err == nil {
		return tsc
	}
	npm := citool.Need(t, "npm")
	cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = jsTools
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s (installs the pinned typescript): %v\n%s", jsTools, err, out)
	}
	if _, err := os.Stat(tsc); err != nil {
		t.Fatalf("npm ci did not install typescript: %v", err)
	}
	return tsc
}

// writeTSConfig writes a tsconfig.json at path that extends the host's
// (js/tsconfig.json) to check files and js/globals.d.ts, with the pinned
// @types.
func writeTSConfig(t *testing.T, path string, files []string) {
	t.Helper()
	base, err := filepath.Abs(filepath.Join("js", "tsconfig.json"))
	if err != nil {
		t.Fatal(err)
	}
	decls, err := filepath.Abs(filepath.Join("js", "globals.d.ts"))
	if err != nil {
		t.Fatal(err)
	}
	types, err := filepath.Abs(filepath.Join(jsTools, "node_modules", "@types"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{
		"extends":         base,
		"compilerOptions": map[string]any{"typeRoots": []string{types}},
		"include":         []string{},
		"files":           append([]string{decls}, files...),
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
