package host

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/airvsx/airvsx/testkit/filetest"
)

// TestActivationEvents: each activation event activates its extension at
// the right moment, and only then.
func TestActivationEvents(t *testing.T) {
	root := t.TempDir()
	ws := workspace(t, root, "src", "deep")
	filetest.WriteFile(t, filepath.Join(ws, "src", "deep", "main.go"), nil)
	act := "exports.activate = () => {};\n"
	exts := []Extension{
		ext(t, root, "a.star", act, "*"),
		ext(t, root, "a.contains", act, "workspaceContains:**/*.go"),
		ext(t, root, "a.notcontains", act, "workspaceContains:**/*.rs"),
		ext(t, root, "a.startup", act, "onStartupFinished"),
		ext(t, root, "a.lang", act, "onLanguage:go"),
		ext(t, root, "a.lazy", command("a.lazy", "return 'lazy';")),
	}
	h := launch(t, root, Options{Workspace: []string{ws}}, exts...)
	got := h.Startup().Activated
	slices.Sort(got)
	if want := []string{"a.contains", "a.star"}; !slices.Equal(got, want) {
		t.Errorf("activated at start %q, want %q", got, want)
	}
	// onStartupFinished follows, outside any request.
	deadline := time.After(5 * time.Second)
	for started := false; !started; {
		select {
		case ev := <-h.Events():
			started = ev.Kind == KindActivated && ev.Extension == "a.startup"
		case <-deadline:
			t.Fatal("a.startup never activated")
		}
	}
	activated, _, err := h.OpenDocument(t.Context(), "go", filepath.Join(ws, "src", "deep", "main.go"))
	if err != nil || !slices.Equal(activated, []string{"a.lang"}) {
		t.Errorf("OpenDocument(go) = %q, %v; want [a.lang]", activated, err)
	}
	if activated, _, _ := h.OpenDocument(t.Context(), "go", ""); len(activated) != 0 {
		t.Errorf("second OpenDocument activated %q", activated)
	}
	r := run(t, h, "a.lazy.cmd")
	if !hasText(r.Events, KindActivated, "a.lazy") || string(r.Value) != `"lazy"` {
		t.Errorf("a.lazy: %s %+v", r.Value, r.Events)
	}
	// a.notcontains never activated: its command-less activate never ran.
	if hasText(r.Events, KindActivated, "a.notcontains") {
		t.Error("a.notcontains activated")
	}
}

// TestDependenciesFirst: a dependency activates before its dependent,
// whose getExtension sees its exports; a missing dependency fails the
// activation, naming both.
func TestDependenciesFirst(t *testing.T) {
	root := t.TempDir()
	lib := ext(t, root, "a.lib", "exports.activate = () => ({ twice: (n) => 2 * n });\n", "onStartupFinished")
	app := ext(t, root, "a.app", command("a.app", "const l = vscode.extensions.getExtension('A.Lib'); return [l.isActive, l.exports.twice(21)];"))
	app.Dependencies = []string{"a.lib"}
	orphan := ext(t, root, "a.orphan", command("a.orphan", "return 1;"))
	orphan.Dependencies = []string{"a.missing"}
	h := launch(t, root, Options{}, app, lib, orphan)
	r := run(t, h, "a.app.cmd")
	if string(r.Value) != "[true,42]" {
		t.Errorf("value %s, want [true,42]", r.Value)
	}
	_, err := h.ExecuteCommand(t.Context(), "a.orphan.cmd")
	if err == nil || !errorsIs(err, ErrActivation) || !contains(err.Error(), "a.orphan: dependency a.missing is not installed") {
		t.Errorf("err %v; want the missing dependency named", err)
	}
}

