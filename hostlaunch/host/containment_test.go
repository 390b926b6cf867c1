package host

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestBusyLoopKilled: an extension that never yields misses heartbeats;
// its host is killed at the third heartbeat after the loop began (the
// first two leave it be), the pending call fails with why, the launcher
// lives. The test gives the heartbeats, so that how loaded the machine is
// changes nothing: with a ticker, a host slow to start was taken for
// hung, and a second of margin on "noticed within 3 s" was not enough.
func TestBusyLoopKilled(t *testing.T) {
	root := t.TempDir()
	e := ext(t, root, "a.busy", command("a.busy", "process.stderr.write('looping\\n'); for (;;) {}"))
	opts := Options{Heartbeat: testHeartbeat}
	beat := handBeats(&opts)
	h := launch(t, root, opts, e)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // bounds a hang only
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := h.ExecuteCommand(ctx, "a.busy.cmd")
		errc <- err
	}()
	// stderr is written synchronously: once the line is here, the host
	// runs the loop and answers nothing more.
	for looping := false; !looping; {
		select {
		case ev := <-h.Events():
			looping = ev.Kind == KindStderr && strings.Contains(ev.Text, "looping")
		case err := <-errc:
			t.Fatalf("the command ended before it looped: %v", err)
		case <-ctx.Done():
			t.Fatal("the extension never started its loop")
		}
	}
	// The launcher takes a heartbeat only once it is done with the one
	// before: a host killed early takes no more, and its error comes.
	for i := 1; i <= 3; i++ {
		select {
		case beat <- time.Now():
		case err := <-errc:
			t.Fatalf("before heartbeat %d: %v; want the host left until the third", i, err)
		}
	}
	err := <-errc
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "extension host ended: killed: hung: missed 2 heartbeats") {
		t.Fatalf("err %v; want the host killed as hung", err)
	}
	if _, err := h.ExecuteCommand(ctx, "a.busy.cmd"); err == nil {
		t.Error("a dead host ran a command")
	}
	if err := h.Close(ctx); err != nil {
		t.Errorf("Close of a dead host: %v", err)
	}
}

// TestContainment: what hostile extensions do stays inside them.
func TestContainment(t *testing.T) {
	root := t.TempDir()
	exits := ext(t, root, "a.exits", "exports.activate = () => { process.exit(1); };\n")
	slow := ext(t, root, "a.slow", "exports.activate = () => new Promise(() => {});\n")
	flood := ext(t, root, "a.flood", command("a.flood", "for (let i = 0; i < 1000; i++) vscode.window.showInformationMessage('m' + i); return 'done';"))
	stray := ext(t, root, "a.stray", command("a.stray", "setTimeout(() => { throw new Error('later'); }, 0); Promise.reject(new Error('nobody catches')); return 'ok';"))
	big := ext(t, root, "a.big", command("a.big", "if (a[0] === 'event') vscode.window.showInformationMessage('x'.repeat(20 << 20)); else if (a[0] === 'throw') throw new Error('z'.repeat(20 << 20)); else return 'y'.repeat(20 << 20);"))
	ok := ext(t, root, "a.ok", command("a.ok", "return 'alive';"))
	// The 300 ms bind a.slow alone: the others' activate() return at once,
	// and their deadline's timer cannot fire before that settles.
	h := launch(t, root, Options{ActivateTimeout: 300 * time.Millisecond}, exits, slow, flood, stray, big, ok)
	// The event rate's second is the launcher's clock: stopped, the flood
	// is one burst however slowly a loaded machine reads it (it ran
	// past a second and let more than 100 through).
	stopped := time.Now()
	h.limit.mu.Lock()
	h.limit.now = func() time.Time { return stopped }
	h.limit.mu.Unlock()
	for _, tc := range []struct{ name, cmd, msg string }{
		{"process.exit in activate", "a.exits.cmd", "a.exits may not call process.exit(1)"},
		{"activate past its deadline", "a.slow.cmd", "activate did not finish within 300 ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.ExecuteCommand(t.Context(), tc.cmd)
			var ce *CommandError
			if !errors.As(err, &ce) || ce.Kind != ActivationFailed || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err %v; want activation failed with %q", err, tc.msg)
			}
		})
	}
	t.Run("event flood capped", func(t *testing.T) {
		r := run(t, h, "a.flood.cmd")
		n := 0 // its activation counts too
		for _, e := range r.Events {
			if e.Extension == "a.flood" && e.Kind != KindWarning {
				n++
			}
		}
		if n != 100 {
			t.Errorf("%d events delivered, want 100", n)
		}
		if w := texts(r.Events, KindWarning); len(w) != 1 || !strings.Contains(w[0], "events from a.flood dropped: more than 100 a second") {
			t.Errorf("warnings %q", w)
		}
	})
	t.Run("huge event truncated", func(t *testing.T) {
		r := run(t, h, "a.big.cmd", "event")
		if m := texts(r.Events, KindMessage); len(m) != 1 || len(m[0]) > 70000 || !strings.HasSuffix(m[0], "(truncated)") {
			t.Errorf("message of %d bytes", len(strings.Join(m, "")))
		}
	})
	t.Run("huge result refused", func(t *testing.T) {
		if _, err := h.ExecuteCommand(t.Context(), "a.big.cmd", "result"); err == nil || !strings.Contains(err.Error(), "larger than 8388608 bytes") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("huge error truncated", func(t *testing.T) {
		if _, err := h.ExecuteCommand(t.Context(), "a.big.cmd", "throw"); err == nil || len(err.Error()) > 70000 {
			t.Errorf("err of %d bytes", len(fmt.Sprint(err)))
		}
	})
	t.Run("stray exceptions", func(t *testing.T) {
		if r := run(t, h, "a.stray.cmd"); string(r.Value) != `"ok"` {
			t.Errorf("value %s", r.Value)
		}
	})
	if r := run(t, h, "a.ok.cmd"); string(r.Value) != `"alive"` || h.Err() != nil {
		t.Fatalf("host after all that: %s, %v", r.Value, h.Err())
	}
}

// TestMemoryBombKilled: Buffers live outside the JavaScript heap, so the
// heap limit does not stop them; the launcher's watch of the host's
// resident memory does.
func TestMemoryBombKilled(t *testing.T) {
	root := t.TempDir()
	e := ext(t, root, "a.bomb", command("a.bomb", "const keep = []; for (;;) { const b = Buffer.alloc(16 << 20); b.fill(1); keep.push(b); }"))
	h := launch(t, root, Options{MemoryMB: 256}, e)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	_, err := h.ExecuteCommand(ctx, "a.bomb.cmd")
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "killed: memory: resident") || !strings.Contains(err.Error(), "over the limit of 256 MiB") {
		t.Fatalf("err %v; want the host killed over its memory limit", err)
	}
}

// TestNoSeatBelt: InsecureNoSeatBelt really removes the JavaScript gate
// (what the kernel sandbox's escape suite relies on to test the kernel
// alone).
func TestNoSeatBelt(t *testing.T) {
	root := t.TempDir()
	e := ext(t, root, "a.free", command("a.free", "require('child_process').execFileSync('/bin/true'); return 'ran';"))
	for _, tc := range []struct {
		off  bool
		want string
	}{{false, `it needs the "spawn" capability`}, {true, `"ran"`}} {
		h := launch(t, root, Options{InsecureNoSeatBelt: tc.off}, e)
		r, err := h.ExecuteCommand(t.Context(), "a.free.cmd")
		got := fmt.Sprint(err)
		if err == nil {
			got = string(r.Value)
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("seat belt off=%v: %s, want %q", tc.off, got, tc.want)
		}
	}
}
