package host

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/airvsx/airvsx/testkit/collect"
)

// auditEvents returns the KindAudit events of r.
func auditEvents(r *Result) []Event {
	var out []Event
	for _, e := range r.Events {
		if e.Kind == KindAudit {
			out = append(out, e)
		}
	}
	return out
}

// jsonValue decodes a command's result.
func jsonValue(t *testing.T, r *Result, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Value, v); err != nil {
		t.Fatalf("result %s: %v", r.Value, err)
	}
}

// TestSpawnBroker: a spawn-granted extension runs the programs its
// policy lists, through the broker, and nothing else.
func TestSpawnBroker(t *testing.T) {
	root := t.TempDir()
	ws := workspace(t, root)
	js := `const cp = require('child_process');
const util = require('util');
const ops = {
  execFile: async (f, args, opts) => { const r = await util.promisify(cp.execFile)(f, args, opts || {}); return r; },
  execFileCb: (f, args) => new Promise((resolve) => cp.execFile(f, args, (err, stdout, stderr) => resolve({ err: err && { message: err.message, code: err.code, signal: err.signal }, stdout, stderr }))),
  spawn: (f, args) => new Promise((resolve) => {
    const c = cp.spawn(f, args);
    let out = '';
    c.stdout.on('data', (d) => { out += d; });
    c.on('error', (e) => resolve({ error: e.message, code: e.code }));
    c.on('close', (code, signal) => resolve({ stdout: out, code, signal, pid: c.pid >= 1 << 22 }));
  }),
  spawnInput: (f, args, input) => new Promise((resolve) => {
    const c = cp.spawn(f, args);
    let out = '';
    c.stdout.on('data', (d) => { out += d; });
    c.on('close', (code) => resolve({ stdout: out, code }));
    c.stdin.end(input);
  }),
  big: (n) => new Promise((resolve) => cp.execFile('/bin/cat', [], { input: 'x'.repeat(n) }, (err, stdout) => resolve({ error: err && err.message, code: err && err.code, stdout: String(stdout.length) }))),
  imp: (m) => import(m),
  kill: () => new Promise((resolve) => {
    const c = cp.spawn('/bin/sleep', ['60']);
    c.on('close', (code, signal) => resolve({ code, signal, killed: c.killed }));
    setTimeout(() => c.kill(), 300);
  }),
  builtin: () => process.getBuiltinModule('child_process').execFileSync('/bin/echo', ['x']),
  sync: () => cp.execFileSync('/bin/echo', ['x']),
  spawnSync: () => cp.spawnSync('/bin/echo', ['x']),
  fork: () => new Promise((resolve) => {
    const c = cp.fork('x.js');
    c.on('error', (err) => resolve({ thrown: err.message, code: err.code }));
    c.on('exit', (code) => resolve({ code }));
  }),
};
`
	e := ext(t, root, "a.runner", js+command("a.runner", "try { return await ops[a[0]](...a.slice(1)); } catch (err) { return { thrown: err.message, code: err.code }; }"))
	e.Capabilities = []string{"spawn"}
	e.Programs = []string{"/bin/echo", "/bin/sleep", "/bin/cat"}
	no := ext(t, root, "a.nospawn", command("a.nospawn", "const cp = require('child_process'); return cp.spawn('/bin/echo');"))
	var got collect.List[Audit] // Options.Audit's records
	h := launch(t, root, Options{Workspace: []string{ws}, Audit: got.Add}, e)
	// Granted nothing, so in a host of its own.
	hNo := launch(t, root, Options{Workspace: []string{ws}}, no)

	type out struct {
		Stdout, Stderr string
		Code           any // the exit code, or an error's code
		Signal         *string
		PID            bool
		Thrown, Error  string
		Err            *struct {
			Message string
			Code    any
		}
	}
	call := func(t *testing.T, args ...any) (out, *Result) {
		t.Helper()
		r := run(t, h, "a.runner.cmd", args...)
		var o out
		jsonValue(t, r, &o)
		return o, r
	}
	t.Run("execFile", func(t *testing.T) {
		o, r := call(t, "execFile", "/bin/echo", []string{"hello"})
		if o.Stdout != "hello\n" || o.Thrown != "" {
			t.Errorf("execFile /bin/echo hello = %+v; want stdout \"hello\\n\"", o)
		}
		ev := auditEvents(r)
		if len(ev) != 1 || ev[0].Level != "allowed" || ev[0].Extension != "a.runner" || ev[0].Audit == nil ||
			ev[0].Audit.Details.Program != "/bin/echo" || *ev[0].Audit.Details.ExitCode != 0 || ev[0].Audit.Details.Bytes != 6 || ev[0].Audit.Details.Dir != ws {
			t.Errorf("audit events %+v; want one allowed spawn of /bin/echo, exit 0, 6 bytes, in %s", ev, ws)
		}
	})
	t.Run("execFile bare name, callback", func(t *testing.T) {
		o, _ := call(t, "execFileCb", "echo", []string{"hello"})
		if o.Stdout != "hello\n" || o.Err != nil {
			t.Errorf("execFile echo hello = %+v", o)
		}
	})
	t.Run("spawn", func(t *testing.T) {
		o, _ := call(t, "spawn", "/bin/echo", []string{"hello"})
		if o.Stdout != "hello\n" || o.Code != float64(0) || !o.PID {
			t.Errorf("spawn /bin/echo hello = %+v; want stdout \"hello\\n\", code 0, a virtual pid", o)
		}
	})
	t.Run("spawn with stdin", func(t *testing.T) {
		o, _ := call(t, "spawnInput", "/bin/cat", []string{}, "fed in")
		if o.Stdout != "fed in" || o.Code != float64(0) {
			t.Errorf("spawn cat with stdin = %+v", o)
		}
	})
	for _, tc := range []struct{ op, file, want string }{
		{"execFile", "/bin/sh", "may not run /bin/sh: it is not among the programs its policy lists, [/bin/echo /bin/sleep /bin/cat]; add it to programs"},
		{"execFile", "/usr/bin/env", "may not run /usr/bin/env: it is not among the programs its policy lists, [/bin/echo /bin/sleep /bin/cat]"},
		{"execFile", "env", "may not run /usr/local/bin/env"},
		{"spawn", "/bin/sh", "may not run /bin/sh"},
	} {
		t.Run("denied "+tc.op+" "+tc.file, func(t *testing.T) {
			o, r := call(t, tc.op, tc.file, []string{"-c", "id"})
			msg := o.Thrown + o.Error
			if tc.file == "env" && strings.Contains(msg, "/usr/bin/env") {
				tc.want = "may not run /usr/bin/env"
			}
			if !strings.Contains(msg, tc.want) || o.PID || o.Code != "ERR_AIRVSX_DENIED" {
				t.Errorf("%s %s = %+v; want a refusal saying %q", tc.op, tc.file, o, tc.want)
			}
			ev := auditEvents(r)
			if len(ev) != 1 || ev[0].Level != "denied" || ev[0].Audit.Allowed || !strings.Contains(ev[0].Text, "may not run") {
				t.Errorf("audit events %+v; want one denial", ev)
			}
		})
	}
	t.Run("output capped", func(t *testing.T) {
		o, r := call(t, "big", 3<<19)
		if o.Code != "ERR_CHILD_PROCESS_STDIO_MAXBUFFER" || o.Stdout != strconv.Itoa(1<<20) {
			t.Errorf("cat of 1.5 MiB = %+v; want 1 MiB kept and a maxBuffer error", o)
		}
		if ev := auditEvents(r); len(ev) != 1 || ev[0].Audit.Details.Bytes != 3<<19 {
			t.Errorf("audit events %+v; want the bytes written counted in full", ev)
		}
	})
	t.Run("import child_process", func(t *testing.T) {
		o, _ := call(t, "imp", "node:child_process")
		if !strings.Contains(o.Thrown, "spawning is brokered") || !strings.Contains(o.Thrown, "use require('child_process')") {
			t.Errorf("import('node:child_process') = %+v; want a refusal pointing at require", o)
		}
	})
	t.Run("kill", func(t *testing.T) {
		start := time.Now()
		o, _ := call(t, "kill")
		if o.Signal == nil || *o.Signal != "SIGTERM" || o.Code != nil || time.Since(start) > 10*time.Second {
			t.Errorf("spawn sleep 60, then kill() = %+v after %v; want it ended by SIGTERM", o, time.Since(start))
		}
	})
	t.Run("non-zero exit", func(t *testing.T) {
		o, _ := call(t, "execFileCb", "/bin/sleep", []string{"not-a-number"})
		if o.Err == nil || o.Err.Code != float64(1) {
			t.Errorf("execFile sleep x = %+v; want an error with code 1", o)
		}
	})
	t.Run("getBuiltinModule gets the brokered module", func(t *testing.T) {
		o, _ := call(t, "builtin")
		if !strings.Contains(o.Thrown, "may not call child_process.execFileSync: brokered spawn is asynchronous") {
			t.Errorf("process.getBuiltinModule('child_process').execFileSync = %+v; want the broker's refusal", o)
		}
	})
	t.Run("fork runs node, which the policy must list", func(t *testing.T) {
		// fork starts node through the broker (its IPC channel over the
		// program's stdio): node is not among this extension's programs.
		o, _ := call(t, "fork")
		if !strings.Contains(o.Thrown, "may not run") || !strings.Contains(o.Thrown, "node") || o.Code != "ERR_AIRVSX_DENIED" {
			t.Errorf("fork = %+v; want the broker's refusal of node", o)
		}
	})
	for _, op := range []string{"sync", "spawnSync"} {
		t.Run("refused "+op, func(t *testing.T) {
			o, r := call(t, op)
			name := map[string]string{"sync": "execFileSync", "spawnSync": "spawnSync", "fork": "fork"}[op]
			if !strings.Contains(o.Thrown, "may not call child_process."+name+": brokered spawn is asynchronous") || o.Code != "ERR_AIRVSX_DENIED" {
				t.Errorf("%s = %+v; want a refusal naming %s and saying spawn is asynchronous", op, o, name)
			}
			if !hasText(r.Events, KindDenied, name) {
				t.Errorf("no denied event among %+v", r.Events)
			}
		})
	}
	t.Run("no spawn capability", func(t *testing.T) {
		// require('child_process') loads; spawn is what is denied.
		r, err := hNo.ExecuteCommand(t.Context(), "a.nospawn.cmd")
		if err == nil || !strings.Contains(err.Error(), `may not call child_process.spawn("/bin/echo"): it needs the "spawn" capability`) || !strings.Contains(err.Error(), "a.nospawn") {
			t.Errorf("err %v; want a refusal naming spawn and the program", err)
		}
		// The denied event says what was refused: the operation and the
		// program it named.
		var events []Event
		if r != nil {
			events = r.Events
		}
		var d DeniedData
		for _, e := range events {
			if e.Kind == KindDenied && e.Capability == "spawn" {
				json.Unmarshal(e.Data, &d)
			}
		}
		if d != (DeniedData{Operation: "call child_process.spawn", Target: "/bin/echo"}) {
			t.Errorf("denied data %+v among %+v; want the operation and the program", d, events)
		}
	})
	if n := len(got.All()); n < 8 {
		t.Errorf("Options.Audit got %d records; want one per spawn and refusal", n)
	}
}

