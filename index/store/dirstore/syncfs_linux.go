package dirstore

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

// freeSpaceAt returns the bytes of the file system that holds path that
// an unprivileged writer may still use, and its block size (statfs(2)).
func freeSpaceAt(path string) (free, block int64, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, 0, &os.PathError{Op: "statfs", Path: path, Err: err}
	}
	return int64(st.Bavail) * int64(st.Bsize), int64(st.Bsize), nil
}

// startWriteback starts writing f's dirty pages to disk and returns
// without waiting (sync_file_range with SYNC_FILE_RANGE_WRITE). It is a
// hint: durability still comes from an fsync or syncfs.
func startWriteback(f *os.File) {
	_ = unix.SyncFileRange(int(f.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
}
