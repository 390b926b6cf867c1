package host

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/testkit/citool"
)

// TestCrashLoopDisables: an extension whose activation brings its host
// down (a busy loop: hung, killed; an allocation without end: out of
// its heap) is blamed; the host is restarted and the command tried again;
// the second crash in a row disables the extension (Disable is told), and
// the others keep working. The heartbeat ticks on the hosts' CPU time
// (cpuBeats): the busy loop misses it at once, while a host waiting for a
// CPU on a loaded machine is never taken for hung.
func TestCrashLoopDisables(t *testing.T) {
	citool.Need(t, "node")
	for _, tc := range []struct{ name, activate string }{
		{"busy loop", "exports.activate = () => { for (;;) {} };\n"},
		{"out of memory", "exports.activate = () => { const keep = []; for (;;) keep.push(new Array(1 << 20).fill(keep.length)); };\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			bad := ext(t, root, "a.bad", tc.activate)
			good := ext(t, root, "a.good", command("a.good", "return 'fine';"))
			var told []string
			opts := Options{Extensions: []Extension{bad, good}, StorageDir: filepath.Join(root, "storage"), Heartbeat: cpuHeartbeat, HeapMB: 48}
			cpuBeats(&opts)
			s, err := Supervise(t.Context(), opts,
				SuperviseOptions{Backoff: func(int) time.Duration { return 10 * time.Millisecond }, Disable: func(_ context.Context, id, reason string) error {
					told = append(told, id+": "+reason)
					return nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(context.Background())
			_, err = s.ExecuteCommand(t.Context(), "a.bad.cmd")
			if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "a.bad provides it but was disabled: "+CrashLoopReason) {
				t.Fatalf("err %v; want not found, naming a.bad disabled", err)
			}
			if want := []string{"a.bad: " + CrashLoopReason}; !slices.Equal(told, want) {
				t.Errorf("Disable told %q, want %q", told, want)
			}
			if r, err := s.ExecuteCommand(t.Context(), "a.good.cmd"); err != nil || string(r.Value) != `"fine"` {
				t.Errorf("a.good after the crash loop: %v, %v", r, err)
			}
		})
	}
}

// TestRestartLimit: past MaxRestarts within the window the supervisor
// stops restarting and says so. The heartbeat ticks on the hosts' CPU
// time (cpuBeats), as in TestCrashLoopDisables.
func TestRestartLimit(t *testing.T) {
	citool.Need(t, "node")
	root := t.TempDir()
	busy := ext(t, root, "a.busy", command("a.busy", "for (;;) {}"))
	opts := Options{Extensions: []Extension{busy}, StorageDir: filepath.Join(root, "storage"), Heartbeat: cpuHeartbeat}
	cpuBeats(&opts)
	s, err := Supervise(t.Context(), opts,
		SuperviseOptions{Backoff: func(int) time.Duration { return time.Millisecond }, MaxRestarts: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	// A command that hangs is not retried: the host is restarted once.
	if _, err := s.ExecuteCommand(t.Context(), "a.busy.cmd"); !errors.Is(err, ErrExited) {
		t.Fatalf("first: %v", err)
	}
	_, err = s.ExecuteCommand(t.Context(), "a.busy.cmd")
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "the extension host ended 2 times within 1m0s: not restarting it") {
		t.Fatalf("second: %v; want the restart refused", err)
	}
}

// TestEagerCrashLoop: a "*" extension that hangs the host while it starts
// is blamed too: after two starts it is disabled and the host starts
// without it. The heartbeat ticks on the hosts' CPU time (cpuBeats), as
// in TestCrashLoopDisables.
func TestEagerCrashLoop(t *testing.T) {
	citool.Need(t, "node")
	root := t.TempDir()
	bad := ext(t, root, "a.eager", "exports.activate = () => { for (;;) {} };\n", "*", "onCommand:a.eager.cmd")
	good := ext(t, root, "a.good", command("a.good", "return 'fine';"))
	opts := Options{Extensions: []Extension{bad, good}, StorageDir: filepath.Join(root, "storage"), Heartbeat: cpuHeartbeat}
	cpuBeats(&opts)
	s, err := Supervise(t.Context(), opts,
		SuperviseOptions{Backoff: func(int) time.Duration { return 10 * time.Millisecond }})
	if err != nil {
		t.Fatalf("Supervise: %v", err)
	}
	defer s.Close(context.Background())
	if d := s.Disabled(); d["a.eager"] != CrashLoopReason {
		t.Errorf("disabled %v", d)
	}
	if r, err := s.ExecuteCommand(t.Context(), "a.good.cmd"); err != nil || string(r.Value) != `"fine"` {
		t.Errorf("a.good: %v, %v", r, err)
	}
	_, err = s.ExecuteCommand(t.Context(), "a.eager.cmd")
	var de *DisabledError
	if !errors.As(err, &de) || de.Extension != "a.eager" {
		t.Errorf("a.eager.cmd: %v; want a DisabledError", err)
	}
}
