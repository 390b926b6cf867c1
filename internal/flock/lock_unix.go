//go:build unix

package flock

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// TryLock takes an exclusive advisory lock on f without waiting. When
// another process holds it, the error names f and wraps held. A file
// system without flock support is not an error: the lock is advisory.
func TryLock(f *os.File, held error) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return fmt.Errorf("%s: %w", f.Name(), held)
	case errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.EINVAL):
		return nil
	}
	return fmt.Errorf("lock %s: %w", f.Name(), err)
}
