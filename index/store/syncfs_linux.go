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