// TestAPI exercises the vscode module surface extensions use most.
func TestAPI(t *testing.T) {
	root := t.TempDir()
	ws := workspace(t, root)
	js := `
const checks = {
  config: () => [vscode.workspace.getConfiguration('demo').get('greeting'), vscode.workspace.getConfiguration().get('demo.n'), vscode.workspace.getConfiguration('demo').get('absent', 'dflt'), vscode.workspace.getConfiguration('nested').get('a.b')],
  folders: () => vscode.workspace.workspaceFolders.map((f) => [f.name, f.uri.fsPath, f.index]),
  uri: () => [vscode.Uri.file('/a/b').toString(), vscode.Uri.joinPath(vscode.Uri.file('/a'), 'b', 'c.txt').fsPath, vscode.Uri.parse('https://x.org/p?q=1#f').authority, vscode.Uri.parse('file:///tmp/x').fsPath],
  emitter: () => { const e = new vscode.EventEmitter(); const seen = []; const d = e.event((v) => seen.push(v)); e.fire(1); d.dispose(); e.fire(2); return seen; },
  context: () => [ctxt.extensionPath === __dirname, ctxt.globalStorageUri.fsPath.endsWith('/a.api/global'), ctxt.storageUri.fsPath.endsWith('/a.api/workspace'), ctxt.logUri.fsPath.endsWith('/a.api/log'), ctxt.extensionMode, ctxt.asAbsolutePath('x') === __dirname + '/x'],
  state: async () => { await ctxt.globalState.update('k', 7); await ctxt.workspaceState.update('w', 'v'); return [ctxt.globalState.get('k'), ctxt.workspaceState.get('w'), ctxt.globalState.get('none', 0)]; },
  env: () => [vscode.env.appName, vscode.env.language, vscode.env.uiKind, JSON.parse(process.env.VSCODE_NLS_CONFIG).locale],
  l10n: () => [vscode.l10n.t('Hello {0} and {1}', 'a', 'b'), vscode.l10n.t({ message: 'n={n}', args: { n: 3 } })],
  commands: async () => (await vscode.commands.getCommands()).includes('a.api.cmd'),
  nested: () => vscode.commands.executeCommand('a.api.cmd', 'l10n'),
  ui: () => { const o = vscode.window.createOutputChannel('Out'); o.appendLine('line'); const s = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left); s.text = 'sb'; s.show(); vscode.window.showWarningMessage('warn'); console.log('to console %d', 5); return true; },
};
let ctxt;
exports.activate = (ctx) => { ctxt = ctx; vscode.commands.registerCommand('a.api.cmd', (name) => checks[name]()); };
`
	e := ext(t, root, "a.api", js)
	settings := json.RawMessage(`{"demo.greeting": "hey", "demo.n": 3, "nested": {"a": {"b": true}}}`)
	h := launch(t, root, Options{Workspace: []string{ws}, Settings: settings}, e)
	for _, tc := range []struct{ name, want string }{
		{"config", `["hey",3,"dflt",true]`},
		{"folders", `[["ws","` + ws + `",0]]`},
		{"uri", `["file:///a/b","/a/b/c.txt","x.org","/tmp/x"]`},
		{"emitter", `[1]`},
		{"context", `[true,true,true,true,1,true]`},
		{"state", `[7,"v",0]`},
		{"env", `["airvsx","en",1,"en"]`},
		{"l10n", `["Hello a and b","n=3"]`},
		{"commands", `true`},
		{"nested", `["Hello a and b","n=3"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := run(t, h, "a.api.cmd", tc.name); string(r.Value) != tc.want {
				t.Errorf("%s = %s, want %s", tc.name, r.Value, tc.want)
			}
		})
	}
	t.Run("ui events", func(t *testing.T) {
		r := run(t, h, "a.api.cmd", "ui")
		for _, want := range []Event{
			{Kind: KindOutput, Extension: "a.api", Name: "Out", Text: "line"},
			{Kind: KindStatusBar, Extension: "a.api", Name: "a.api", Text: "sb"},
			{Kind: KindMessage, Extension: "a.api", Level: "warning", Text: "warn"},
			{Kind: KindConsole, Extension: "a.api", Level: "log", Text: "to console 5"},
		} {
			if !slices.ContainsFunc(r.Events, func(e Event) bool { e.Time = time.Time{}; return e.Equal(want) }) {
				t.Errorf("no event %+v among %+v", want, r.Events)
			}
		}
	})
}

// TestStateLasts: globalState and workspaceState outlive the host, in its
// storage directory.
func TestStateLasts(t *testing.T) {
	root := t.TempDir()
	e := ext(t, root, "a.state", "let c;\nexports.activate = (ctx) => { c = ctx; vscode.commands.registerCommand('a.state.cmd', async (v) => { const old = [c.globalState.get('g'), c.workspaceState.get('w')]; if (v) { await c.globalState.update('g', v); await c.workspaceState.update('w', v + 1); } return old; }); };\n")
	for i, want := range []string{"[null,null]", "[1,2]"} {
		h := launch(t, root, Options{}, e)
		arg := any(nil)
		if i == 0 {
			arg = 1
		}
		if r := run(t, h, "a.state.cmd", arg); string(r.Value) != want {
			t.Errorf("launch %d: %s, want %s", i, r.Value, want)
		}
		h.Close(t.Context())
	}
}