// TestSpawnDeadline: at its deadline the broker kills the program's whole
// process group, a background child included.
func TestSpawnDeadline(t *testing.T) {
	root := t.TempDir()
	pidFile := filepath.Join(root, "storage", "a.sleeper", "pid")
	e := ext(t, root, "a.sleeper", command("a.sleeper", `return await new Promise((resolve) => require('child_process').execFile('/bin/sh', ['-c', 'sleep 60 & echo $! > pid; sleep 60'], { timeout: 1000 }, (err) => resolve(err && { killed: err.killed, signal: err.signal, message: err.message })));`))
	e.Capabilities, e.Programs = []string{"spawn"}, []string{"/bin/sh"}
	h := launch(t, root, Options{}, e)
	start := time.Now()
	r := run(t, h, "a.sleeper.cmd")
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("the command took %v; the deadline was 1s", d)
	}
	var o struct {
		Killed  bool
		Signal  string
		Message string
	}
	jsonValue(t, r, &o)
	if !o.Killed || o.Signal != "SIGKILL" || !strings.Contains(o.Message, "killed at its deadline") {
		t.Errorf("result %+v; want killed by SIGKILL at its deadline", o)
	}
	ev := auditEvents(r)
	if len(ev) != 1 || !ev[0].Audit.Details.TimedOut {
		t.Errorf("audit events %+v; want one spawn that timed out", ev)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the background sleep's pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the background sleep %d outlived the deadline", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// alive reports whether pid runs (a zombie does not count).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// TestSpawnCwd: the working directory is inside the workspace or the
// extension's storage, else refused.
func TestSpawnCwd(t *testing.T) {
	root := t.TempDir()
	ws := workspace(t, root, "sub")
	e := ext(t, root, "a.pwd", command("a.pwd", `try { return (await require('util').promisify(require('child_process').execFile)('pwd', [], { cwd: a[0] })).stdout.trim(); } catch (err) { return 'refused: ' + err.message + ' ' + err.code; }`))
	e.Capabilities, e.Programs = []string{"spawn"}, []string{"/bin/pwd"}
	h := launch(t, root, Options{Workspace: []string{ws}}, e)
	for _, tc := range []struct{ cwd, want string }{
		{"", ws},
		{filepath.Join(ws, "sub"), filepath.Join(ws, "sub")},
		{"/etc", "refused: spawn: working directory /etc is outside the workspace folders and the extension's storage: refused ERR_AIRVSX_DENIED"},
		{filepath.Join(ws, ".."), "refused: spawn: working directory " + root + " is outside"},
	} {
		var got string
		jsonValue(t, run(t, h, "a.pwd.cmd", tc.cwd), &got)
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("pwd in %q = %q; want %q", tc.cwd, got, tc.want)
		}
	}
}

