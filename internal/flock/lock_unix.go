//go:build unix

package flock

import (
	"errors"
	"os"
	"syscall"
)

// Try takes an exclusive advisory lock on f without waiting. It returns
// ErrHeld when another process holds it, errors.ErrUnsupported when the
// file system has no flock, and any other failure as it is.
func Try(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return ErrHeld
	case errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.EINVAL):
		return errors.ErrUnsupported
	}
	return err
}
