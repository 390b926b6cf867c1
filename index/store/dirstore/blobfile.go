package dirstore

import (
	"context"
	"fmt"
	"io/fs"
	"os"

	"github.com/airvsx/airvsx/index/store"
)

// OpenBlobFile opens a blob's file for random access, for readers that
// need an io.ReaderAt (a zip reader) or a memory map. Unlike OpenBlob it
// does not verify the content: the caller must check the size and the
// digest itself before trusting a byte. Names are checked as OpenBlob
// checks them, only a regular file is opened and a final symlink is never
// followed. A missing blob is an error wrapping fs.ErrNotExist.
func (d *dirStore) OpenBlobFile(ctx context.Context, repo, digest string) (*os.File, error) {
	if err := store.CheckBlobArgs(ctx, repo, digest); err != nil {
		return nil, fmt.Errorf("open blob: %w", err)
	}
	f, err := d.openRegularCached(blobPath(repo, digest))
	if err != nil {
		return nil, fmt.Errorf("open blob %s in %s: %w", digest, repo, err)
	}
	return f, nil
}

// FS returns the registry directory as a read-only file system, for
// readers that check the layout itself (files it has no place for). Like
// every access of a Store it cannot leave the directory.
func (d *dirStore) FS() fs.FS { return newRootFS(d.root) }
