package host

import (
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/internal/procstatus"
	"github.com/airvsx/airvsx/testkit/citool"
	"github.com/airvsx/airvsx/testkit/collect"
)

// streamEcho is the fixture extension testdata/extensions/stream-echo,
// granted spawn of node alone.
func streamEcho(t *testing.T) (Extension, string) {
	t.Helper()
	node := citool.Need(t, "node")
	dir, err := filepath.Abs("../../testdata/extensions/stream-echo")
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, c := range []string{"converse", "kill", "flood", "hold", "release"} {
		cmds = append(cmds, "onCommand:streamEcho."+c)
	}
	return Extension{ID: "airvsx-demo.stream-echo", Path: dir, Main: "./extension.js", ActivationEvents: cmds,
		Capabilities: []string{"spawn"}, Programs: []string{node}}, node
}

// end is how a streamed child ended: its 'close' or its 'error'.
type end struct {
	Code   *int
	Signal *string
	Error  string
}

// TestStreamedSpawn: a program started with child_process.spawn talks
// with its extension over stdio for as long as it runs, as a language
// server does, through the streaming broker.
func TestStreamedSpawn(t *testing.T) {
	root := t.TempDir()
	e, node := streamEcho(t)
	var audits collect.List[Audit]
	h := launch(t, root, Options{Workspace: []string{workspace(t, root)}, Audit: audits.Add}, e)

	t.Run("conversation, then the end of stdin", func(t *testing.T) {
		r := run(t, h, "streamEcho.converse", node, 5)
		var got struct {
			PID              int
			Virtual, Spawned bool
			Replies          []struct {
				Method string
				Params struct{ I int }
				N      int
			}
			Notes []struct {
				Method string
				Params struct{ N int }
			}
			End      end
			ExitCode *int
		}
		jsonValue(t, r, &got)
		if !got.Virtual || !got.Spawned {
			t.Errorf("pid %d, spawned %v; want a virtual pid (1<<22 up) set at once and a 'spawn' event", got.PID, got.Spawned)
		}
		if len(got.Replies) != 5 {
			t.Fatalf("replies %+v; want 5", got.Replies)
		}
		for i, rep := range got.Replies {
			if rep.Method != "echo" || rep.Params.I != i || rep.N != i+1 {
				t.Errorf("reply %d = %+v; want the echo of message %d, the server's message %d", i, rep, i, i+1)
			}
		}
		if len(got.Notes) != 1 || got.Notes[0].Method != "eof" || got.Notes[0].Params.N != 5 {
			t.Errorf("notes %+v; want the server's eof after 5 messages (it saw the end of stdin)", got.Notes)
		}
		if got.End.Code == nil || *got.End.Code != 0 || got.End.Signal != nil {
			t.Errorf("close %+v; want code 0", got.End)
		}
		var found bool
		for _, a := range audits.All() {
			found = found || a.Allowed && a.Details.Program == node && a.Details.ExitCode != nil && *a.Details.ExitCode == 0 && a.Details.Bytes > 0
		}
		if !found {
			t.Errorf("no audit record of the allowed stream of %s, exit 0: %+v", node, audits.All())
		}
	})
	t.Run("exit code", func(t *testing.T) {
		var got struct {
			End      end
			ExitCode *int
		}
		jsonValue(t, run(t, h, "streamEcho.converse", node, 2, 7), &got)
		if got.End.Code == nil || *got.End.Code != 7 || got.ExitCode == nil || *got.ExitCode != 7 {
			t.Errorf("%+v; want exit code 7", got)
		}
	})
	for _, tc := range []struct{ how, signal, want string }{
		{"child", "", "SIGTERM"},
		{"child", "SIGKILL", "SIGKILL"},
		{"process", "SIGTERM", "SIGTERM"},
		{"process", "SIGINT", "SIGINT"},
	} {
		t.Run("kill by "+tc.how+" "+tc.want, func(t *testing.T) {
			var got struct {
				ServerPID int
				Killed    bool
				End       end
				After     string
			}
			var sig any
			if tc.signal != "" {
				sig = tc.signal
			}
			jsonValue(t, run(t, h, "streamEcho.kill", node, tc.how, sig), &got)
			if !got.Killed || got.End.Signal == nil || *got.End.Signal != tc.want || got.End.Code != nil {
				t.Errorf("%+v; want it killed by %s", got, tc.want)
			}
			if got.After != "ESRCH" {
				t.Errorf("process.kill(pid, 0) after the end: %q; want ESRCH", got.After)
			}
			if alive(got.ServerPID) {
				t.Errorf("the server %d still runs", got.ServerPID)
			}
		})
	}
}

