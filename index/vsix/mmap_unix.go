//go:build unix

package vsix

import (
	"os"
	"syscall"
)

// mmapFile maps f read-only; release unmaps it.
func mmapFile(f *os.File) ([]byte, func(), error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() == 0 {
		return []byte{}, func() {}, nil
	}
	if int64(int(fi.Size())) != fi.Size() {
		return readAllFile(f)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return readAllFile(f)
	}
	return data, func() { _ = syscall.Munmap(data) }, nil
}
