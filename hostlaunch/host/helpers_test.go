package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/internal/procstatus"
	"github.com/airvsx/airvsx/internal/tempdir"
	"github.com/airvsx/airvsx/testkit/citool"
	"github.com/airvsx/airvsx/testkit/exttest"
)

// ext writes an extension folder holding extension.js with js as its
// body and returns its description; events default to onCommand:<id>.cmd.
func ext(t testing.TB, root, id, js string, events ...string) Extension {
	t.Helper()
	dir := filepath.Join(root, "ext", id)
	exttest.Write(t, dir, id, "'use strict';\nconst vscode = require('vscode');\n"+js)
	if len(events) == 0 {
		events = []string{"onCommand:" + id + ".cmd"}
	}
	return Extension{ID: id, Path: dir, Main: "./extension.js", ActivationEvents: events}
}

// hostScripts writes the host's scripts as the launcher does (writeHost) into
// a directory under t's temporary directory, removed when the test ends.
func hostScripts(t testing.TB) *tempdir.Dir {
	t.Helper()
	td, err := writeHost(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { td.Remove() })
	return td
}

// workspace makes the workspace folder root/ws, and the folder sub below
// it when sub is given, and returns the workspace's path.
func workspace(t testing.TB, root string, sub ...string) string {
	t.Helper()
	ws := filepath.Join(root, "ws")
	if err := os.MkdirAll(filepath.Join(append([]string{ws}, sub...)...), 0o755); err != nil {
		t.Fatal(err)
	}
	return ws
}

// command is extension.js registering <id>.cmd with body as its handler's
// body (args in a).
func command(id, body string) string {
	return "exports.activate = (ctx) => { ctx.subscriptions.push(vscode.commands.registerCommand('" + id + ".cmd', async (...a) => { " + body + " })); };\n"
}

// launch starts a host for exts in a fresh temporary directory and closes
// it at the end of the test.
func launch(t testing.TB, root string, opts Options, exts ...Extension) *Host {
	t.Helper()
	citool.Need(t, "node")
	opts.Extensions = exts
	if opts.StorageDir == "" {
		opts.StorageDir = filepath.Join(root, "storage")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h, err := Launch(ctx, opts)
	if err != nil {
		t.Fatalf("Launch: %v", err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

// run executes a command and fails the test on error.
func run(t testing.TB, h *Host, id string, args ...any) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := h.ExecuteCommand(ctx, id, args...)
	if err != nil {
		t.Fatalf("ExecuteCommand %s: %v", id, err)
	}
	return r
}

// texts lists the events of kind, as "extension: text".
func texts(events []Event, kind string) []string {
	var out []string
	for _, e := range events {
		if e.Kind == kind {
			out = append(out, e.Extension+": "+e.Text)
		}
	}
	return out
}

func hasText(events []Event, kind, sub string) bool {
	for _, s := range texts(events, kind) {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }
func contains(s, sub string) bool     { return strings.Contains(s, sub) }

// testHeartbeat is the Heartbeat of TestBusyLoopKilled, whose heartbeats
// the test gives by hand (handBeats): it only bounds each ping (10 times
// it), so that a host slow to answer on a loaded machine is not taken for
// hung.
const testHeartbeat = time.Second

// handBeats is a heartbeat the test gives by hand: each send on the
// channel it returns is one heartbeat of the host launched with opts.
func handBeats(opts *Options) chan<- time.Time {
	c := make(chan time.Time)
	opts.beats = func(int, time.Duration) (<-chan time.Time, func()) { return c, func() {} }
	return c
}

// cpuHeartbeat is the heartbeat of the tests whose hosts beat on their
// CPU time (cpuBeats): a host that loops is killed after about three of
// it, a host that waits for a CPU never.
const cpuHeartbeat = 300 * time.Millisecond

// cpuBeats makes the heartbeat of the hosts launched with opts tick
// every Heartbeat of their process's CPU time, not of the wall clock: a
// host that loops for ever still misses heartbeats at once, but one
// that waits for a CPU on a loaded machine is never taken for hung.
// (The process is node itself: Command is Direct.)
func cpuBeats(opts *Options) {
	opts.beats = func(pid int, d time.Duration) (<-chan time.Time, func()) {
		c, stop := make(chan time.Time), make(chan struct{})
		go func() {
			poll := time.NewTicker(5 * time.Millisecond)
			defer poll.Stop()
			next := d
			for {
				select {
				case <-stop:
					return
				case <-poll.C:
				}
				used, err := procstatus.CPUTime(strconv.Itoa(pid))
				if err != nil { // the process is gone
					return
				}
				if used < next {
					continue
				}
				next = used + d
				select {
				case c <- time.Now():
				case <-stop:
					return
				}
			}
		}()
		return c, func() { close(stop) }
	}
}