// TestStreamedSpawnRefused: a program the policy does not list is refused
// at spawn with an 'error' (ERR_AIRVSX_DENIED), and its virtual pid then
// names nothing; past 8 streams at once, spawn is refused with
// ERR_AIRVSX_BUSY; the streams still running when the host closes are
// killed.
func TestStreamedSpawnRefused(t *testing.T) {
	root := t.TempDir()
	e, node := streamEcho(t)
	js := `const cp = require('child_process');
exports.activate = (ctx) => { ctx.subscriptions.push(vscode.commands.registerCommand('a.unlisted.cmd', () => new Promise((resolve) => {
  const c = cp.spawn('/bin/echo', ['x']);
  const pid = c.pid;
  c.on('error', (err) => {
    let kill;
    try { process.kill(pid, 0); kill = 'alive'; } catch (e) { kill = e.code; }
    resolve({ pid, message: err.message, code: err.code, after: c.pid === undefined, kill });
  });
  c.on('spawn', () => resolve({ spawned: true }));
}))); };
`
	un := ext(t, root, "a.unlisted", js)
	un.Capabilities, un.Programs = []string{"spawn"}, []string{node}
	h := launch(t, root, Options{Workspace: []string{workspace(t, root)}}, e, un)

	t.Run("unlisted program", func(t *testing.T) {
		var got struct {
			PID           int
			Message, Code string
			After         bool
			Kill          string
		}
		jsonValue(t, run(t, h, "a.unlisted.cmd"), &got)
		if got.Code != "ERR_AIRVSX_DENIED" || !strings.Contains(got.Message, "may not run /bin/echo") || got.PID < 1<<22 || !got.After || got.Kill != "ESRCH" {
			t.Errorf("%+v; want ERR_AIRVSX_DENIED naming /bin/echo, a virtual pid that then names nothing (ESRCH)", got)
		}
	})
	var pids []int
	t.Run("at most 8 streams", func(t *testing.T) {
		var got []struct {
			PID   int
			Code  string
			Error string
		}
		jsonValue(t, run(t, h, "streamEcho.hold", node, 9), &got)
		for i, g := range got {
			if i < 8 && g.PID == 0 || i == 8 && g.Code != "ERR_AIRVSX_BUSY" {
				t.Errorf("stream %d: %+v; want 8 running, the 9th refused with ERR_AIRVSX_BUSY", i, g)
			}
			if g.PID != 0 {
				pids = append(pids, g.PID)
			}
		}
	})
	t.Run("killed at Close", func(t *testing.T) {
		if len(pids) == 0 {
			t.Skip("no streams held")
		}
		for _, pid := range pids {
			if !alive(pid) {
				t.Fatalf("the server %d is not running", pid)
			}
		}
		if err := h.Close(t.Context()); err != nil {
			t.Logf("Close: %v", err)
		}
		for _, pid := range pids {
			if alive(pid) {
				t.Errorf("the server %d outlived the host's Close", pid)
			}
		}
	})
}

// TestStreamedSpawnBounded: a program writing 200 MiB to an extension
// that reads slowly makes the launcher hold one chunk at a time, not the
// output: its resident memory and heap grow by far less than what went
// through.
func TestStreamedSpawnBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("200 MiB through the broker")
	}
	root := t.TempDir()
	e, node := streamEcho(t)
	h := launch(t, root, Options{Workspace: []string{workspace(t, root)}}, e)
	runtime.GC()
	rss0, err := procstatus.Bytes(procstatus.Self, "VmRSS")
	if err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heap0 := ms.HeapInuse
	var peakHeap uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peakHeap = max(peakHeap, ms.HeapInuse)
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	r, err := h.ExecuteCommand(ctx, "streamEcho.flood", node, 200, 2)
	t.Logf("200 MiB in %v", time.Since(start))
	close(stop)
	<-sampled
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Bytes int64
		End   end
	}
	if err := json.Unmarshal(r.Value, &got); err != nil {
		t.Fatal(err)
	}
	if got.Bytes != 200<<20 || got.End.Code == nil || *got.End.Code != 0 {
		t.Fatalf("%+v; want all 200 MiB and exit code 0", got)
	}
	rss1, err := procstatus.Bytes(procstatus.Self, "VmRSS")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("launcher: resident %d -> %d MiB, heap in use %d -> peak %d MiB", rss0>>20, rss1>>20, heap0>>20, peakHeap>>20)
	if grew := rss1 - rss0; grew > 64<<20 {
		t.Errorf("the launcher's resident memory grew by %d MiB passing 200 MiB; want under 64", grew>>20)
	}
	if grew := int64(peakHeap) - int64(heap0); grew > 32<<20 {
		t.Errorf("the launcher's heap grew by %d MiB at its peak passing 200 MiB; want under 32", grew>>20)
	}
}
