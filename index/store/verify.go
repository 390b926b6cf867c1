package store

import (
	"context"
	"crypto/sha256"
	"hash"
	"io"

	"github.com/airvsx/airvsx/index"
)

// VerifyReader returns a reader of rc that checks the content against
// digest and size: it hashes while reading, never reads more than size + 1
// bytes from rc, returns a *MismatchError (for repo) instead of io.EOF when
// the content differs, and fails with ctx's error once ctx is done. Close
// closes rc. Stores use it for OpenBlob.
func VerifyReader(ctx context.Context, rc io.ReadCloser, repo, digest string, size int64) io.ReadCloser {
	return &verifyReader{ctx: ctx, r: io.LimitReader(rc, size+1), c: rc, h: sha256.New(), repo: repo, digest: digest, size: size}
}

type verifyReader struct {
	ctx    context.Context // the context of the OpenBlob call, as in http.Response.Body
	r      io.Reader
	c      io.Closer
	h      hash.Hash
	n      int64
	repo   string
	digest string
	size   int64
	err    error // sticky
}

func (v *verifyReader) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	if err := v.ctx.Err(); err != nil {
		v.err = err
		return 0, err
	}
	n, err := v.r.Read(p)
	v.h.Write(p[:n])
	v.n += int64(n)
	if v.n > v.size {
		n -= int(v.n - v.size) // never hand out bytes past the size
		v.err = &MismatchError{Repo: v.repo, Digest: v.digest, Size: v.size, GotSize: v.size + 1}
		return n, v.err
	}
	if err == io.EOF {
		if got := index.DigestOfSum(v.h.Sum(nil)); v.n != v.size || got != v.digest {
			err = &MismatchError{Repo: v.repo, Digest: v.digest, Size: v.size, GotSize: v.n, GotDigest: got}
		}
	}
	if err != nil {
		v.err = err
	}
	return n, err
}

func (v *verifyReader) Close() error { return v.c.Close() }
