//go:build unix

package verify

import (
	"os"
	"syscall"
)

// mapFile maps size bytes of f read-only; release unmaps them.
func mapFile(f *os.File, size int64) (data []byte, release func(), err error) {
	if size == 0 || int64(int(size)) != size {
		return nil, nil, syscall.EINVAL
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() { syscall.Munmap(data) }, nil
}
