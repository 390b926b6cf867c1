package gitstore

import (
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/airvsx/airvsx/index/store/artifact"
)

// BlobObject returns the git object of a blob, for tests that damage it.
func (s *gitStore) BlobObject(repo, digest string) (plumbing.Hash, bool, error) {
	return s.lookup(artifact.BlobName(repo, digest))
}

// RootTree returns the tree of the commit read.
func (s *gitStore) RootTree() (plumbing.Hash, error) {
	c, err := s.readCommit(s.Head())
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.TreeHash, nil
}

// BlobObject returns the git object of a blob, for tests that damage it.
func (s *Store) BlobObject(repo, digest string) (plumbing.Hash, bool, error) {
	return s.g.BlobObject(repo, digest)
}

// RootTree returns the tree of the commit read.
func (s *Store) RootTree() (plumbing.Hash, error) { return s.g.RootTree() }
