//go:build unix

package install_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/airvsx/airvsx/hostlaunch/install"
)

func TestLocked(t *testing.T) {
	opts := options(t)
	if err := os.Mkdir(opts.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lockDir(t, opts.Dir)
	_, err := install.FromFile(t.Context(), writePkg(t, "ok", "x", "1.0.0", nil, nil), opts)
	if !errors.Is(err, install.ErrLocked) {
		t.Errorf("install while locked = %v; want ErrLocked", err)
	}
}

// TestTidyLocked: while another install or uninstall holds the directory,
// its staging folder is in use: Tidy says so and leaves it.
func TestTidyLocked(t *testing.T) {
	opts := options(t)
	installOK(t, opts)
	staging := filepath.Join(opts.Dir, ".install-busy", "pkg-1")
	if err := os.MkdirAll(staging, 0o755); err != nil {
		t.Fatal(err)
	}
	lockDir(t, opts.Dir)
	got, err := install.Tidy(t.Context(), opts.Dir, install.DirOptions{})
	if err != nil || !got.Busy || len(got.Removed) != 0 {
		t.Errorf("Tidy while locked = %+v, %v; want busy, nothing removed", got, err)
	}
	if _, err := os.Stat(staging); err != nil {
		t.Errorf("the staging folder in use: %v", err)
	}
}

// lockDir holds dir's lock, as a running install or uninstall does,
// until the test ends (where flock is not available, the test is skipped).
func lockDir(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Skipf("flock: %v", err)
	}
}
