package host

import (
	"os"

	"golang.org/x/sys/unix"
)

// outQueue is how many bytes written to the socket f its peer has not
// read yet (SIOCOUTQ; for a Unix socket the memory they take, a little
// more than their count).
func outQueue(f *os.File) (int64, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var (
		n    int
		ierr error
	)
	if err := rc.Control(func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), unix.SIOCOUTQ) }); err != nil {
		return 0, err
	}
	return int64(n), ierr
}
