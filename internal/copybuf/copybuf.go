// Package copybuf copies streams through pooled buffers.
//
// Each io.CopyBuffer call with a fresh buffer asks the Go heap for new
// memory, which the kernel then faults in page by page while the copy
// fills it; a registry copy does that once per blob. The buffers here are
// reused across calls, so a copy of thousands of blobs touches a few
// buffers' worth of memory, which also stays in the CPU's cache while the
// same bytes are written and hashed.
package copybuf

import (
	"io"
	"sync"
)

// Size is the size of each buffer: large enough that each read and write
// system call moves a useful amount, small enough to stay in a core's L2
// cache between the read, the write and the hash of the same bytes.
const Size = 128 << 10

// pool holds the buffers. A sync.Pool is a cache, not state: what is in it
// never changes what a copy does.
var pool = sync.Pool{New: func() any { b := make([]byte, Size); return &b }}

// Copy copies src to dst as io.Copy does (using src's WriterTo or dst's
// ReaderFrom when they have one), through a pooled buffer otherwise.
func Copy(dst io.Writer, src io.Reader) (int64, error) {
	b := pool.Get().(*[]byte)
	defer pool.Put(b)
	return io.CopyBuffer(dst, src, *b)
}
