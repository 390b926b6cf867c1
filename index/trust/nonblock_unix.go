//go:build unix

package trust

import "syscall"

// syscallNonblock opens without blocking on a FIFO that appeared between
// the type check and the open.
const syscallNonblock = syscall.O_NONBLOCK
