package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/hostlaunch/host"
	"github.com/airvsx/airvsx/testkit/citool"
	"github.com/airvsx/airvsx/testkit/collect"
	"github.com/airvsx/airvsx/testkit/filetest"
)

// TestSpawnSandboxed: a program the broker starts runs under its own
// helper with the host's limits: it may read and write the workspace, and
// nothing else (outside paths do not exist in its private root); it may
// execute nothing but itself (another program the root holds, C
// library, Landlock refuses), and start no process.
func TestSpawnSandboxed(t *testing.T) {
	sb := newSandbox(t)
	libc, _ := filepath.Glob("/usr/lib/*/libc.so.6")
	if len(libc) == 0 {
		t.Fatal("no /usr/lib/*/libc.so.6 on this machine")
	}
	ws := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside")
	filetest.WriteFile(t, outside, []byte("secret"))
	for _, tc := range []struct {
		name     string
		prog     string
		args     []string
		ok       bool
		want     string // in the output
		wantFile string // written into the workspace
	}{
		{"echo", "/bin/echo", []string{"hello"}, true, "hello\n", ""},
		{"write the workspace", "/bin/sh", []string{"-c", "echo x > out.txt && read l < out.txt && echo $l"}, true, "x\n", "out.txt"},
		{"read outside", "/bin/cat", []string{outside}, false, "No such file or directory", ""},
		{"read /etc/passwd", "/bin/cat", []string{"/etc/passwd"}, false, "No such file or directory", ""},
		{"write outside", "/bin/sh", []string{"-c", "echo x > " + outside}, false, "nonexistent", ""},
		{"execute a program not there", "/bin/sh", []string{"-c", "exec /bin/true"}, false, "not found", ""},
		// exec, not fork: Landlock refuses the program (execute is
		// granted on the spawned program only).
		{"execute another program", "/bin/sh", []string{"-c", "exec " + libc[0]}, false, "Permission denied", ""},
		// seccomp refuses the fork before the program is looked at.
		{"start a process", "/bin/sh", []string{"-c", "/bin/echo child; echo parent"}, false, "Cannot fork", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd, err := sb.Spawn(t.Context(), host.SpawnSpec{Program: tc.prog, Args: tc.args, Env: []string{"PATH=/usr/bin:/bin", "LANG=C"}, Dir: ws, Workspace: []string{ws}})
			if err != nil {
				t.Fatal(err)
			}
			out, err := cmd.CombinedOutput()
			if (err == nil) != tc.ok || !strings.Contains(string(out), tc.want) {
				t.Fatalf("%s %q: %v, %q; want ok=%v with %q", tc.prog, tc.args, err, out, tc.ok, tc.want)
			}
			if tc.wantFile != "" {
				if _, err := os.Stat(filepath.Join(ws, tc.wantFile)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	if b, _ := os.ReadFile(outside); string(b) != "secret" {
		t.Errorf("the file outside now holds %q", b)
	}
}

// TestSpawnGit: git, started as the broker starts it (its extension's
// storage as HOME, the workspace as its working directory), does its
// real job in the sandbox: it reads the system's configuration
// (/etc/gitconfig, when there is one) and its templates, makes a
// repository, commits and logs. Without its configuration only
// --version worked.
func TestSpawnGit(t *testing.T) {
	sb := newSandbox(t)
	git := citool.Need(t, "git")
	root := t.TempDir()
	ws, storage := filepath.Join(root, "ws"), filepath.Join(root, "storage")
	for _, d := range []string{ws, filepath.Join(storage, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	filetest.WriteFile(t, filepath.Join(ws, "a.txt"), []byte("hello\n"))
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + storage, "TMPDIR=" + filepath.Join(storage, "tmp"), "LANG=C.UTF-8"}
	run := func(args ...string) string {
		t.Helper()
		cmd, err := sb.Spawn(t.Context(), host.SpawnSpec{Program: git, Args: args, Env: env, Dir: ws, Workspace: []string{ws}, Storage: storage})
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("init", "-q", "-b", "main")
	run("add", "a.txt")
	run("-c", "user.name=airvsx", "-c", "user.email=airvsx@example.invalid", "commit", "-q", "-m", "first")
	if out := run("log", "--format=%s by %an"); out != "first by airvsx\n" {
		t.Errorf("git log: %q", out)
	}
	if out := run("status", "--porcelain"); out != "" {
		t.Errorf("git status: %q", out)
	}
	if b, err := os.ReadFile("/etc/gitconfig"); err == nil && strings.Contains(string(b), "=") {
		// The system configuration is read (git fails when it exists but
		// cannot be read), and named as a source.
		if out := run("config", "--system", "--list", "--show-origin"); !strings.Contains(out, "file:/etc/gitconfig") {
			t.Errorf("git config --system: %q", out)
		}
	}
}

// TestReadOnlyInsideWorkspace: a protected folder (the extensions
// directory, with installed.json) that a writable folder would show is
// mounted read-only over it, so even a workspace that holds it (which run
// and host.Launch refuse) gives no write to it; a protected folder nothing
// shows does not exist in the private root at all.
func TestReadOnlyInsideWorkspace(t *testing.T) {
	sb := newSandbox(t)
	ws := t.TempDir()
	exts := filepath.Join(ws, "extensions")
	installed := filepath.Join(exts, "installed.json")
	if err := os.Mkdir(exts, 0o755); err != nil {
		t.Fatal(err)
	}
	filetest.WriteFile(t, installed, []byte(`{"grants":"the policy's"}`))
	elsewhere := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, script, want string
	}{
		{"write the protected folder", "echo forged > " + installed, "Read-only file system"},
		{"make a file in it", "echo x > " + filepath.Join(exts, "new"), "Read-only file system"},
		{"the workspace beside it", "echo x > " + filepath.Join(ws, "fine") + " && echo wrote", "wrote"},
		{"a protected folder nothing shows", "cd " + elsewhere, "can't cd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd, err := sb.Spawn(t.Context(), host.SpawnSpec{Program: "/bin/sh", Args: []string{"-c", tc.script}, Env: []string{"PATH=/usr/bin:/bin", "LANG=C"},
				Dir: ws, Workspace: []string{ws}, ReadOnly: []string{exts, elsewhere}})
			if err != nil {
				t.Fatal(err)
			}
			out, _ := cmd.CombinedOutput()
			if !strings.Contains(string(out), tc.want) {
				t.Errorf("%s: %q; want %q", tc.script, out, tc.want)
			}
		})
	}
	if b, _ := os.ReadFile(installed); string(b) != `{"grants":"the policy's"}` {
		t.Errorf("installed.json now holds %q", b)
	}
}

// TestSpawnLimits: a brokered program gets the host's limits: its memory
// (RLIMIT_DATA, and the launcher's watchdog on its resident memory, which
// kills it), processor time from its deadline (RLIMIT_CPU), and no more
// than 4 running at once (host's TestSpawnConcurrency).
func TestSpawnLimits(t *testing.T) {
	sb := newSandbox(t)
	hog := hostprobe(t) // "hog": 1 GiB of shared memory, which RLIMIT_DATA does not count
	root := t.TempDir()
	e := testExt(t, root, "a.limits", `
const run = (f, args, timeout) => new Promise((res) => require('child_process').execFile(f, args, { timeout }, (err, stdout) => res(err ? { error: err.message, signal: err.signal } : { stdout })));
return { limits: await run('/bin/sh', ['-c', 'ulimit -t; ulimit -d'], 10000), hog: await run(a[0], ['hog'], 30000) };`)
	e.Capabilities, e.Programs = []string{"spawn"}, []string{"/bin/sh", hog}
	var audits collect.List[host.Audit]
	h, _ := launchIn(t, sb, host.Options{MemoryMB: 256, Audit: audits.Add}, e)
	r, err := h.ExecuteCommand(t.Context(), "a.limits.cmd", hog)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Limits struct{ Stdout string }
		Hog    struct{ Error, Signal string }
	}
	if err := json.Unmarshal(r.Value, &got); err != nil {
		t.Fatal(err)
	}
	if want := "11\n262144\n"; got.Limits.Stdout != want {
		t.Errorf("ulimit -t, -d: %q; want %q (CPU: the 10 s deadline and one more; data: 256 MiB in KiB)", got.Limits.Stdout, want)
	}
	if got.Hog.Signal != "SIGKILL" {
		t.Errorf("the hog: %+v; want it killed (SIGKILL)", got.Hog)
	}
	found := false
	for _, a := range audits.All() {
		found = found || strings.Contains(a.Details.Reason, "killed: resident memory") && strings.Contains(a.Details.Reason, "over the limit of 256 MiB")
	}
	if !found {
		t.Errorf("no audit record says the hog was killed for its memory: %+v", audits.All())
	}
}

// TestStreamedSpawnSandboxed: a program started with child_process.spawn
// runs in its own sandbox and talks with its extension over stdio for as
// long as it runs (the streaming broker): cat echoes each line as it is
// written, sees the end of its stdin and exits; a second one is killed.
func TestStreamedSpawnSandboxed(t *testing.T) {
	sb := newSandbox(t)
	root := t.TempDir()
	e := testExt(t, root, "a.stream", `
const cp = require('child_process');
const talk = () => new Promise((resolve) => {
  const c = cp.spawn('/bin/cat');
  const got = [];
  let wait = null;
  c.stdout.on('data', (d) => { got.push(String(d)); if (wait) wait(); });
  const echoed = (line) => new Promise((res) => { wait = res; c.stdin.write(line); });
  c.on('error', (err) => resolve({ error: err.message }));
  c.on('close', (code, signal) => resolve({ got, code, signal, pid: c.pid }));
  c.on('spawn', async () => { await echoed('one\n'); await echoed('two\n'); c.stdin.end(); });
});
const killed = () => new Promise((resolve) => {
  const c = cp.spawn('/bin/cat');
  c.on('spawn', () => c.stdin.write('x\n'));
  c.stdout.once('data', () => process.kill(c.pid, 'SIGTERM'));
  c.on('close', (code, signal) => resolve({ code, signal }));
});
return { talk: await talk(), killed: await killed() };`)
	e.Capabilities, e.Programs = []string{"spawn"}, []string{"/bin/cat"}
	h, _ := launchIn(t, sb, host.Options{}, e)
	r, err := h.ExecuteCommand(t.Context(), "a.stream.cmd")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Talk struct {
			Got    []string
			Code   *int
			Signal *string
			PID    int
			Error  string
		}
		Killed struct {
			Code   *int
			Signal *string
		}
	}
	if err := json.Unmarshal(r.Value, &got); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Talk.Got, "") != "one\ntwo\n" || len(got.Talk.Got) != 2 || got.Talk.Code == nil || *got.Talk.Code != 0 || got.Talk.PID < 1<<22 {
		t.Errorf("cat over stdio: %s; want one and two echoed one at a time, exit 0, a virtual pid", r.Value)
	}
	if got.Killed.Signal == nil || *got.Killed.Signal != "SIGTERM" {
		t.Errorf("cat killed: %s; want SIGTERM", r.Value)
	}
}
