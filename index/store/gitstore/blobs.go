package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
)

// The tree's fixed names (as the directory store's).
const (
	metadataDir   = "metadata"
	extensionsDir = "extensions"
	quarantineDir = "quarantine"
	indexFile     = "index.json"
	layoutFile    = "oci-layout"
	ociLayout     = `{"imageLayoutVersion":"1.0.0"}`
)

func repoDir(repo string) string { return extensionsDir + "/" + repo }

// objectSize returns the size of the blob object h.
func (s *gitStore) objectSize(h plumbing.Hash) (int64, error) {
	n, err := s.st.EncodedObjectSize(h)
	if err != nil {
		return 0, fmt.Errorf("object %s: %w", h, err)
	}
	return n, nil
}

// StatBlob returns the size of a blob.
func (s *gitStore) StatBlob(ctx context.Context, repo, digest string) (int64, error) {
	h, ok, err := s.lookup(artifact.BlobName(repo, digest))
	if err == nil && !ok {
		err = notExist("no such blob")
	}
	if err != nil {
		return 0, fmt.Errorf("stat blob %s in %s: %w", digest, repo, err)
	}
	n, err := s.objectSize(h)
	if err != nil {
		return 0, fmt.Errorf("stat blob %s in %s: %w", digest, repo, err)
	}
	return n, nil
}

// PutBlob writes the content as a loose object, streamed and verified
// (see the package comment), and adds it to the change. A blob present
// with that size is kept and c is not read.
func (s *gitStore) PutBlob(ctx context.Context, repo, digest string, size int64, c store.Content) error {
	if n, err := s.StatBlob(ctx, repo, digest); err == nil && n == size {
		return nil
	}
	h, err := s.writeObject(ctx, plumbing.BlobObject, size, c, func(n int64, sum string) error {
		if n > size {
			return &store.MismatchError{Repo: repo, Digest: digest, Size: size, GotSize: n}
		}
		if n != size || sum != digest {
			return &store.MismatchError{Repo: repo, Digest: digest, Size: size, GotSize: n, GotDigest: sum}
		}
		return nil
	})
	if err == nil {
		err = s.ensureLayout(ctx, repo)
	}
	if err != nil {
		return fmt.Errorf("put blob %s in %s: %w", digest, repo, err)
	}
	s.mu.Lock()
	s.setPending(artifact.BlobName(repo, digest), h)
	s.mu.Unlock()
	return nil
}

// OpenBlob opens a blob for verified reading, streamed from its object.
func (s *gitStore) OpenBlob(ctx context.Context, repo, digest string, size int64) (io.ReadCloser, error) {
	return store.OpenVerified(ctx, repo, digest, size, func() (io.ReadCloser, int64, error) {
		h, ok, err := s.lookup(artifact.BlobName(repo, digest))
		if err == nil && !ok {
			err = notExist("no such blob")
		}
		if err != nil {
			return nil, 0, err
		}
		rc, size, err := s.openBlob(h)
		if err != nil {
			return nil, 0, fmt.Errorf("object %s: %w", h, err)
		}
		return rc, size, nil
	})
}

// readFile reads the regular file at path, at most max bytes; an error
// wrapping fs.ErrNotExist when absent, store.ErrTooLarge when larger.
func (s *gitStore) readFile(path string, max int64) ([]byte, error) {
	h, ok, err := s.lookup(path)
	if err == nil && !ok {
		err = notExist(path)
	}
	if err != nil {
		return nil, err
	}
	data, err := s.readBlob(h, max)
	if errors.Is(err, store.ErrTooLarge) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, err
}

// readBlob reads the blob h, at most max bytes (the object's size is
// checked before it is read).
func (s *gitStore) readBlob(h plumbing.Hash, max int64) ([]byte, error) {
	o, err := s.st.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", h, err)
	}
	if o.Size() > max {
		return nil, fmt.Errorf("%d bytes; at most %d allowed: %w", o.Size(), max, store.ErrTooLarge)
	}
	rc, err := o.Reader()
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", h, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", h, err)
	}
	if int64(len(data)) != o.Size() {
		return nil, fmt.Errorf("object %s: %d bytes; its header says %d: %w", h, len(data), o.Size(), ErrDamaged)
	}
	return data, nil
}

// ensureLayout makes repo an OCI image layout in the change if it is not
// one yet: oci-layout and an empty index.json.
func (s *gitStore) ensureLayout(ctx context.Context, repo string) error {
	s.idxMu.Lock()
	defer s.idxMu.Unlock()
	_, ok, err := s.lookup(repoDir(repo) + "/" + indexFile)
	if err != nil || ok {
		return err
	}
	idx, err := artifact.EncodeIndex(nil)
	if err != nil {
		return err
	}
	return s.putFiles(ctx, map[string][]byte{repoDir(repo) + "/" + layoutFile: []byte(ociLayout), repoDir(repo) + "/" + indexFile: idx})
}

// putFiles writes small files into the change.
func (s *gitStore) putFiles(ctx context.Context, files map[string][]byte) error {
	hashes := map[string]plumbing.Hash{}
	for p, data := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		h, err := s.writeBytes(data)
		if err != nil {
			return err
		}
		hashes[p] = h
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, h := range hashes {
		s.setPending(p, h)
	}
	return nil
}
