package flock

import (
	"errors"
	"fmt"
	"os"
)

// ErrHeld is returned by Try when another process holds the lock.
var ErrHeld = errors.New("held by another process")

// TryLock takes an exclusive advisory lock on f without waiting. When
// another process holds it, the error names f and wraps held. A file
// system (or a system) without flock is not an error: the lock is
// advisory, and there one writer at a time is the caller's business.
func TryLock(f *os.File, held error) error {
	err := Try(f)
	switch {
	case err == nil, errors.Is(err, errors.ErrUnsupported):
		return nil
	case errors.Is(err, ErrHeld):
		return fmt.Errorf("%s: %w", f.Name(), held)
	}
	return fmt.Errorf("lock %s: %w", f.Name(), err)
}
