//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// probeBin is hostlaunch/internal/cmd/hostprobe, built once per test binary without
// the race detector (whose shadow memory would make a launcher's peak
// memory meaningless, and whose runtime cannot start under a brokered
// program's RLIMIT_DATA), static (it needs no ELF interpreter in a
// private root).
var probeBin struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

// hostprobe returns the path of the built hostprobe.
func hostprobe(tb testing.TB) string {
	tb.Helper()
	probeBin.once.Do(func() {
		goCmd, err := exec.LookPath("go")
		if err != nil {
			probeBin.err = err
			return
		}
		if probeBin.dir, probeBin.err = os.MkdirTemp("", "airvsx-hostprobe-"); probeBin.err != nil {
			return
		}
		probeBin.path = filepath.Join(probeBin.dir, "hostprobe")
		cmd := exec.Command(goCmd, "build", "-o", probeBin.path, "github.com/airvsx/airvsx/hostlaunch/internal/cmd/hostprobe")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		probeBin.out, probeBin.err = cmd.CombinedOutput()
	})
	if probeBin.err != nil {
		tb.Fatalf("go build hostlaunch/internal/cmd/hostprobe: %v\n%s", probeBin.err, probeBin.out)
	}
	return probeBin.path
}

// removeProbe removes the built hostprobe (TestMain, after the tests).
func removeProbe() {
	if probeBin.dir != "" {
		os.RemoveAll(probeBin.dir)
	}
}
