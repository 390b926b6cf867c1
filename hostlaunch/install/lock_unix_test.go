//go:build unix

package install_test

import (
	"errors"
	"os"
	"syscall"
	"testing"

	"github.com/airvsx/airvsx/hostlaunch/install"
)

func TestLocked(t *testing.T) {
	opts := options(t)
	if err := os.Mkdir(opts.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(opts.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Skipf("flock: %v", err)
	}
	_, err = install.FromFile(t.Context(), writePkg(t, "ok", "x", "1.0.0", nil, nil), opts)
	if !errors.Is(err, install.ErrLocked) {
		t.Errorf("install while locked = %v; want ErrLocked", err)
	}
}
