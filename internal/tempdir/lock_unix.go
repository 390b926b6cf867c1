//go:build unix

package tempdir

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// tryLock takes an exclusive lock on f without waiting; errHeld when
// another process holds it, errors.ErrUnsupported where the file system
// has no locks (nothing is then ever swept).
func tryLock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return errHeld
	case errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.EINVAL):
		return errors.ErrUnsupported
	}
	return err
}

// ownedByMe reports whether this process's user owns fi.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
