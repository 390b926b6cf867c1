package store

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/airvsx/airvsx/index"
)

// OpenVerified is the OpenBlob of every store: it checks the arguments
// (CheckBlobArgs, a size not negative), opens the blob with open, which
// returns its content and stored size, fails at once with a
// *MismatchError when that size is not size, and returns the content
// through VerifyReader. Errors name the blob.
func OpenVerified(ctx context.Context, repo, digest string, size int64, open func() (io.ReadCloser, int64, error)) (io.ReadCloser, error) {
	if err := CheckBlobArgs(ctx, repo, digest); err != nil {
		return nil, fmt.Errorf("open blob: %w", err)
	}
	if size < 0 {
		return nil, fmt.Errorf("open blob %s in %s: negative size %d", digest, repo, size)
	}
	rc, stored, err := open()
	if err != nil {
		return nil, fmt.Errorf("open blob %s in %s: %w", digest, repo, err)
	}
	if stored != size {
		rc.Close()
		return nil, &MismatchError{Repo: repo, Digest: digest, Size: size, GotSize: stored}
	}
	return VerifyReader(ctx, rc, repo, digest, size), nil
}

// BlobDamage reads a stored blob of s through its verifying reader (every
// byte): nil, nil when it is intact; the *MismatchError when its bytes
// or its size are not what digest and size say; any other failure
// (absent, unreadable) as the error.
func BlobDamage(ctx context.Context, s Store, repo, digest string, size int64) (*MismatchError, error) {
	rc, err := s.OpenBlob(ctx, repo, digest, size)
	if err == nil {
		_, err = io.Copy(io.Discard, rc)
		rc.Close()
	}
	var m *MismatchError
	if errors.As(err, &m) {
		return m, nil
	}
	return nil, err
}

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

// ContextReader returns a reader of r that fails once ctx is done, so
// that a store copying content it was given (PutBlob) stops with the
// call's context.
func ContextReader(ctx context.Context, r io.Reader) io.Reader { return ctxReader{ctx, r} }

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
