//go:build unix

package safefile

import "syscall"

// nonblock makes an open of a FIFO that replaced the file after its type
// was checked return at once instead of waiting for a writer.
const nonblock = syscall.O_NONBLOCK
