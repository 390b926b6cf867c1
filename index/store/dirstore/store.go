package dirstore

import (
	"context"
	"io/fs"
	"os"

	"github.com/airvsx/airvsx/index/store"
)

// Store is the directory store: a registry in a local directory.
//
//	<root>/airvsx-registry               marker: {"kind":"airvsx-registry","format":1}
//	<root>/metadata/<name>               TUF metadata and the catalog
//	<root>/extensions/<ns>/<name>/       one OCI image layout per extension:
//	    oci-layout                       {"imageLayoutVersion":"1.0.0"}
//	    index.json                       an OCI image index, one manifest per tag (ref.name), sorted by tag
//	    blobs/sha256/<hex>               blobs, manifests included
//	<root>/quarantine/<name>[.N]/        rejected files, REASON and reason.json
//	<root>/pending/<writer>.json          what an unfinished copy or sync is writing (gc keeps it)
//
// Every write goes to a temp file (".tmp-*") in the target's directory, is
// hashed while copied, fsynced, checked, renamed into place, and the
// directory fsynced (for blobs, the file and its directory are made
// durable together before the first tag or metadata write that can name
// them, not once per blob); index.json is replaced the same way, so
// readers see the old file or the new. A writer holds an advisory lock (flock,
// on Unix) on the directory, taken before the marker is read or written, so
// that of two writers creating a registry at once one wins, and on the marker
// file; so one process writes at a time, and on open it
// removes the ".tmp-*" files a killed run left behind; readers ignore
// them. All access goes through os.Root, so nothing in the directory
// (symlinks included) can lead outside it, and only regular files are
// read.
//
// A Store is safe for concurrent use by multiple goroutines.
//
// Every Store method's arguments and the read-only refusal are checked by
// store.Checked before the directory is touched: Open returns the store
// wrapped, and the unchecked one is not reachable.
type Store struct {
	store.Store // the checked dirStore
	d           *dirStore
}

var (
	_ store.Store          = (*Store)(nil)
	_ store.BlobFiler      = (*Store)(nil)
	_ store.BlobReplacer   = (*Store)(nil)
	_ store.LayoutRepairer = (*Store)(nil)
	_ store.FreeSpacer     = (*Store)(nil)
	_ store.LayoutFS       = (*Store)(nil)
	_ store.Discarder      = (*Store)(nil)
	_ store.Stager         = (*Store)(nil)
	_ store.BlobDeleter    = (*Store)(nil)
	_ store.PendingWriter  = (*Store)(nil)
)

// Open opens the registry in the directory at path (or creates one, with
// opts.Create). Writers take the registry's lock and fail with
// store.ErrLocked while another process holds it.
func Open(path string, opts Options) (*Store, error) {
	d, err := openDir(path, opts)
	if err != nil {
		return nil, err
	}
	return &Store{Store: store.Checked(d, opts.ReadOnly), d: d}, nil
}

// Path returns the registry's directory as given to Open.
func (s *Store) Path() string { return s.d.Path() }

// OpenBlobFile implements store.BlobFiler: the blob's own file, only a
// regular file, a final symlink never followed. Names are checked as
// OpenBlob checks them.
func (s *Store) OpenBlobFile(ctx context.Context, repo, digest string) (*os.File, error) {
	return s.d.OpenBlobFile(ctx, repo, digest)
}

// FS implements store.LayoutFS: the registry directory, read-only; like
// every access of a Store it cannot leave the directory.
func (s *Store) FS() fs.FS { return s.d.FS() }

// RepoFS returns the directory of repository repo (extensions/<repo>) as
// a read-only file system, and the function that releases it once read:
// the subtree of FS, which it reads faster, since each path is resolved
// from the repository's directory instead of the registry's. Like every
// access of a Store it cannot leave the directory.
func (s *Store) RepoFS(repo string) (fs.FS, func(), error) { return s.d.repoFS(repo) }

// ReplaceBlob implements store.BlobReplacer (see dirStore.ReplaceBlob).
func (s *Store) ReplaceBlob(ctx context.Context, repo, digest string, size int64, reason string, c store.Content) (string, error) {
	return s.d.ReplaceBlob(ctx, repo, digest, size, reason, c)
}

// CheckLayout implements store.LayoutRepairer (see dirStore.CheckLayout).
func (s *Store) CheckLayout(ctx context.Context, repo string) error {
	return s.d.CheckLayout(ctx, repo)
}

// ReplaceLayout implements store.LayoutRepairer (see
// dirStore.ReplaceLayout).
func (s *Store) ReplaceLayout(ctx context.Context, repo, reason string) (string, error) {
	return s.d.ReplaceLayout(ctx, repo, reason)
}

// FreeSpace implements store.FreeSpacer for the registry's file system.
func (s *Store) FreeSpace() (free, block int64, err error) { return s.d.FreeSpace() }

// Discard implements store.Discarder (see dirStore.Discard).
func (s *Store) Discard() (bool, error) { return s.d.Discard() }

// NewStaging implements store.Stager: a staging directory inside the
// registry, on its file system. Remove it when done.
func (s *Store) NewStaging() (store.Staging, error) { return s.d.NewStaging() }

// Blobs implements store.BlobDeleter: repo's blob files, sorted.
func (s *Store) Blobs(ctx context.Context, repo string) ([]store.BlobInfo, error) {
	return s.d.Blobs(ctx, repo)
}

// DeleteBlob implements store.BlobDeleter: the blob's file removed,
// durably.
func (s *Store) DeleteBlob(ctx context.Context, repo, digest string) (int64, error) {
	return s.d.DeleteBlob(ctx, repo, digest)
}

// DeleteRepo implements store.BlobDeleter: an empty repository's
// directory removed, durably.
func (s *Store) DeleteRepo(ctx context.Context, repo string) error { return s.d.DeleteRepo(ctx, repo) }

// ExcludeReaders implements store.BlobDeleter with an exclusive OFD lock
// on the marker file, which read-only stores hold shared (Linux;
// elsewhere it does not wait).
func (s *Store) ExcludeReaders(ctx context.Context, waiting func()) (func() error, error) {
	return s.d.ExcludeReaders(ctx, waiting)
}

// BeginPending implements store.PendingWriter: pending/<name>.json.
func (s *Store) BeginPending(ctx context.Context, name string, repos []string) error {
	return s.d.BeginPending(ctx, name, repos)
}

// EndPending implements store.PendingWriter.
func (s *Store) EndPending(ctx context.Context, name string) error { return s.d.EndPending(ctx, name) }

// Pending implements store.PendingWriter.
func (s *Store) Pending(ctx context.Context) ([]store.PendingRecord, error) { return s.d.Pending(ctx) }
