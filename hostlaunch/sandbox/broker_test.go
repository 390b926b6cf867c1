package sandbox

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/airvsx/airvsx/hostlaunch/host"
	"github.com/airvsx/airvsx/hostlaunch/netbroker"
)

// TestBrokeredThroughSandbox: inside the kernel sandbox (no network, no
// new processes), a network-granted extension reaches exactly its
// allowed host through the launcher's fetch broker, and a spawn-granted
// one runs /bin/echo through the spawn broker (under a helper of its
// own) and nothing else; every request is audited. With the seat belt
// off, the brokered fetch and child_process are not installed either: the
// real ones meet the kernel, and nothing at all gets out.
func TestBrokeredThroughSandbox(t *testing.T) {
	sb := newSandbox(t)
	var hits sync.Map
	serve := func(name string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Store(name, true)
			w.Write([]byte("hello from " + name))
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	allowed, other := serve("allowed"), serve("other")
	root := t.TempDir()
	fetcher := testExt(t, root, "a.fetcher", `
const out = {};
for (const [k, u] of Object.entries(a[0])) {
  try { const r = await fetch(u); out[k] = r.status + ' ' + await r.text(); } catch (e) { out[k] = 'refused: ' + e.message; }
}
try { await new Promise((res, rej) => { const s = require('net').connect(Number(new URL(a[0].allowed).port), '127.0.0.1', res); s.on('error', rej); }); out.socket = 'connected'; }
catch (e) { out.socket = 'refused: ' + (e.code || e.message); }
return out;`)
	fetcher.Capabilities = []string{"network"}
	fetcher.AllowedHosts = []string{strings.TrimPrefix(allowed, "http://")}
	spawner := testExt(t, root, "a.spawner", `
const cp = require('child_process');
const run = (file, args) => new Promise((res) => cp.execFile(file, args, (err, stdout) => res(err ? 'refused: ' + err.message : stdout)));
return { echo: await run('/bin/echo', ['hello']), sh: await run('/bin/sh', ['-c', 'id']) };`)
	spawner.Capabilities = []string{"spawn"}
	spawner.Programs = []string{"/bin/echo"}
	for _, belted := range []bool{false, true} {
		var mu sync.Mutex
		var audits []host.Audit
		opts := host.Options{InsecureNoSeatBelt: !belted, Fetch: netbroker.New(netbroker.Options{}),
			Audit: func(a host.Audit) { mu.Lock(); audits = append(audits, a); mu.Unlock() }}
		// Granted differently, so in a host each.
		h, _ := launchIn(t, sb, opts, fetcher)
		hs, _ := launchIn(t, sb, opts, spawner)
		r, err := h.ExecuteCommand(t.Context(), "a.fetcher.cmd", map[string]string{"allowed": allowed + "/x", "other": other + "/x", "named": "http://example.invalid/"})
		if err != nil {
			t.Fatal(err)
		}
		var f map[string]string
		if err := json.Unmarshal(r.Value, &f); err != nil {
			t.Fatal(err)
		}
		if !belted {
			if _, ok := hits.Load("allowed"); ok || f["allowed"] == "200 hello from allowed" || f["socket"] != "refused: EPERM" {
				t.Errorf("unbelted: %q; want everything refused by the kernel (a raw socket: EPERM)", f)
			}
			if _, err := hs.ExecuteCommand(t.Context(), "a.spawner.cmd"); err == nil || !strings.Contains(err.Error(), "spawn EPERM") {
				t.Errorf("unbelted: spawn: %v; want the kernel's EPERM", err)
			}
			continue
		}
		if f["allowed"] != "200 hello from allowed" || !strings.HasPrefix(f["other"], "refused: ") || !strings.HasPrefix(f["named"], "refused: ") {
			t.Errorf("fetch results %q", f)
		}
		if !strings.HasPrefix(f["socket"], "refused: ") {
			t.Errorf("a raw socket to the allowed server: %q", f["socket"])
		}
		if _, ok := hits.Load("other"); ok {
			t.Errorf("the server that is not allowed was reached")
		}
		r, err = hs.ExecuteCommand(t.Context(), "a.spawner.cmd")
		if err != nil {
			t.Fatal(err)
		}
		var s map[string]string
		if err := json.Unmarshal(r.Value, &s); err != nil {
			t.Fatal(err)
		}
		if s["echo"] != "hello\n" || !strings.Contains(s["sh"], "/bin/sh") {
			t.Errorf("spawn results %q", s)
		}
		mu.Lock()
		var lines []string
		for _, a := range audits {
			lines = append(lines, a.Extension+" "+a.Kind+" "+map[bool]string{true: "allowed", false: "denied"}[a.Allowed]+" "+a.Details.URL+a.Details.Program)
		}
		mu.Unlock()
		got := strings.Join(lines, "\n")
		for _, want := range []string{
			"a.fetcher fetch allowed " + allowed + "/x",
			"a.fetcher fetch denied " + other + "/x",
			"a.spawner spawn allowed /bin/echo",
			"a.spawner spawn denied /bin/sh",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("audit lacks %q:\n%s", want, got)
			}
		}
	}
}
