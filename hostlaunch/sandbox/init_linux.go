//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

// runInit is the helper as the init of its PID namespace. Everything the
// sandbox runs is its descendant, so when it ends the kernel kills them
// all, whatever process group or session they moved to; and no process
// in the namespace sees, or can signal, one outside it.
func runInit(hs *helperSpec) {
	if err := checkNetwork(); err != nil {
		fail(err)
	}
	if os.Getpid() != 1 {
		fail(fmt.Errorf("PID namespace: the helper is process %d, not 1", os.Getpid()))
	}
	if hs.Probe {
		os.Exit(0)
	}
	if len(hs.Exec) == 0 {
		fail(errors.New("nothing to exec"))
	}
	a := pathsOf(hs)
	exe, err := executables(hs.Exec[0])
	if err != nil {
		fail(err)
	}
	if err := checkRuntimeOutside(a, exe); err != nil {
		fail(err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		fail(fmt.Errorf("working directory: %w", err))
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		fail(fmt.Errorf("mount namespace: make / private: %w", err))
	}
	plan, err := rootPlan(hs, a)
	if err != nil {
		fail(err)
	}
	if err := buildRoot(plan); err != nil {
		fail(fmt.Errorf("private root: %w", err))
	}
	child, err := startStage2(hs, cwd)
	if err != nil {
		fail(err)
	}
	restrictInit(hs)
	os.Exit(reap(child))
}

// startStage2 starts the helper's second stage in the private root (its
// binary is reached through /proc/self/exe, its libraries are the
// runtime's), with the launcher's extra descriptors from 3. The init
// keeps none of them: the host's IPC channel is node's alone, so its end
// is the channel's end.
func startStage2(hs *helperSpec, cwd string) (pid int, err error) {
	next := *hs
	next.Cwd = cwd
	b, err := json.Marshal(next)
	if err != nil {
		return 0, fmt.Errorf("second stage: %w", err)
	}
	cmd := exec.Command("/proc/self/exe", execArg, string(b))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Dir = "/"
	for i := range hs.ExtraFDs {
		cmd.ExtraFiles = append(cmd.ExtraFiles, os.NewFile(uintptr(3+i), "inherited"))
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	for _, f := range cmd.ExtraFiles {
		f.Close()
	}
	if err != nil {
		return 0, fmt.Errorf("second stage: %w", err)
	}
	return cmd.Process.Pid, nil
}

// restrictInit takes from the init what it no longer needs once the
// second stage runs: its capabilities, every filesystem access (Landlock
// with no rule) and the system calls seccomp denies. It only waits now.
func restrictInit(hs *helperSpec) {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		fail(fmt.Errorf("init: clear ambient capabilities: %w", err))
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none [2]unix.CapUserData
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		fail(fmt.Errorf("init: drop capabilities: %w", err))
	}
	if !hs.SkipLandlock {
		cfg, err := landlockConfig(hs.LandlockABI)
		if err == nil {
			err = cfg.Restrict([]landlock.Rule{}...)
		}
		if err != nil {
			fail(fmt.Errorf("init: landlock: %w", err))
		}
	}
	if !hs.SkipSeccomp {
		if err := installSeccomp(); err != nil {
			fail(fmt.Errorf("init: seccomp: %w", err))
		}
	}
}

// reap waits for every process the init inherits until main ends, and
// returns main's status for the init's own: its exit code, or 128 plus
// the signal that killed it (an init cannot die of a signal it is sent
// from inside its namespace; the launcher knows which signals it sent).
// The signals the launcher sends to the process group reach main
// directly; the init only swallows its copy.
func reap(main int) int {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGPIPE)
	go func() {
		for range sigs {
		}
	}()
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return helperExit // no child left: main was never seen to end
		}
		if pid != main {
			continue // an orphan the namespace left to its init
		}
		if ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ws.ExitStatus()
	}
}
