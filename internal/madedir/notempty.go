package madedir

import (
	"errors"
	"syscall"
)

// isNotEmpty reports whether err is rmdir's "directory not empty".
func isNotEmpty(err error) bool {
	return errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)
}
