package host

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/hostlaunch/vscodeapi"
	"github.com/airvsx/airvsx/testkit/citool"
)

// TestSurfaceCurrent fails when vscodeapi's surface.json is not what the
// host's vscode module implements now.
func TestSurfaceCurrent(t *testing.T) {
	citool.Need(t, "node")
	live, err := APISurface(t.Context(), vscodeapi.APIJSON())
	if err != nil {
		t.Fatal(err)
	}
	var committed []string
	for _, n := range vscodeapi.Names() {
		if vscodeapi.Supported(n) {
			committed = append(committed, n)
		}
	}
	if diff := cmp.Diff(committed, live.Implemented); diff != "" {
		t.Errorf("hostlaunch/vscodeapi/%s is stale (-committed +live):\n%s\nregenerate: go generate ./hostlaunch/vscodeapi", vscodeapi.SurfaceFile, diff)
	}
}

// guardScript checks, in node, the guard over a module like the host's:
// what throws, and that the interop helpers of tsc, esbuild and webpack,
// spreading, util.inspect and await see the module as it is.
const guardScript = `
const assert = require('node:assert');
const util = require('node:util');
const { guard } = require('./unsupported.js');
const names = require('./vscode-api.json');
class Uri { static file(p) { return new Uri(p); } constructor(p) { this.p = p; } }
const raw = { version: '1.140.0', Uri, ViewColumn: Object.freeze({ One: 1 }), window: { showInformationMessage() { return 1; }, activeTextEditor: undefined }, _context: 7 };
Object.defineProperty(raw, 'workspace', { value: Object.freeze({ name: 'w' }), enumerable: true });
const vscode = guard(raw, names);
const throws = (f, msg) => assert.throws(f, (e) => e.code === 'ERR_AIRVSX_UNSUPPORTED' && e.message === msg);
throws(() => vscode.window.createWebviewPanel, 'vscode.window.createWebviewPanel is not supported by the airvsx host');
throws(() => vscode.debug, 'vscode.debug is not supported by the airvsx host');
throws(() => vscode.Range, 'vscode.Range is not supported by the airvsx host');
throws(() => { class T extends vscode.TreeItem {} }, 'vscode.TreeItem is not supported by the airvsx host');
assert.strictEqual(vscode.window.showInformationMessage(), 1);
assert.strictEqual(vscode.window.activeTextEditor, undefined);
assert.strictEqual(vscode.window, vscode.window);
assert.strictEqual(vscode.Uri, Uri);
assert.ok(vscode.Uri.file('/x') instanceof Uri);
assert.strictEqual(vscode.workspace.name, 'w');
assert.strictEqual(vscode._context, 7);
for (const k of ['then', '__esModule', 'default', 'toJSON', 'inspect', 'constructor', 'nope', Symbol.toStringTag, util.inspect.custom, Symbol.iterator]) vscode[k];
assert.strictEqual(vscode.then, undefined);
assert.strictEqual(vscode.window.then, undefined);
assert.deepStrictEqual(Object.keys(vscode), Object.keys(raw));
assert.deepStrictEqual(Object.keys({ ...vscode }), Object.keys(raw));
assert.ok('window' in vscode && !('debug' in vscode));
assert.strictEqual(Object.getOwnPropertyDescriptor(vscode, 'debug'), undefined);
util.inspect(vscode); JSON.stringify(vscode.window); String(Object.prototype.toString.call(vscode));
// tsc: import * as vscode from 'vscode' (esModuleInterop).
var __createBinding = (Object.create ? (function(o, m, k, k2) { if (k2 === undefined) k2 = k; var desc = Object.getOwnPropertyDescriptor(m, k); if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) { desc = { enumerable: true, get: function() { return m[k]; } }; } Object.defineProperty(o, k2, desc); }) : 0);
var __setModuleDefault = (Object.create ? (function(o, v) { Object.defineProperty(o, "default", { enumerable: true, value: v }); }) : 0);
var __importStar = function (mod) { if (mod && mod.__esModule) return mod; var result = {}; if (mod != null) for (var k in mod) if (k !== "default" && Object.prototype.hasOwnProperty.call(mod, k)) __createBinding(result, mod, k); __setModuleDefault(result, mod); return result; };
const t = __importStar(vscode);
assert.strictEqual(t.window.showInformationMessage(), 1);
assert.strictEqual(t.debug, undefined); // absent from the copy, as from the module
// esbuild: __toESM(require('vscode')).
var __defProp = Object.defineProperty, __getOwnPropNames = Object.getOwnPropertyNames, __getOwnPropDesc = Object.getOwnPropertyDescriptor, __hasOwnProp = Object.prototype.hasOwnProperty, __getProtoOf = Object.getPrototypeOf, __create = Object.create;
var __copyProps = (to, from, except, desc) => { if (from && typeof from === "object" || typeof from === "function") { for (let key of __getOwnPropNames(from)) if (!__hasOwnProp.call(to, key) && key !== except) __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable }); } return to; };
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target, mod));
const e = __toESM(vscode);
assert.strictEqual(e.window.showInformationMessage(), 1);
assert.strictEqual(e.default, vscode);
throws(() => e.default.window.createWebviewPanel, 'vscode.window.createWebviewPanel is not supported by the airvsx host');
// webpack: __webpack_require__.n and a namespace object.
const getter = vscode && vscode.__esModule ? () => vscode['default'] : () => vscode;
assert.strictEqual(getter(), vscode);
// A module awaited (an async import's value) is not a thenable.
(async () => { assert.strictEqual(await vscode, vscode); process.stdout.write('ok'); })().catch((e) => { console.error(e); process.exit(1); });
`

