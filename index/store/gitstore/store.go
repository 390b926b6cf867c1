package gitstore

import (
	"context"
	"crypto"
	"io/fs"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/airvsx/airvsx/index/store"
)

// Store is a registry in a git repository; see the package comment. A
// Store is safe for concurrent use by multiple goroutines.
//
// Every Store method's arguments and the read-only refusal (a store not
// opened with Options.Write) are checked by store.Checked before the
// repository is touched: Open returns the store wrapped, and the
// unchecked one is not reachable.
type Store struct {
	store.Store // the checked gitStore
	g           *gitStore
}

var (
	_ store.Store     = (*Store)(nil)
	_ store.LayoutFS  = (*Store)(nil)
	_ store.Discarder = (*Store)(nil)
	_ store.Committer = (*Store)(nil)
	_ store.History   = (*Store)(nil)
)

// Open opens the registry in the git repository at path (a work tree
// holding .git, or a bare repository), or creates one (opts.Create).
func Open(path string, opts Options) (*Store, error) {
	g, err := openGit(path, opts)
	if err != nil {
		return nil, err
	}
	return &Store{Store: store.Checked(g, !opts.Write), g: g}, nil
}

// Commit implements store.Committer (see gitStore.Commit).
func (s *Store) Commit(ctx context.Context, message string) error {
	return s.g.Commit(ctx, message)
}

// Revision implements store.History: the commit read.
func (s *Store) Revision() string { return s.g.Revision() }

// CheckSignature implements store.History (see gitStore.CheckSignature).
func (s *Store) CheckSignature(ctx context.Context, keys []crypto.PublicKey) error {
	return s.g.CheckSignature(ctx, keys)
}

// Descends implements store.History (see gitStore.Descends).
func (s *Store) Descends(ctx context.Context, old string) (bool, error) {
	return s.g.Descends(ctx, old)
}

// Parent returns the parent of the commit read (see gitStore.Parent).
func (s *Store) Parent() (string, error) { return s.g.Parent() }

// FS implements store.LayoutFS: the tree of the commit read.
func (s *Store) FS() fs.FS { return s.g.FS() }

// Discard implements store.Discarder (see gitStore.Discard).
func (s *Store) Discard() (bool, error) { return s.g.Discard() }

// Path returns the repository's path as given to Open.
func (s *Store) Path() string { return s.g.Path() }

// GitDir returns the repository's git directory.
func (s *Store) GitDir() string { return s.g.GitDir() }

// Head returns the commit read; the zero hash when there is none.
func (s *Store) Head() plumbing.Hash { return s.g.Head() }

// ImportDir writes a directory registry's tree into the store (see
// gitStore.ImportDir).
func (s *Store) ImportDir(ctx context.Context, fsys fs.FS) error {
	return s.g.ImportDir(ctx, fsys)
}