// fakeFetcher answers every request with 200 and records it; a URL path
// "/redirect-out" gives the error a broker gives for a refused redirect.
type fakeFetcher struct {
	mu   sync.Mutex
	seen []FetchRequest
}

func (f *fakeFetcher) Fetch(_ context.Context, r FetchRequest) (FetchResponse, error) {
	f.mu.Lock()
	f.seen = append(f.seen, r)
	f.mu.Unlock()
	if r.URL.Path == "/redirect-out" {
		return FetchResponse{}, &HostNotAllowedError{URL: "http://evil.example/", Allowed: r.AllowedHosts, Redirect: true}
	}
	return FetchResponse{Status: 201, StatusText: "Created", Header: map[string][]string{"X-Echo": {r.Method + " " + string(r.Body)}, "Content-Type": {"text/plain"}},
		Body: []byte("hello from " + r.URL.Host), URL: r.URL.String()}, nil
}

// TestFetchBroker: fetch of a network-granted extension reaches the
// Fetcher only for its allowed hosts, and comes back as a Response.
// (hostlaunch/netbroker's tests run the real broker end to end.)
func TestFetchBroker(t *testing.T) {
	root := t.TempDir()
	js := `async (u, init) => { try { const r = await fetch(u, init); return { status: r.status, statusText: r.statusText, body: await r.text(), echo: r.headers.get('x-echo'), type: r.headers.get('content-type'), ok: r.ok, isResponse: r instanceof Response }; } catch (err) { return { error: err.message, code: typeof err.code === 'string' ? err.code : err.name }; } }`
	e := ext(t, root, "a.fetcher", "const f = "+js+";\n"+command("a.fetcher", "return f(a[0], a[1] === 'abort' ? { signal: AbortSignal.abort() } : a[1]);"))
	e.Capabilities, e.AllowedHosts = []string{"network"}, []string{"127.0.0.1:8080", "*.example.com"}
	http := ext(t, root, "a.http", command("a.http", "const m = a[1] ? process.getBuiltinModule(a[0]) : require(a[0]); return m[{ http: 'request', 'node:https': 'get', net: 'connect', tls: 'connect', dns: 'lookup' }[a[0]]]('example.com');"))
	http.Capabilities, http.AllowedHosts = e.Capabilities, e.AllowedHosts
	no := ext(t, root, "a.nonet", command("a.nonet", "return await fetch('http://127.0.0.1:8080/');"))
	f := &fakeFetcher{}
	var got collect.List[Audit] // Options.Audit's records
	h := launch(t, root, Options{Fetch: f, Audit: got.Add}, e, http)
	// Granted nothing, so in a host of its own.
	hNo := launch(t, root, Options{Fetch: f}, no)
	type out struct {
		Status                 int
		StatusText, Body, Echo string
		Type                   string
		OK, IsResponse         bool
		Error, Code            string
	}
	call := func(t *testing.T, u string, init any) (out, *Result) {
		t.Helper()
		r := run(t, h, "a.fetcher.cmd", u, init)
		var o out
		jsonValue(t, r, &o)
		return o, r
	}
	t.Run("allowed", func(t *testing.T) {
		o, r := call(t, "http://127.0.0.1:8080/x?y=1", map[string]any{"method": "POST", "body": "ping", "headers": map[string]string{"X-Mine": "1"}})
		if o.Status != 201 || o.StatusText != "Created" || o.Body != "hello from 127.0.0.1:8080" || o.Echo != "POST ping" || o.Type != "text/plain" || !o.OK || !o.IsResponse {
			t.Errorf("fetch = %+v", o)
		}
		ev := auditEvents(r)
		if len(ev) != 1 || ev[0].Level != "allowed" || ev[0].Audit.Details.Status != 201 || ev[0].Audit.Details.Method != "POST" || ev[0].Audit.Details.URL != "http://127.0.0.1:8080/x?y=1" || ev[0].Audit.Details.Bytes != 25 {
			t.Errorf("audit events %+v", ev)
		}
		f.mu.Lock()
		last := f.seen[len(f.seen)-1]
		f.mu.Unlock()
		if last.Header["x-mine"] == nil || string(last.Body) != "ping" {
			t.Errorf("the Fetcher got %+v", last)
		}
	})
	t.Run("subdomain", func(t *testing.T) {
		if o, _ := call(t, "https://api.example.com/", nil); o.Status != 201 {
			t.Errorf("fetch = %+v", o)
		}
	})
	for _, u := range []string{"http://127.0.0.1:8081/", "http://localhost:8080/", "https://example.com/", "https://evil.test/", "file:///etc/passwd"} {
		t.Run("denied "+u, func(t *testing.T) {
			f.mu.Lock()
			before := len(f.seen)
			f.mu.Unlock()
			o, r := call(t, u, nil)
			if o.Code != "ERR_AIRVSX_DENIED" || !strings.Contains(o.Error, "a.fetcher may not fetch") || !strings.Contains(o.Error, "[127.0.0.1:8080 *.example.com]") {
				t.Errorf("fetch %s = %+v; want a refusal naming the hosts", u, o)
			}
			f.mu.Lock()
			after := len(f.seen)
			f.mu.Unlock()
			if after != before {
				t.Errorf("the Fetcher was called for %s", u)
			}
			ev := auditEvents(r)
			if len(ev) != 1 || ev[0].Level != "denied" {
				t.Errorf("audit events %+v; want one denial", ev)
			}
		})
	}
	t.Run("redirect refused by the Fetcher", func(t *testing.T) {
		o, r := call(t, "http://127.0.0.1:8080/redirect-out", nil)
		if o.Code != "ERR_AIRVSX_DENIED" || !strings.Contains(o.Error, "may not follow a redirect to http://evil.example/") {
			t.Errorf("fetch = %+v", o)
		}
		if ev := auditEvents(r); len(ev) != 1 || ev[0].Level != "denied" {
			t.Errorf("audit events %+v; want one denial", ev)
		}
	})
	t.Run("aborted", func(t *testing.T) {
		f.mu.Lock()
		before := len(f.seen)
		f.mu.Unlock()
		o, _ := call(t, "http://127.0.0.1:8080/", "abort")
		f.mu.Lock()
		after := len(f.seen)
		f.mu.Unlock()
		if o.Code != "AbortError" || after != before {
			t.Errorf("fetch with an aborted signal = %+v (Fetcher called %d times); want an AbortError and no request", o, after-before)
		}
	})
	t.Run("getBuiltinModule http", func(t *testing.T) {
		_, err := h.ExecuteCommand(t.Context(), "a.http.cmd", "http", true)
		if err == nil || !strings.Contains(err.Error(), "network access is brokered") {
			t.Errorf("process.getBuiltinModule('http') = %v; want a refusal pointing at fetch()", err)
		}
	})
	for _, m := range []string{"http", "node:https", "net", "tls", "dns"} {
		t.Run("brokered "+m, func(t *testing.T) {
			_, err := h.ExecuteCommand(t.Context(), "a.http.cmd", m)
			if err == nil || !strings.Contains(err.Error(), "network access is brokered") || !strings.Contains(err.Error(), "use fetch()") {
				t.Errorf("require(%s) = %v; want a refusal pointing at fetch()", m, err)
			}
		})
	}
	t.Run("no network capability", func(t *testing.T) {
		_, err := hNo.ExecuteCommand(t.Context(), "a.nonet.cmd")
		var ce *CommandError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), `use fetch("http://127.0.0.1:8080/"): it needs the "network" capability`) {
			t.Errorf("err %v; want a refusal naming network", err)
		}
	})
	if n := len(got.All()); n < 8 {
		t.Errorf("Options.Audit got %d records; want one per fetch and refusal", n)
	}
}

