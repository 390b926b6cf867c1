package site

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps the directories a and b in one atomic step
// (renameat2 RENAME_EXCHANGE); on file systems without it, it falls back to
// three renames.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) {
		return exchangeByRenames(a, b)
	}
	return err
}
