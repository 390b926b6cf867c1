//go:build !unix

package tempdir

import (
	"errors"
	"io/fs"
	"os"
)

// tryLock cannot lock here: nothing is swept.
func tryLock(*os.File) error { return errors.ErrUnsupported }

// ownedByMe cannot tell the owner here: nothing is swept.
func ownedByMe(fs.FileInfo) bool { return false }
