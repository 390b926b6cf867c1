//go:build unix

package install

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockDir takes an exclusive advisory lock on the directory itself
// without waiting, so that the lock leaves no file behind. A file system
// without flock support is not an error: the lock is advisory.
func lockDir(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return fmt.Errorf("%s: %w", f.Name(), ErrLocked)
	case errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.EINVAL):
		return nil
	}
	return fmt.Errorf("lock %s: %w", f.Name(), err)
}
