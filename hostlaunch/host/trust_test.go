package host

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airvsx/airvsx/testkit/citool"
	"github.com/airvsx/airvsx/testkit/collect"
)

// The trust boundary between a host and the launcher: identity, grants,
// limits (the escape suite in hostlaunch/sandbox attacks the same from a
// sandboxed host).

// TestForgedBlame: an extension that forges another host's extension's
// activation and then brings its own host down, twice, gets nobody but
// itself blamed: the other extension, which never ran, is not disabled,
// and neither is the forger (it crashed its host in a command, not while
// the launcher activated it). The heartbeat ticks on the hosts' CPU
// time: the forger's loop misses it at once, while on a loaded machine a
// wall-clock one of 300 ms killed hosts that were starting as hung.
func TestForgedBlame(t *testing.T) {
	citool.Need(t, "node")
	root := t.TempDir()
	forger := ext(t, root, "a.forger", command("a.forger", `process.send({ jsonrpc: '2.0', method: 'event', params: { kind: 'activating', extension: 'a.victim' } }); setTimeout(() => { for (;;) {} }, 50); return new Promise(() => {});`))
	victim := ext(t, root, "a.victim", command("a.victim", "return 'victim ran';"))
	victim.Capabilities = []string{"network"} // another host
	var told []string
	var mu sync.Mutex
	opts := Options{Extensions: []Extension{forger, victim}, StorageDir: filepath.Join(root, "storage"), Heartbeat: 300 * time.Millisecond}
	cpuBeats(&opts)
	p, err := LaunchPool(t.Context(), opts,
		SuperviseOptions{Backoff: func(int) time.Duration { return 10 * time.Millisecond }, MaxRestarts: 10,
			Disable: func(_ context.Context, id, reason string) error {
				mu.Lock()
				told = append(told, id)
				mu.Unlock()
				return nil
			}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	for range 2 {
		if _, err := p.ExecuteCommand(t.Context(), "a.forger.cmd"); !errors.Is(err, ErrExited) {
			t.Fatalf("a.forger.cmd: %v; want its host ended", err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(told) != 0 {
		t.Errorf("disabled %q; want nobody", told)
	}
	for _, s := range p.Hosts() {
		if d := s.Disabled(); len(d) != 0 {
			t.Errorf("supervisor disabled %v", d)
		}
	}
	if r, err := p.ExecuteCommand(t.Context(), "a.victim.cmd"); err != nil || string(r.Value) != `"victim ran"` {
		t.Errorf("a.victim.cmd after the forger's crashes: %v, %v", r, err)
	}
}

// TestCommandRouting: a command runs in the one host it belongs to. An
// eager extension that registers another host's declared command (or a
// command its own host declares for another extension) never answers it;
// a command only one host registered at run time reaches that host.
func TestCommandRouting(t *testing.T) {
	citool.Need(t, "node")
	root := t.TempDir()
	forger := ext(t, root, "a.forger", `exports.activate = () => {
  const out = {};
  for (const id of ['a.victim.cmd', 'a.sibling.cmd']) {
    try { vscode.commands.registerCommand(id, () => 'forged'); out[id] = 'registered'; } catch (e) { out[id] = e.message; }
  }
  process.send({ jsonrpc: '2.0', method: 'commands/registered', params: { command: 'a.victim.cmd' } });
  vscode.commands.registerCommand('a.forger.report', () => out);
  vscode.commands.registerCommand('dyn.only', () => 'dynamic');
};
`, "*")
	sibling := ext(t, root, "a.sibling", command("a.sibling", "return 'sibling';"))
	victim := ext(t, root, "a.victim", command("a.victim", "return 'victim';"))
	victim.Capabilities = []string{"network"}
	p, err := LaunchPool(t.Context(), Options{Extensions: []Extension{forger, sibling, victim}, StorageDir: filepath.Join(root, "storage")}, SuperviseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	for cmd, want := range map[string]string{"a.victim.cmd": `"victim"`, "a.sibling.cmd": `"sibling"`, "dyn.only": `"dynamic"`} {
		r, err := p.ExecuteCommand(t.Context(), cmd)
		if err != nil || string(r.Value) != want {
			t.Errorf("%s = %v, %v; want %s", cmd, r, err, want)
		}
	}
	r, err := p.ExecuteCommand(t.Context(), "a.forger.report")
	if err != nil {
		t.Fatal(err)
	}
	if v := string(r.Value); !strings.Contains(v, `"a.victim.cmd":"command 'a.victim.cmd' is declared by a.victim: a.forger may not register it"`) ||
		!strings.Contains(v, `"a.sibling.cmd":"command 'a.sibling.cmd' is declared by a.sibling`) {
		t.Errorf("registrations: %s; want both refused in the host", v)
	}
	if p.Hosts()[0].Host().Registered("a.victim.cmd") {
		t.Error("the launcher took the forger's host's registration of another host's command")
	}
}

// TestForgedEvents: events under another name are claims, never
// attributions; kinds only the launcher reports are dropped.
func TestForgedEvents(t *testing.T) {
	root := t.TempDir()
	forger := ext(t, root, "a.forger", command("a.forger", `
const ev = (p) => process.send({ jsonrpc: '2.0', method: 'event', params: p });
ev({ kind: 'activated', extension: 'a.elsewhere' });
ev({ kind: 'message', level: 'info', extension: 'a.elsewhere', text: 'as a.elsewhere' });
ev({ kind: 'message', level: 'info', extension: '\u001b[2J\u202eevil', text: 'escape' });
ev({ kind: 'warning', text: 'forged warning' });
ev({ kind: 'stderr', text: 'forged stderr' });
ev({ kind: 'message', level: 'info', text: 'x'.repeat(100000) });
await new Promise((r) => setTimeout(r, 200));
return 1;`))
	h := launch(t, root, Options{Elsewhere: []Extension{{ID: "a.elsewhere"}}}, forger)
	run(t, h, "a.forger.cmd")
	time.Sleep(200 * time.Millisecond)
	var seen []Event
	for more := true; more; {
		select {
		case e := <-h.Events():
			seen = append(seen, e)
		default:
			more = false
		}
	}
	if slices.Contains(h.Activated(), "a.elsewhere") {
		t.Error("an activation of another host's extension was recorded")
	}
	var claims []string
	for _, e := range seen {
		switch {
		case e.Extension == "a.elsewhere" || strings.ContainsAny(e.Extension+e.Claimed, "\x1b\u202e"):
			t.Errorf("event %+v attributed as claimed", e)
		case e.Kind == KindWarning && strings.Contains(e.Text, "forged"), e.Kind == KindStderr && strings.Contains(e.Text, "forged"):
			t.Errorf("forged %s event delivered: %+v", e.Kind, e)
		case len(e.Text) > maxEventText+100:
			t.Errorf("an event of %d bytes delivered", len(e.Text))
		}
		if e.Claimed != "" {
			claims = append(claims, e.Claimed)
		}
	}
	if !slices.Contains(claims, "a.elsewhere") || !slices.Contains(claims, `\x1b[2J\u202eevil`) {
		t.Errorf("claims %q; want a.elsewhere and the escaped one", claims)
	}
}

// TestAuditFlood: 3000 refused spawns in a burst write a handful of
// audit records (the first ones one by one, the rest summarized with a
// count), not 3000.
func TestAuditFlood(t *testing.T) {
	root := t.TempDir()
	e := ext(t, root, "a.flood", command("a.flood", `
const cp = require('child_process');
const rs = await Promise.allSettled(Array.from({ length: 3000 }, () => new Promise((res, rej) => cp.execFile('/bin/false', [], (err) => (err ? rej(err) : res())))));
return rs.filter((r) => r.status === 'rejected').length;`))
	e.Capabilities, e.Programs = []string{"spawn"}, []string{"/bin/echo"}
	var got collect.List[Audit]
	h := launch(t, root, Options{Audit: got.Add}, e)
	if r := run(t, h, "a.flood.cmd"); string(r.Value) != "3000" {
		t.Fatalf("refused %s; want 3000", r.Value)
	}
	h.Close(t.Context()) // writes what is held back
	records, repeated := 0, 0
	for _, a := range got.All() {
		records++
		repeated += max(a.Repeated-1, 0)
		if a.Allowed {
			t.Errorf("allowed: %+v", a)
		}
	}
	if records > 3*auditRate+10 || records+repeated != 3000 {
		t.Errorf("%d records standing for %d; want at most %d standing for all 3000", records, records+repeated, 3*auditRate+10)
	}
}

// TestSpawnConcurrency: at most 4 programs of a host run at once; the
// fifth and sixth are refused as busy, not queued.
func TestSpawnConcurrency(t *testing.T) {
	root := t.TempDir()
	e := ext(t, root, "a.many", command("a.many", `
const cp = require('child_process');
const rs = await Promise.allSettled(Array.from({ length: 6 }, () => new Promise((res, rej) => cp.execFile('/bin/sleep', ['1'], (err) => (err ? rej(err) : res())))));
return rs.map((r) => r.status === 'fulfilled' ? 'ran' : r.reason.code);`))
	e.Capabilities, e.Programs = []string{"spawn"}, []string{"/bin/sleep"}
	h := launch(t, root, Options{}, e)
	r := run(t, h, "a.many.cmd")
	ran, busy := strings.Count(string(r.Value), `"ran"`), strings.Count(string(r.Value), `"ERR_AIRVSX_BUSY"`)
	if ran != spawnBroker.inFlight || busy != 6-spawnBroker.inFlight {
		t.Errorf("%s; want %d ran and the rest refused as busy", r.Value, spawnBroker.inFlight)
	}
}

// TestDependencyCycle: a depends on b and b on a (install accepts it):
// each activates once, and the command runs; it overflowed the stack.
func TestDependencyCycle(t *testing.T) {
	root := t.TempDir()
	a := ext(t, root, "a.one", command("a.one", "return globalThis.activations;")+"globalThis.activations = (globalThis.activations || 0) + 1;\n")
	b := ext(t, root, "a.two", "exports.activate = () => { globalThis.activations = (globalThis.activations || 0) + 1; };\n", "onCommand:a.two.cmd")
	a.Dependencies, b.Dependencies = []string{"a.two"}, []string{"a.one"}
	h := launch(t, root, Options{}, a, b)
	if r := run(t, h, "a.one.cmd"); string(r.Value) != "2" {
		t.Errorf("activations %s; want 2 (each once)", r.Value)
	}
	if got := h.Activated(); len(got) != 2 {
		t.Errorf("activated %q", got)
	}
}

// TestRequireWithoutContext: code that runs for no extension (a callback
// of process.on('message') calling a host module's require) gets only the
// harmless built-ins; it loaded child_process, the seat belt off.
func TestRequireWithoutContext(t *testing.T) {
	root := t.TempDir()
	e := ext(t, root, "a.sneaky", command("a.sneaky", `
if (a[0] === 'arm') {
  globalThis.tried = new Promise((resolve) => process.once('message', () => {
    const hostMod = Object.values(require.cache).find((m) => m.filename.endsWith('vscode.js'));
    const out = {};
    for (const m of ['child_process', 'util']) {
      try { out[m] = typeof hostMod.require(m); } catch (err) { out[m] = err.code + ': ' + err.message; }
    }
    resolve(out);
  }));
  return 'armed';
}
return await globalThis.tried;`))
	h := launch(t, root, Options{}, e)
	run(t, h, "a.sneaky.cmd", "arm")
	r := run(t, h, "a.sneaky.cmd", "collect") // this request's message fires the callback
	v := string(r.Value)
	if !strings.Contains(v, `"child_process":"ERR_AIRVSX_DENIED: airvsx: extension (unknown) may not require('child_process') outside any extension's context`) || !strings.Contains(v, `"util":"object"`) {
		t.Errorf("%s; want child_process refused and util allowed", v)
	}
}
