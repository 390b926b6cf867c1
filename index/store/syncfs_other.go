//go:build !linux

package store

import (
	"errors"
	"os"
)

// syncFS is syncfs(2), which only Linux has: elsewhere each file and
// directory is fsynced.
func syncFS(*os.Root) error { return errors.ErrUnsupported }

// startWriteback does nothing where sync_file_range is missing.
func startWriteback(*os.File) {}
