//go:build linux

package gitstore

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// noteWritten records an object file for syncObjects: nothing to do on
// Linux.
func (s *gitStore) noteWritten(string) {}

// syncObjects makes every object written so far durable: one syncfs(2)
// of the file system holding the repository, rather than an fsync per
// object (git's core.fsyncMethod=batch also syncs once per batch).
func (s *gitStore) syncObjects() error {
	f, err := os.Open(filepath.Join(s.gitDir, "objects"))
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}
