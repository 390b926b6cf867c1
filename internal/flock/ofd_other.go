//go:build !linux

package flock

import (
	"errors"
	"os"
)

// TryShared cannot lock without Linux's OFD locks: errors.ErrUnsupported.
func TryShared(*os.File) error { return errors.ErrUnsupported }

// TryExclusive cannot lock without Linux's OFD locks:
// errors.ErrUnsupported.
func TryExclusive(*os.File) error { return errors.ErrUnsupported }

// Unlock has nothing to release without Linux's OFD locks.
func Unlock(*os.File) error { return nil }
