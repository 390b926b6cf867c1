package vsix

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzScanAPI checks that the vscode API scanner never panics and only
// reports what the source holds: at most MaxAPIMembers names, each "Top"
// or "Top.member" of ASCII identifiers of at most maxAPIName bytes that
// occur in the source.
func FuzzScanAPI(f *testing.F) {
	f.Add([]byte(`const vscode = require('vscode'); vscode.window.showInformationMessage('hi');`))
	f.Add([]byte("var import_vscode = __toESM(require(\"vscode\")); `${import_vscode.env.x + `${vscode.debug}`}`"))
	f.Add([]byte(`const { window, commands: c } = require('vscode'); import { Range } from "vscode"; x = /'/g`))
	f.Add([]byte(`vscode__WEBPACK_IMPORTED_MODULE_0__.languages?.registerHoverProvider /* vscode.tasks */ // vscode.scm`))
	f.Add([]byte(`const vsc = __importStar(require("vscode")); vsc.lm.tools; import * as api from 'vscode'; api.chat`))
	f.Add([]byte("`" + strings.Repeat("${`", 100)))
	f.Add([]byte(strings.Repeat("}", 50) + "vscode.a.b" + strings.Repeat("{", 50)))
	f.Add([]byte("require(\"vscode\").\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		var s apiScanner
		s.scan(src)
		if len(s.names) > MaxAPIMembers {
			t.Fatalf("scan(%q) kept %d names; the cap is %d", src, len(s.names), MaxAPIMembers)
		}
		for n := range s.names {
			top, member, ok := strings.Cut(n, ".")
			if !isIdent(top) || ok && !isIdent(member) {
				t.Fatalf("scan(%q) reported %q: not Top or Top.member", src, n)
			}
			if !bytes.Contains(src, []byte(top)) || !bytes.Contains(src, []byte(member)) {
				t.Fatalf("scan(%q) reported %q, which the source does not hold", src, n)
			}
		}
	})
}
