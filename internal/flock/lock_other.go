//go:build !unix

package flock

import (
	"errors"
	"os"
)

// Try cannot lock where flock is missing: errors.ErrUnsupported.
func Try(*os.File) error { return errors.ErrUnsupported }
