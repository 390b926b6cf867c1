package store

import (
	"context"
	"fmt"
	"io/fs"
	"os"
)

// BlobName returns where a blob of repo lives in a directory registry, as
// a slash path relative to the registry's root
// ("extensions/<ns>/<name>/blobs/sha256/<hex>"): the name reports give
// for the file. The names are not checked.
func BlobName(repo, digest string) string { return blobPath(repo, digest) }

// OpenBlobFile opens a blob's file for random access, for readers that
// need an io.ReaderAt (a zip reader) or a memory map. Unlike OpenBlob it
// does not verify the content: the caller must check the size and the
// digest itself before trusting a byte. Names are checked as OpenBlob
// checks them, only a regular file is opened and a final symlink is never
// followed. A missing blob is an error wrapping fs.ErrNotExist.
func (d *Dir) OpenBlobFile(ctx context.Context, repo, digest string) (*os.File, error) {
	if err := CheckBlobArgs(ctx, repo, digest); err != nil {
		return nil, fmt.Errorf("open blob: %w", err)
	}
	f, err := openRegular(d.root, blobPath(repo, digest))
	if err != nil {
		return nil, fmt.Errorf("open blob %s in %s: %w", digest, repo, err)
	}
	return f, nil
}

// FS returns the registry directory as a read-only file system, for
// readers that check the layout itself (files it has no place for). Like
// every access of a Dir it cannot leave the directory.
func (d *Dir) FS() fs.FS { return d.root.FS() }
