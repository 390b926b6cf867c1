//go:build !linux

package gitstore

import (
	"io/fs"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// fillStat sets an index entry's modification time and size.
func fillStat(e *index.Entry, fi fs.FileInfo) {
	e.ModifiedAt = fi.ModTime()
	e.Size = uint32(fi.Size())
}
