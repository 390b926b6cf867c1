package verify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"runtime/debug"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/vsix"
)

// bufSize is each worker's read buffer: large enough for few system
// calls, small enough that memory stays flat (one per worker).
const bufSize = 1 << 20

// hasher is one worker's reusable buffer and hash state.
type hasher struct {
	buf    []byte
	sha256 hash.Hash
}

func newHasher() *hasher {
	return &hasher{buf: make([]byte, bufSize), sha256: sha256.New()}
}

// blob reads a blob through the store's verifying reader to its end and
// returns the bytes read; a content mismatch is a *store.MismatchError.
func (h *hasher) blob(ctx context.Context, st store.Store, repo, digest string, size int64) (int64, error) {
	rc, err := st.OpenBlob(ctx, repo, digest, size)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	return io.CopyBuffer(io.Discard, struct{ io.Reader }{rc}, h.buf)
}

// maxMapped is the largest file hashed through a memory map instead of
// read calls (which copy every byte once more). Mapped pages count in the
// process's resident memory while mapped, so the limit bounds what the
// workers hold at once: Workers × maxMapped.
const maxMapped = 16 << 20

// hashFile hashes the file f of size bytes like file, through a memory
// map when it is small enough. A fault on the mapping (the file truncated
// while mapped) becomes an error, not a crash.
func (h *hasher) hashFile(ctx context.Context, f *os.File, size int64, ed *vsix.UpstreamVerifier) (n int64, sum string, err error) {
	if size > maxMapped {
		return h.file(ctx, f, size, ed)
	}
	data, release, err := mapFile(f, size)
	if err != nil {
		return h.file(ctx, f, size, ed)
	}
	defer release()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			n, sum, err = 0, "", fmt.Errorf("read %s: fault while reading the mapped file (changed while verified?): %v", f.Name(), r)
		}
	}()
	h.sha256.Reset()
	for off := int64(0); off < size; off += bufSize {
		if err := ctx.Err(); err != nil {
			return off, "", err
		}
		chunk := data[off:min(off+bufSize, size)]
		h.sha256.Write(chunk)
		if ed != nil {
			ed.Write(chunk)
		}
	}
	return size, "sha256:" + hex.EncodeToString(h.sha256.Sum(nil)), nil
}

// file reads size bytes of r from the start once, hashing them with
// sha256 and feeding them to ed (when not nil). It returns the bytes read
// and "sha256:<hex>".
func (h *hasher) file(ctx context.Context, r io.ReaderAt, size int64, ed *vsix.UpstreamVerifier) (int64, string, error) {
	h.sha256.Reset()
	var off int64
	for off < size {
		if err := ctx.Err(); err != nil {
			return off, "", err
		}
		n, err := r.ReadAt(h.buf[:min(int64(len(h.buf)), size-off)], off)
		if n > 0 {
			h.sha256.Write(h.buf[:n])
			if ed != nil {
				ed.Write(h.buf[:n])
			}
			off += int64(n)
		}
		if err == io.EOF && off < size {
			return off, "", io.ErrUnexpectedEOF
		}
		if err != nil && err != io.EOF {
			return off, "", err
		}
	}
	return off, "sha256:" + hex.EncodeToString(h.sha256.Sum(nil)), nil
}
