// Command hostprobe is a tool of the extension host's tests
// (hostlaunch/sandbox), built by them without the race detector, whose
// shadow memory would make what they measure meaningless:
//
//	hostprobe flood KIND EXTDIR URL WORKSPACE STORAGE
//
// is a launcher, as airvsx run is one: it starts the flooding extension in
// EXTDIR (network granted for URL's host) in a sandboxed host, runs its
// command flood.KIND (fs: 400 unawaited reads of WORKSPACE/big.bin; fetch:
// 150 unawaited fetches of URL/big) and prints the command's result with
// its own peak resident memory (VmHWM) as peakMiB, as JSON;
//
//	hostprobe hog
//
// maps 1 GiB of shared memory (which RLIMIT_DATA does not count), touches
// it and waits: a brokered program only the launcher's memory watchdog
// stops.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/airvsx/airvsx/hostlaunch/host"
	"github.com/airvsx/airvsx/hostlaunch/netbroker"
	"github.com/airvsx/airvsx/hostlaunch/sandbox"
	"github.com/airvsx/airvsx/internal/procstatus"
)

func main() {
	sandbox.Helper() // the sandbox helper mode: never returns when selected
	var err error
	switch {
	case len(os.Args) == 7 && os.Args[1] == "flood":
		err = flood(os.Args[2], os.Args[3], os.Args[4], os.Args[5], os.Args[6])
	case len(os.Args) == 2 && os.Args[1] == "hog":
		err = hog()
	default:
		err = errors.New("usage: hostprobe flood KIND EXTDIR URL WORKSPACE STORAGE | hostprobe hog")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostprobe:", err)
		os.Exit(2)
	}
}

// flood runs one flood and prints its result with the launcher's peak.
func flood(kind, dir, url, ws, storage string) error {
	sb, err := sandbox.New(sandbox.Options{})
	if err != nil {
		return err
	}
	e := host.Extension{ID: "a.flood", Path: dir, Main: "./extension.js", ActivationEvents: []string{"onCommand:flood.fs", "onCommand:flood.fetch"},
		Capabilities: []string{"network"}, AllowedHosts: []string{strings.TrimPrefix(url, "http://")}}
	ctx := context.Background()
	h, err := host.Launch(ctx, host.Options{Extensions: []host.Extension{e}, Workspace: []string{ws}, StorageDir: storage,
		Command: sb.Command, Spawn: sb.Spawn, Fetch: netbroker.New(netbroker.Options{})})
	if err != nil {
		return err
	}
	defer h.Close(ctx)
	args := []any{filepath.Join(ws, "big.bin"), 400}
	if kind == "fetch" {
		args = []any{url + "/big", 150}
	}
	r, err := h.ExecuteCommand(ctx, "flood."+kind, args...)
	if err != nil {
		return err
	}
	var out map[string]any
	if err := json.Unmarshal(r.Value, &out); err != nil {
		return err
	}
	// The launcher's own peak (its rusage would count node's too).
	peak, err := procstatus.Bytes(procstatus.Self, "VmHWM")
	if err != nil {
		return err
	}
	out["peakMiB"] = peak >> 20
	return json.NewEncoder(os.Stdout).Encode(out)
}

// hog maps and touches 1 GiB of shared memory, then waits.
func hog() error {
	b, err := unix.Mmap(-1, 0, 1<<30, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANONYMOUS)
	if err != nil {
		return fmt.Errorf("mmap: %w", err)
	}
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	fmt.Println("touched 1 GiB")
	time.Sleep(time.Minute)
	return nil
}