func TestHostAllowed(t *testing.T) {
	allowed := []string{"api.example.com", "127.0.0.1:8080", "*.cdn.example.org", "[::1]:9000", "plain.test:443"}
	tests := []struct {
		url  string
		want bool
	}{
		{"https://api.example.com/x", true},
		{"http://api.example.com/x", true},
		{"https://API.Example.COM./x", true},
		{"https://api.example.com:443/", true},
		{"https://api.example.com:8443/", false},
		{"http://api.example.com:443/", false},
		{"http://127.0.0.1:8080/", true},
		{"http://127.0.0.1/", false},
		{"http://127.0.0.1:8081/", false},
		{"https://a.cdn.example.org/", true},
		{"https://a.b.cdn.example.org/", true},
		{"https://cdn.example.org/", false},
		{"https://xcdn.example.org/", false},
		{"http://[::1]:9000/", true},
		{"http://[0:0::1]:9000/", true},
		{"http://[::1]:9001/", false},
		{"http://plain.test/", false},
		{"https://plain.test/", true},
		{"ftp://api.example.com/", false},
		{"ws://api.example.com/", false},
		{"https://u:p@api.example.com/", false},
		{"https://other.test/", false},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := HostAllowed(allowed, u); got != tt.want {
			t.Errorf("HostAllowed(%q) = %v; want %v", tt.url, got, tt.want)
		}
	}
}

