package flock

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// TryShared takes a shared open-file-description lock (fcntl
// F_OFD_SETLK, F_RDLCK) on the whole of f without waiting: the lock of a
// registry's readers, which a garbage collection waits on (TryExclusive).
// It returns ErrHeld while another holds the exclusive lock, and
// errors.ErrUnsupported where the file system has no such locks. OFD
// locks and flock(2) do not interfere on Linux, so a writer's flock on
// the same file is no conflict. Closing the file releases the lock.
func TryShared(f *os.File) error { return ofdLock(f, unix.F_RDLCK) }

// TryExclusive takes the exclusive OFD lock on the whole of f without
// waiting: ErrHeld while any reader holds a shared one (TryShared). f
// must be open for writing.
func TryExclusive(f *os.File) error { return ofdLock(f, unix.F_WRLCK) }

// Unlock releases an OFD lock taken on f.
func Unlock(f *os.File) error { return ofdLock(f, unix.F_UNLCK) }

func ofdLock(f *os.File, typ int16) error {
	lk := unix.Flock_t{Type: typ, Whence: 0, Start: 0, Len: 0}
	err := unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EACCES):
		return ErrHeld
	case errors.Is(err, unix.ENOLCK), errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOTSUP):
		return errors.ErrUnsupported
	}
	return err
}
