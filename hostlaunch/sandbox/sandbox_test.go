package sandbox

import (
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/hostlaunch/host"
	"github.com/airvsx/airvsx/testkit/exttest"
)

// newSandbox is a Sandbox for tests; a machine without a layer fails the
// test, naming the layer (this machine kind has them all).
func newSandbox(t testing.TB) *Sandbox {
	t.Helper()
	sb, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

// testExt writes an extension whose command a.b.cmd runs body (with
// vscode and the arguments a in scope) and returns it.
func testExt(t testing.TB, root, id, body string) host.Extension {
	t.Helper()
	dir := filepath.Join(root, "ext", id)
	exttest.Write(t, dir, id, "const vscode = require('vscode');\nexports.activate = () => { vscode.commands.registerCommand('"+id+".cmd', async (...a) => {\n"+body+"\n}); };\n")
	return host.Extension{ID: id, Path: dir, Main: "extension.js", ActivationEvents: []string{"onCommand:" + id + ".cmd"}}
}

// launchIn starts a host for exts through the sandbox, with a workspace
// of its own, closed at the end of the test.
func launchIn(t testing.TB, sb *Sandbox, opts host.Options, exts ...host.Extension) (*host.Host, string) {
	t.Helper()
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	opts.Extensions = exts
	opts.Workspace = []string{ws}
	opts.StorageDir = filepath.Join(root, "storage")
	opts.Command = sb.Command
	opts.Spawn = sb.Spawn
	h, err := host.Launch(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(t.Context()) })
	return h, ws
}

// TestHostRunsSandboxed: a host starts in the sandbox, runs a command
// that uses the workspace, and is denied what is outside it: /etc/passwd
// does not exist in its private root, and its own /proc entry, which the
// root holds, Landlock refuses; it is a child of its own PID
// namespace's init, the helper.
func TestHostRunsSandboxed(t *testing.T) {
	sb := newSandbox(t)
	root := t.TempDir()
	e := testExt(t, root, "a.b", `
const fs = require('fs'), path = require('path');
const ws = vscode.workspace.workspaceFolders[0].uri.fsPath;
fs.writeFileSync(path.join(ws, 'out.txt'), 'written');
const code = (f) => { try { fs.readFileSync(f); return 'read'; } catch (e) { return e.code; } };
return { out: fs.readFileSync(path.join(ws, 'out.txt'), 'utf8'), passwd: code('/etc/passwd'), proc: code('/proc/self/status'),
  pid: process.pid, ppid: process.ppid, uid: process.getuid(), node: process.version };`)
	for _, tc := range []struct {
		name         string
		belted       bool
		passwd, proc string // who refuses /etc/passwd and /proc/self/status
	}{
		{"kernel alone", false, "ENOENT", "EACCES"},                                        // the private root; Landlock
		{"seat belt and permission flags", true, "ERR_AIRVSX_DENIED", "ERR_AIRVSX_DENIED"}, // the gate, first
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, ws := launchIn(t, sb, host.Options{InsecureNoSeatBelt: !tc.belted}, e)
			r, err := h.ExecuteCommand(t.Context(), "a.b.cmd")
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Out, Passwd, Proc, Node string
				UID, PID, PPID          int
			}
			if err := json.Unmarshal(r.Value, &got); err != nil {
				t.Fatal(err)
			}
			if got.Out != "written" || got.Passwd != tc.passwd || got.Proc != tc.proc || got.UID != insideID || got.PID <= 1 || got.PPID != 1 {
				t.Errorf("got %+v; want the workspace written, /etc/passwd %s, /proc/self/status %s, uid %d, the child of process 1", got, tc.passwd, tc.proc, insideID)
			}
			if b, err := os.ReadFile(filepath.Join(ws, "out.txt")); err != nil || string(b) != "written" {
				t.Errorf("workspace file from outside: %q, %v", b, err)
			}
		})
	}
}

// TestHelperRefusesToRunUnconfined: a helper whose layer fails does not
// exec anything (status 125, the reason on stderr).
func TestHelperRefusesToRunUnconfined(t *testing.T) {
	hs := helperSpec{Host: &host.Spec{HostDir: "/nonexistent-airvsx", Storage: []string{t.TempDir()}}, Exec: []string{"/bin/true"}, LandlockABI: 7}
	cmd, err := helperCommand(hs, nil, "/")
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !(errorsAs(err, &ee) && ee.ExitCode() == helperExit) || !strings.Contains(string(out), "airvsx sandbox: lstat /nonexistent-airvsx: no such file") {
		t.Fatalf("helper: %v, %q; want exit %d naming the missing directory", err, out, helperExit)
	}
}

func errorsAs(err error, target any) bool { return err != nil && errors.As(err, target) }

// TestMissingLayer: a missing layer stops New, naming it; with degraded
// isolation allowed the host runs without that layer, and says so.
func TestMissingLayer(t *testing.T) {
	full := newSandbox(t).Layers()
	noLandlock := full
	noLandlock.LandlockABI, noLandlock.LandlockErr = 0, errors.New("not available: function not implemented")
	_, err := newWith(Options{}, noLandlock)
	if !errors.Is(err, ErrMissingLayer) || !strings.Contains(err.Error(), "Landlock (not available: function not implemented)") {
		t.Fatalf("New without Landlock: %v", err)
	}
	var logged strings.Builder
	sb, err := newWith(Options{AllowDegraded: true, Logger: slog.New(slog.NewTextHandler(&logged, nil))}, noLandlock)
	if err != nil {
		t.Fatal(err)
	}
	if !sb.Degraded() || !strings.Contains(logged.String(), "DEGRADED isolation") || !strings.Contains(logged.String(), "Landlock") {
		t.Errorf("degraded %v, log %q", sb.Degraded(), logged.String())
	}
	// Without Landlock, what the private root holds but Landlock does not
	// grant (the PID namespace's /proc) is readable: proof the layer really
	// was skipped, and that Landlock is what guards it.
	root := t.TempDir()
	e := testExt(t, root, "a.b", "try { return require('fs').readFileSync('/proc/self/status', 'utf8').split('\\n')[0]; } catch (e) { return e.code; }")
	for _, tc := range []struct {
		sb   *Sandbox
		want string
	}{{sb, `"Name:\tnode"`}, {newSandbox(t), `"EACCES"`}} {
		h, _ := launchIn(t, tc.sb, host.Options{InsecureNoSeatBelt: true}, e)
		r, err := h.ExecuteCommand(t.Context(), "a.b.cmd")
		if err != nil {
			t.Fatalf("degraded=%v: %v", tc.sb.Degraded(), err)
		}
		if string(r.Value) != tc.want {
			t.Errorf("degraded=%v: %s; want %s", tc.sb.Degraded(), r.Value, tc.want)
		}
	}
}

// TestWorkspaceHoldingRuntime: a workspace that holds node (or the
// libraries) is refused with a reason, not mounted noexec under node.
func TestWorkspaceHoldingRuntime(t *testing.T) {
	sb := newSandbox(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	node, _ = filepath.EvalSymlinks(node)
	root := t.TempDir()
	e := testExt(t, root, "a.b", "return 1;")
	_, err = host.Launch(t.Context(), host.Options{Extensions: []host.Extension{e}, Workspace: []string{filepath.Dir(node)}, StorageDir: filepath.Join(root, "s"), Command: sb.Command})
	if err == nil || !strings.Contains(err.Error(), "which the sandbox must execute or load, but it mounts "+filepath.Dir(node)+" noexec") {
		t.Fatalf("launch with the workspace %s: %v", filepath.Dir(node), err)
	}
}