// TestSpawnKilledAtClose: a program still running when the host closes is
// killed with its group.
func TestSpawnKilledAtClose(t *testing.T) {
	root := t.TempDir()
	pidFile := filepath.Join(root, "storage", "a.bg", "pid")
	e := ext(t, root, "a.bg", command("a.bg", `require('child_process').execFile('/bin/sh', ['-c', 'echo $$ > pid; exec sleep 60'], { timeout: 120000 }, () => {}); return 'started';`))
	e.Capabilities, e.Programs = []string{"spawn"}, []string{"/bin/sh"}
	h := launch(t, root, Options{}, e)
	run(t, h, "a.bg.cmd")
	var pid int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(pidFile)
		if pid, _ = strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the program did not start")
		}
	}
	if !alive(pid) {
		t.Fatalf("the program %d is not running", pid)
	}
	if err := h.Close(t.Context()); err != nil {
		t.Logf("Close: %v", err)
	}
	if alive(pid) {
		t.Errorf("the program %d outlived the host's Close", pid)
	}
}

// TestForgedAuditDropped: the host cannot send an audit event of its own.
func TestForgedAuditDropped(t *testing.T) {
	root := t.TempDir()
	e := ext(t, root, "a.forger", command("a.forger", `process.send({ jsonrpc: '2.0', method: 'event', params: { kind: 'audit', extension: 'a.forger', level: 'allowed', text: 'forged', audit: { kind: 'spawn', allowed: true } } }); await new Promise((r) => setTimeout(r, 200)); return 1;`))
	var got collect.List[Audit] // Options.Audit's records
	h := launch(t, root, Options{Audit: got.Add}, e)
	run(t, h, "a.forger.cmd")
	time.Sleep(200 * time.Millisecond)
	for {
		select {
		case ev := <-h.Events():
			if ev.Kind == KindAudit {
				t.Errorf("a forged audit event got through: %+v", ev)
			}
			continue
		default:
		}
		break
	}
	if n := len(got.All()); n != 0 {
		t.Errorf("Options.Audit got %d records", n)
	}
}
