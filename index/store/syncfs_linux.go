package store

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncFS makes every file and directory of the file system that holds
// root durable (syncfs(2)), and waits for it.
func syncFS(root *os.Root) error {
	f, err := root.Open(".")
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}

// startWriteback starts writing f's dirty pages to disk and returns
// without waiting (sync_file_range with SYNC_FILE_RANGE_WRITE). It is a
// hint: durability still comes from an fsync or syncfs.
func startWriteback(f *os.File) {
	_ = unix.SyncFileRange(int(f.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
}
