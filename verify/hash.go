package verify

import (
	"context"
	"crypto/sha256"
	"hash"
	"io"

	"github.com/airvsx/airvsx/index"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/vsix"
)

// bufSize is the size of each of a worker's two read buffers: large
// enough for few system calls, small enough that memory stays flat (two
// per worker).
//
// Files are read with pread, not mapped: on the virtual machines this was
// measured on, hashing a mapped page-cached file cost about 1.5× the CPU
// time of reading it into a buffer and hashing that (page faults and
// mapping changes are dear under a hypervisor), and a read needs no
// recovery from a fault when the file shrinks underneath.
const bufSize = 1 << 20

// hasher is one worker's reusable buffers and hash state. The buffers
// are made on first use: a run that reads no data (NoReadData) needs
// none.
type hasher struct {
	bufs   [2][]byte
	sha256 hash.Hash
}

func newHasher() *hasher {
	return &hasher{sha256: sha256.New()}
}

// buf returns buffer k (0 or 1), made on first use.
func (h *hasher) buf(k int) []byte {
	if h.bufs[k] == nil {
		h.bufs[k] = make([]byte, bufSize)
	}
	return h.bufs[k]
}

// blob reads a blob through the store's verifying reader to its end and
// returns the bytes read; a content mismatch is a *store.MismatchError.
func (h *hasher) blob(ctx context.Context, st store.Store, repo, digest string, size int64) (int64, error) {
	rc, err := st.OpenBlob(ctx, repo, digest, size)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	return io.CopyBuffer(io.Discard, struct{ io.Reader }{rc}, h.buf(0))
}

// file reads size bytes of r from the start once, hashing them with
// sha256 and writing them to ed (when not nil). It returns the bytes
// read and "sha256:<hex>".
//
// ed (the Ed25519 check's SHA-512, about twice as slow as the sha256)
// runs on its own goroutine, one chunk behind the sha256, so that one
// large file keeps two cores busy: chunk k is read into one buffer and
// hashed while ed consumes chunk k-1 from the other.
func (h *hasher) file(ctx context.Context, r io.ReaderAt, size int64, ed *vsix.UpstreamVerifier) (int64, string, error) {
	h.sha256.Reset()
	var side *sideWriter
	if ed != nil {
		side = newSideWriter(ed)
		defer side.stop()
	}
	var off int64
	for k := 0; off < size; k++ {
		if err := ctx.Err(); err != nil {
			return off, "", err
		}
		// The side writer is done with this buffer: it finished chunk
		// k-2 before it was handed chunk k-1.
		buf := h.buf(k % 2)
		n, err := r.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if n > 0 {
			if side != nil {
				side.write(buf[:n])
			}
			h.sha256.Write(buf[:n])
			off += int64(n)
		}
		if err == io.EOF && off < size {
			return off, "", io.ErrUnexpectedEOF
		}
		if err != nil && err != io.EOF {
			return off, "", err
		}
	}
	if side != nil {
		side.wait()
	}
	return off, index.DigestOfSum(h.sha256.Sum(nil)), nil
}

// sideWriter writes chunks to w on its own goroutine, one at a time.
type sideWriter struct {
	w       io.Writer
	todo    chan []byte
	done    chan struct{}
	pending bool // a chunk was handed over and not yet written
}

func newSideWriter(w io.Writer) *sideWriter {
	s := &sideWriter{w: w, todo: make(chan []byte), done: make(chan struct{})}
	go func() {
		for p := range s.todo {
			s.w.Write(p)
			s.done <- struct{}{}
		}
	}()
	return s
}

// write waits until the previous chunk is written, then hands p over;
// the caller must not change p until the next write or wait returns.
func (s *sideWriter) write(p []byte) {
	s.wait()
	s.todo <- p
	s.pending = true
}

// wait returns once every chunk handed over is written.
func (s *sideWriter) wait() {
	if s.pending {
		<-s.done
		s.pending = false
	}
}

// stop waits for the last chunk and ends the goroutine.
func (s *sideWriter) stop() {
	s.wait()
	close(s.todo)
}