func TestGuardInterop(t *testing.T) {
	node := citool.Need(t, "node")
	td := hostScripts(t)
	script := filepath.Join(td.Path, "guard_test.js")
	if err := os.WriteFile(script, []byte(guardScript), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), node, script).CombinedOutput()
	if err != nil || string(out) != "ok" {
		t.Fatalf("node guard_test.js: %v\n%s", err, out)
	}
}

// TestUnsupportedMember: an extension that calls a member the host does
// not implement fails with an error naming it, and the host goes on.
func TestUnsupportedMember(t *testing.T) {
	root := t.TempDir()
	e := ext(t, root, "a.webview", command("a.webview", "return typeof vscode.window.createWebviewPanel('v', 't', 1, {});"))
	h := launch(t, root, Options{}, e)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := h.ExecuteCommand(ctx, "a.webview.cmd")
	var ce *CommandError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "vscode.window.createWebviewPanel is not supported by the airvsx host") {
		t.Fatalf("ExecuteCommand = %v; want a CommandError saying vscode.window.createWebviewPanel is not supported", err)
	}
	if h.Err() != nil {
		t.Fatalf("host ended: %v", h.Err())
	}
}

// TestFixtureUnsupportedAPI runs the webview-panel fixture (the source
// of testdata/vsix/unsupported/airvsx-test.webview-panel-1.0.0.vsix): its
// command fails, naming the member the host lacks.
func TestFixtureUnsupportedAPI(t *testing.T) {
	dir, err := filepath.Abs("../../testdata/extensions/webview-panel")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	e := Extension{ID: "airvsx-test.webview-panel", Path: dir, Main: "./extension.js", ActivationEvents: []string{"onCommand:webviewPanel.open"}}
	h := launch(t, root, Options{}, e)
	_, err = h.ExecuteCommand(t.Context(), "webviewPanel.open")
	var ce *CommandError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "vscode.window.createWebviewPanel is not supported by the airvsx host") {
		t.Fatalf("ExecuteCommand(webviewPanel.open) = %v; want a CommandError saying vscode.window.createWebviewPanel is not supported by the airvsx host", err)
	}
}
