//go:build !linux

package dirstore

import (
	"errors"
	"os"
)

// syncFS is syncfs(2), which only Linux has: elsewhere each file and
// directory is fsynced.
func syncFS(*os.Root) error { return errors.ErrUnsupported }

// freeSpaceAt is not asked for where statfs is not used: copy then does
// not check the space before it writes.
func freeSpaceAt(string) (free, block int64, err error) { return 0, 0, errors.ErrUnsupported }

// startWriteback does nothing where sync_file_range is missing.
func startWriteback(*os.File) {}
