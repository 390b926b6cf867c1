package vsix

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func scanNames(src string) []string {
	var s apiScanner
	s.scan([]byte(src))
	return slices.Sorted(maps.Keys(s.names))
}

func TestScanAPI(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"plain", `const vscode = require('vscode'); vscode.window.showInformationMessage('hi'); new vscode.Uri();`, []string{"Uri", "window.showInformationMessage"}},
		{"tsc", `const vscode_1 = require("vscode");
(0, vscode_1.window).createWebviewPanel; vscode_1.debug.startDebugging(undefined, 'x');`, []string{"debug.startDebugging", "window"}},
		{"esbuild", `var import_vscode = __toESM(require("vscode"));
import_vscode.window.showErrorMessage("x"); import_vscode2.tests?.createTestController();`, []string{"tests.createTestController", "window.showErrorMessage"}},
		{"webpack", `/* harmony import */ var vscode__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(1);
vscode__WEBPACK_IMPORTED_MODULE_0__.languages.registerHoverProvider()`, []string{"languages.registerHoverProvider"}},
		{"require member", `require("vscode").window.createTreeView('v'); require ( 'vscode' ) . env`, []string{"env", "window.createTreeView"}},
		{"destructuring", `const { window, commands: c, Uri = 1 } = require('vscode'); window.foo`, []string{"Uri", "commands", "window"}},
		{"import list", `import { workspace, Range as R } from "vscode";`, []string{"Range", "workspace"}},
		{"bound alias", `const vsc = __importStar(require("vscode")); vsc.scm.createSourceControl(); import * as api from 'vscode'; api.lm.tools`, []string{"lm.tools", "scm.createSourceControl"}},
		{"short alias not followed", `const e = require("vscode"); e.debug.x`, nil},
		{"comments", "// vscode.debug.startDebugging\n/* vscode.tasks.executeTask */ vscode.env", []string{"env"}},
		{"strings", `"vscode.debug.a"; 'vscode.tasks.b\' vscode.scm.c'; vscode.l10n.t`, []string{"l10n.t"}},
		{"template", "`vscode.debug.a ${vscode.window.x + `${vscode.env.y}`} vscode.tasks.b` + vscode.Uri", []string{"Uri", "env.y", "window.x"}},
		{"regex", `x = /vscode.debug.a['"]/g; if (/"/.test(s)) vscode.window.y; a / vscode.env.z / 2`, []string{"env.z", "window.y"}},
		{"member of something else", `foo.vscode.debug.x; myvscode.tasks.y`, nil},
		{"unterminated", "vscode.window.a; 'abc", []string{"window.a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, scanNames(tc.src)); diff != "" {
				t.Errorf("scan(%q) mismatch (-want +got):\n%s", tc.src, diff)
			}
		})
	}
}

func TestScanAPILimit(t *testing.T) {
	var b strings.Builder
	for i := range MaxAPIMembers + 10 {
		b.WriteString("vscode.n")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString(";\n")
		b.WriteString("vscode.window.m")
		for n := i; n > 0; n /= 26 {
			b.WriteByte(byte('a' + n%26))
		}
		b.WriteString(";\n")
	}
	var s apiScanner
	s.scan([]byte(b.String()))
	if len(s.names) != MaxAPIMembers || !s.full {
		t.Errorf("scan of %d names kept %d (full %v); want %d, full", 2*(MaxAPIMembers+10), len(s.names), s.full, MaxAPIMembers)
	}
}
