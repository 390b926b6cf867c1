//go:build linux

package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airvsx/airvsx/hostlaunch/host"
	"github.com/airvsx/airvsx/internal/procstatus"
	"github.com/airvsx/airvsx/testkit/filetest"
)

// The escape suite's cases against the launcher's trust boundary rather
// than the kernel's: an extension rewriting its own grants, writing
// another extension's state, signalling processes outside, flooding the
// launcher, forging identities, borrowing a dependency's grant. For each,
// prepare sets the stage and returns the check of the evidence the
// attempt leaves, read after the command.

// victimID is the extension the forging cases name: granted spawn, it
// runs in another host (Options.Elsewhere), as a dependency of the
// escape suite.
const victimID = "airvsx-test.victim"

// victim is that extension as the launcher knows it.
var victim = host.Extension{ID: victimID, ActivationEvents: []string{"onCommand:victim.cmd"},
	Capabilities: []string{"spawn"}, Programs: []string{"/usr/bin/touch"}}

// floodLimitMiB is how much the launcher's peak resident memory may grow
// while a host floods it (the bound: 256 MB).
const floodLimitMiB = 256

// staged is what prepare set up for one run.
type staged struct {
	// evidence returns what the attempt left (nothing: held), given the
	// host and what it reported.
	evidence func(h *host.Host, events []host.Event, audits []host.Audit) []string
	cleanup  func()
}

// prepare stages case c for a run in root: args the extension reads, and
// the options the host gets.
func (r *rig) prepare(t *testing.T, c escapeCase, root string, args map[string]any, opts *host.Options) staged {
	t.Helper()
	opts.Elsewhere = []host.Extension{victim}
	// As run does: the extensions directory is no workspace's, and is
	// read-only wherever a sandbox would show it.
	extDir := filepath.Dir(r.ext.Path)
	opts.Protected = []host.Protected{{Path: extDir, What: "the extensions directory"}}
	args["victim"], args["victimCommand"], args["launcherPid"] = victimID, "victim.cmd", os.Getpid()
	none := staged{evidence: func(*host.Host, []host.Event, []host.Audit) []string { return nil }, cleanup: func() {}}
	switch c.name {
	case "grant-rewrite":
		installed := filepath.Join(extDir, "installed.json")
		before, err := os.ReadFile(installed)
		if err != nil {
			t.Fatal(err)
		}
		args["installed"] = installed
		return staged{
			evidence: func(*host.Host, []host.Event, []host.Audit) []string {
				if now, _ := os.ReadFile(installed); !bytes.Equal(now, before) {
					return []string{"installed.json rewritten"}
				}
				return nil
			},
			cleanup: func() { filetest.WriteFile(t, installed, before) },
		}
	case "storage-other":
		dir := filepath.Join(opts.StorageDir, victimID)
		state := filepath.Join(dir, "globalState.json")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		filetest.WriteFile(t, state, []byte(`{"mine":"victim"}`))
		args["victimStorage"] = dir
		return staged{evidence: func(*host.Host, []host.Event, []host.Audit) []string {
			if b, _ := os.ReadFile(state); string(b) != `{"mine":"victim"}` {
				return []string{"another extension's globalState.json written"}
			}
			return nil
		}, cleanup: func() {}}
	case "signal-other":
		sleeper := exec.Command("sleep", "300")
		if err := sleeper.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- sleeper.Wait() }()
		args["victimPid"] = sleeper.Process.Pid
		return staged{evidence: func(*host.Host, []host.Event, []host.Audit) []string {
			select {
			case err := <-done:
				return []string{"an unrelated process killed (" + fmt.Sprint(err) + ")"}
			case <-time.After(100 * time.Millisecond):
				return nil
			}
		}, cleanup: func() { sleeper.Process.Kill() }}
	case "launcher-flood":
		big := filepath.Join(root, "ws", "big.bin")
		filetest.WriteFile(t, big, bytes.Repeat([]byte("airvsx "), (8<<20)/7))
		args["big"] = big
		// Here the test process is the launcher; under the race detector
		// its shadow memory multiplies what it holds, so the bound is
		// looser there (TestLauncherFloods measures a launcher without it
		// against the bound itself). Either catches the gigabytes a flood
		// took before the limits.
		limit := int64(floodLimitMiB)
		if raceEnabled {
			limit *= 4
		}
		base := peakReset(t)
		return staged{evidence: func(*host.Host, []host.Event, []host.Audit) []string {
			if grew := peakNow(t) - base; grew > limit<<20 {
				return []string{fmt.Sprintf("the launcher's peak resident memory grew by %d MiB", grew>>20)}
			}
			return nil
		}, cleanup: func() {}}
	case "forge-identity":
		return staged{evidence: func(h *host.Host, events []host.Event, audits []host.Audit) []string {
			var ev []string
			if slices.Contains(h.Activated(), victimID) {
				ev = append(ev, "another host's extension recorded as activated here")
			}
			if h.Registered("victim.cmd") {
				ev = append(ev, "another host's command registered here")
			}
			for _, e := range events {
				switch {
				case e.Extension == victimID || strings.ContainsAny(e.Extension+e.Claimed, "\x1b\u202e"):
					ev = append(ev, fmt.Sprintf("an event attributed to %q", e.Extension+e.Claimed))
				case strings.HasPrefix(e.Text, "forged") && e.Kind != host.KindMessage:
					ev = append(ev, "a forged "+e.Kind+" event delivered")
				}
			}
			return ev
		}, cleanup: func() {}}
	case "forge-crash":
		opts.Heartbeat = 300 * time.Millisecond
		return staged{evidence: func(h *host.Host, _ []host.Event, _ []host.Audit) []string {
			if slices.Contains(h.Activating(), victimID) {
				return []string{"the crash blamed on another host's extension"}
			}
			return nil
		}, cleanup: func() {}}
	case "dependency-grant":
		r.ext.Dependencies = []string{victimID}
		return staged{evidence: func(_ *host.Host, _ []host.Event, audits []host.Audit) []string {
			for _, a := range audits {
				if a.Allowed && a.Extension == victimID {
					return []string{"a spawn allowed under the dependency's grant"}
				}
			}
			return nil
		}, cleanup: func() { r.ext.Dependencies = nil }}
	}
	return none
}

