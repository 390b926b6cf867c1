package store

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/airvsx/airvsx/internal/copybuf"
)

// The helpers below read one catalog entry out of any Store, verified;
// sync, verify, the site and the installer all use them.

// ReadBlob reads a whole blob through the verifying reader; a blob of more
// than max bytes is refused before a byte is read.
func ReadBlob(ctx context.Context, s Store, repo, digest string, size, max int64) ([]byte, error) {
	if size > max {
		return nil, fmt.Errorf("blob %s in %s: %d bytes, more than the %d read: %w", digest, repo, size, max, ErrTooLarge)
	}
	rc, err := s.OpenBlob(ctx, repo, digest, size)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// OpenBlobAt opens a blob for random access (a zip reader needs an
// io.ReaderAt) after checking it: the bytes are read once through the
// verifying reader, every byte also written to also (nil for none: the
// Ed25519 check of an upstream signature, say), and the file is returned
// at offset 0 only when size and digest matched. A directory store gives
// the blob's own file, read again; other stores spool it to a temporary
// file in tmpDir ("" for the system's) that is removed at once, so it
// vanishes with the returned file. The caller closes the file.
func OpenBlobAt(ctx context.Context, s Store, repo, digest string, size int64, also io.Writer, tmpDir string) (*os.File, error) {
	if bf, ok := As[BlobFiler](s); ok {
		f, err := bf.OpenBlobFile(ctx, repo, digest)
		if err != nil {
			return nil, err
		}
		if err := checkFile(ctx, f, repo, digest, size, also); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}
	rc, err := s.OpenBlob(ctx, repo, digest, size)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	dst, err := os.CreateTemp(tmpDir, "airvsx-blob-*")
	if err != nil {
		return nil, fmt.Errorf("spool blob %s: %w", digest, err)
	}
	os.Remove(dst.Name())
	w := io.Writer(dst)
	if also != nil {
		w = io.MultiWriter(dst, also)
	}
	if _, err := copybuf.Copy(w, rc); err != nil {
		dst.Close()
		return nil, err
	}
	if _, err := dst.Seek(0, io.SeekStart); err != nil {
		dst.Close()
		return nil, err
	}
	return dst, nil
}

// checkFile hashes f (size bytes from offset 0) and rewinds it.
func checkFile(ctx context.Context, f *os.File, repo, digest string, size int64, also io.Writer) error {
	w := io.Discard
	if also != nil {
		w = also
	}
	if _, err := copybuf.Copy(w, VerifyReader(ctx, io.NopCloser(f), repo, digest, size)); err != nil {
		return err
	}
	_, err := f.Seek(0, io.SeekStart)
	return err
}
