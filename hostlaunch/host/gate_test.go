package host

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/testkit/filetest"
)

// TestDenied: what an extension without capabilities may not do fails
// with an error naming the capability it would need, and the launcher
// hears of it.
func TestDenied(t *testing.T) {
	root := t.TempDir()
	e := ext(t, root, "a.gate", command("a.gate", "return eval(a[0]);"))
	granted := ext(t, root, "a.spawner", command("a.spawner", "return (await require('util').promisify(require('child_process').execFile)('echo', ['42'])).stdout.trim();"))
	granted.Capabilities, granted.Programs = []string{"spawn"}, []string{"/bin/echo"}
	own := filepath.Join(e.Path, "data.txt")
	filetest.WriteFile(t, own, []byte("mine"))
	if err := os.Symlink("/etc/passwd", filepath.Join(e.Path, "passwd-link")); err != nil {
		t.Fatal(err)
	}
	imports := ext(t, root, "a.imports", "exports.activate = () => { vscode.commands.registerCommand('a.imports.cmd', (what) => import(what)); };\n")
	h := launch(t, root, Options{}, e, imports)
	// Granted spawn, so in a host of its own.
	hGranted := launch(t, root, Options{}, granted)
	for _, tc := range []struct {
		name, js, capability string
	}{
		{"child_process", "require('child_process').execSync('id')", "spawn"},
		{"node:child_process", "require('node:child_process').spawn('id')", "spawn"},
		{"worker_threads", "new (require('worker_threads').Worker)('x.js')", "spawn"},
		{"net", "require('net').connect(80, '127.0.0.1')", "network"},
		{"https", "require('https').get('https://example.com/')", "network"},
		{"dgram", "require('dgram').createSocket('udp4')", "network"},
		{"fetch", "fetch('http://127.0.0.1:1/')", "network"},
		{"fs read /etc/passwd", "require('fs').readFileSync('/etc/passwd', 'utf8')", "fsWide"},
		{"fs.promises read /etc/passwd", "require('fs').promises.readFile('/etc/passwd', 'utf8')", "fsWide"},
		{"fs write own folder", "require('fs').writeFileSync(__dirname + '/x', 'x')", "fsWide"},
		{"fs dot-dot escape", "require('fs').readFileSync(__dirname + '/../../storage/x/../../../../../../etc/passwd')", "fsWide"},
		{"fs symlink escape", "require('fs').readFileSync(__dirname + '/passwd-link', 'utf8')", "fsWide"},
		{"fs symlink escape, promises", "require('fs').promises.readFile(__dirname + '/passwd-link', 'utf8')", "fsWide"},
		{"require outside", "require('/etc/passwd')", "fsWide"},
		{"vm", "require('vm')", ""},
		{"module.parent.require", "module.parent.require('child_process').execFile('id')", "spawn"},
		{"Module._load", "module.constructor._load('net', null, false).connect(80)", "network"},
		{"process.getBuiltinModule", "process.getBuiltinModule('child_process').spawn('id')", "spawn"},
		{"process.getBuiltinModule fs", "process.getBuiltinModule('fs').readFileSync('/etc/passwd')", "fsWide"},
		{"fs.copyFileSync out", "require('fs').copyFileSync(__dirname + '/data.txt', '/tmp/airvsx-gate-copy')", "fsWide"},
		{"process.mainModule", "process.mainModule === undefined && require('http').createServer()", "network"},
		{"process.binding", "process.binding('fs')", ""},
		{"process.exit", "process.exit(3)", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := h.ExecuteCommand(t.Context(), "a.gate.cmd", tc.js)
			var ce *CommandError
			if !errors.As(err, &ce) || ce.Kind != Threw {
				t.Fatalf("err %v; want the command to throw", err)
			}
			want := "no capability allows it"
			if tc.capability != "" {
				want = `needs the "` + tc.capability + `" capability`
			}
			if !strings.Contains(err.Error(), "extension a.gate may not") || !strings.Contains(err.Error(), want) {
				t.Errorf("err %q; want it to name a.gate and %q", err, want)
			}
			if !hasText(r.Events, KindDenied, "a.gate may not") {
				t.Errorf("no denied event among %+v", r.Events)
			}
		})
	}
	for _, tc := range []struct{ specifier, want string }{
		{"child_process", `import('child_process'): it needs the "spawn" capability`},
		{"node:net", `import('node:net'): it needs the "network" capability`},
		{"fs", `import('fs'): it needs the "fsWide" capability`},
		{"/etc/passwd", "outside its own folder"},
		{"vm", "import('vm'): no capability allows it"},
	} {
		t.Run("import "+tc.specifier, func(t *testing.T) {
			_, err := h.ExecuteCommand(t.Context(), "a.imports.cmd", tc.specifier)
			if err == nil || !strings.Contains(err.Error(), "extension a.imports may not") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v; want %q", err, tc.want)
			}
		})
	}
	t.Run("import path", func(t *testing.T) {
		if r := run(t, h, "a.imports.cmd", "node:path"); string(r.Value) != `"[object Module]"` {
			t.Errorf("import('node:path') = %s", r.Value)
		}
	})
	for _, tc := range []struct{ name, js, want string }{
		{"own file", "require('fs').readFileSync(__dirname + '/data.txt', 'utf8')", `"mine"`},
		{"own file, promises", "require('fs/promises').readFile(__dirname + '/data.txt', 'utf8')", `"mine"`},
		{"safe built-ins", "require('path').join('a', require('util').format('%d', 1))", `"a/1"`},
		{"copy own file into storage", "(() => { const p = require('path').join(__dirname, '../../storage/a.gate/global/copy'); require('fs').copyFileSync(__dirname + '/data.txt', p); return require('fs').readFileSync(p, 'utf8'); })()", `"mine"`},
		// Denied at use, not at load: the gated modules load, their values
		// and pure functions work.
		{"require net, isIP", "require('net').isIP('10.0.0.1')", "4"},
		{"require http, STATUS_CODES", "require('http').STATUS_CODES[404] + ' ' + require('http').METHODS.includes('GET')", `"Not Found true"`},
		{"require child_process", "typeof require('child_process').spawn", `"function"`},
		{"require the rest", "['https', 'http2', 'tls', 'dns', 'dgram', 'worker_threads', 'cluster'].map((m) => typeof require(m)).join()", `"object,object,object,object,object,object,object"`},
		{"dns constants", "require('dns').NOTFOUND", `"ENOTFOUND"`},
		{"getBuiltinModule of a safe one", "process.getBuiltinModule('path').join('a', 'b')", `"a/b"`},
		{"storage write", "(() => { const p = require('path').join(__dirname, '../../storage/a.gate/global/f'); require('fs').writeFileSync(p, 'ok'); return require('fs').readFileSync(p, 'utf8'); })()", `"ok"`},
	} {
		t.Run("allowed "+tc.name, func(t *testing.T) {
			if r := run(t, h, "a.gate.cmd", tc.js); string(r.Value) != tc.want {
				t.Errorf("value %s, want %s", r.Value, tc.want)
			}
		})
	}
	t.Run("granted spawn, brokered", func(t *testing.T) {
		if r := run(t, hGranted, "a.spawner.cmd"); string(r.Value) != `"42"` {
			t.Errorf("value %s, want \"42\"", r.Value)
		}
	})
	if h.Err() != nil {
		t.Fatalf("host ended: %v", h.Err())
	}
}

// TestEnvironmentBuiltFromNothing: the launcher's environment, and
// NODE_OPTIONS and NODE_PATH above all, never reach the host.
func TestEnvironmentBuiltFromNothing(t *testing.T) {
	t.Setenv("NODE_OPTIONS", "--require=/nonexistent/evil.js")
	t.Setenv("NODE_PATH", "/nonexistent")
	t.Setenv("AIRVSX_SECRET", "s3cret")
	root := t.TempDir()
	e := ext(t, root, "a.env", command("a.env", "return Object.keys(process.env).sort().join(' ');"))
	h := launch(t, root, Options{}, e)
	got := string(run(t, h, "a.env.cmd").Value)
	want := `"HOME LANG PATH TMPDIR VSCODE_NLS_CONFIG"`
	if got != want {
		t.Errorf("environment %s; want %s", got, want)
	}
}