// peakReset resets this process's peak resident memory (VmHWM) to what it
// holds now and returns that.
func peakReset(tb testing.TB) int64 {
	tb.Helper()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		tb.Fatalf("reset the peak resident memory: %v", err)
	}
	return peakNow(tb)
}

// peakNow is this process's peak resident memory since the last reset.
func peakNow(tb testing.TB) int64 {
	tb.Helper()
	n, err := procstatus.Bytes(procstatus.Self, "VmHWM")
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// auditLog collects what Options.Audit is told.
type auditLog struct {
	mu sync.Mutex
	a  []host.Audit
}

func (l *auditLog) add(a host.Audit) { l.mu.Lock(); l.a = append(l.a, a); l.mu.Unlock() }

func (l *auditLog) all() []host.Audit {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.a)
}

// drain takes what h's Events buffered.
func drain(h *host.Host) []host.Event {
	var out []host.Event
	for {
		select {
		case e := <-h.Events():
			out = append(out, e)
		default:
			return out
		}
	}
}

// abi5 is sb's layers with Landlock capped at ABI 5 (Linux 6.7-6.11,
// Ubuntu 24.04's kernel): no signal or abstract-socket scoping, which the
// PID and network namespaces must then make up for.
func abi5(t *testing.T, sb *Sandbox) *Sandbox {
	t.Helper()
	l := sb.Layers()
	if l.LandlockABI < 5 {
		t.Fatalf("Landlock ABI %d: cannot simulate ABI 5", l.LandlockABI)
	}
	l.LandlockABI = 5
	s, err := newWith(Options{}, l)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// memfdRow runs the memfd-exec attempt as a brokered program (this test
// binary's memfd child, which copies /bin/echo into a memfd and runs it
// with execveat): unconfined it runs; in the sandbox seccomp refuses it.
func memfdRow(t *testing.T, sb *Sandbox) (unconfined, sandboxed string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	env := []string{childEnv + "=" + childMemfdExec, noFilterEnv + "=1", "PATH=/usr/bin:/bin"}
	spec := host.SpawnSpec{Program: self, Args: []string{"-test.run=^$"}, Env: env, Dir: ws, Workspace: []string{ws}}
	plain, err := host.DirectSpawn(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := plain.CombinedOutput()
	unconfined = "denied"
	if strings.Contains(string(got), "ran-from-memfd") {
		unconfined = "ESCAPED"
	}
	cmd, err := sb.Spawn(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = cmd.CombinedOutput()
	switch {
	case strings.Contains(string(got), "ran-from-memfd"):
		sandboxed = "ESCAPED"
	case strings.Contains(string(got), "execveat: operation not permitted"):
		sandboxed = "EPERM"
	default:
		sandboxed = "unexpected: " + strings.TrimSpace(string(got))
	}
	return unconfined, sandboxed
}
