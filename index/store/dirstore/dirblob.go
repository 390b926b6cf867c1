package dirstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/internal/safefile"
)

// The blobs of a directory registry: where each lives, and reading,
// writing and replacing them, checked against their digest.

func repoDir(repo string) string { return extensionsDir + "/" + repo }

func blobPath(repo, digest string) string {
	return repoDir(repo) + "/blobs/sha256/" + strings.TrimPrefix(digest, "sha256:")
}

// StatBlob returns the size of a blob.
func (d *dirStore) StatBlob(ctx context.Context, repo, digest string) (int64, error) {
	fi, err := d.lstat(blobPath(repo, digest))
	if err != nil {
		return 0, fmt.Errorf("stat blob %s in %s: %w", digest, repo, err)
	}
	if !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("stat blob %s in %s: not a regular file (%s)", digest, repo, fi.Mode().Type())
	}
	return fi.Size(), nil
}

// PutBlob stores a blob crash-safely (see Store). A present blob of the right
// size is kept and c is not read; one of another size is replaced. A local
// write is not retried, so c is read once and never rewound.
func (d *dirStore) PutBlob(ctx context.Context, repo, digest string, size int64, c store.Content) error {
	p := blobPath(repo, digest)
	at, closeDir, err := d.blobDir(path.Dir(p))
	if err != nil {
		return fmt.Errorf("put blob %s in %s: %w", digest, repo, err)
	}
	defer closeDir()
	name := path.Base(p)
	if fi, err := at.root.Lstat(at.join(name)); err == nil && fi.Mode().IsRegular() && fi.Size() == size {
		return nil
	}
	err = d.writeDeferred(ctx, at, name, io.LimitReader(c, size+1), d.checkBlob(ctx, repo, digest, size))
	if err != nil {
		return fmt.Errorf("put blob %s in %s: %w", digest, repo, err)
	}
	return nil
}

// blobDir returns dir, a blob directory, made when missing and opened as
// a root of its own for the writes of one blob: the blob's Lstat, temp
// file and rename then each resolve one name instead of every component
// of the path (for a copy of many blobs, most of the system calls it
// made). It is open only while that blob is written, so no later write
// goes through a directory moved or removed meanwhile; the function
// returned closes it.
func (d *dirStore) blobDir(dir string) (dirAt, func(), error) {
	sub, err := d.root.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := d.root.MkdirAll(dir, 0o755); err != nil {
			return dirAt{}, nil, err
		}
		sub, err = d.root.OpenRoot(dir)
	}
	if err != nil {
		return dirAt{}, nil, err
	}
	return dirAt{root: sub, rel: ".", dir: dir}, func() { sub.Close() }, nil
}

// checkBlob returns the check of a blob's new file: size bytes whose
// digest is digest, in a repository whose layout exists before its first
// blob does.
func (d *dirStore) checkBlob(ctx context.Context, repo, digest string, size int64) func(n int64, sum string) error {
	return func(n int64, sum string) error {
		if n > size {
			return &store.MismatchError{Repo: repo, Digest: digest, Size: size, GotSize: n}
		}
		if n != size || sum != digest {
			return &store.MismatchError{Repo: repo, Digest: digest, Size: size, GotSize: n, GotDigest: sum}
		}
		return d.ensureLayout(ctx, repo)
	}
}

// ReplaceBlob replaces a stored blob whose bytes are not what its digest
// says (airvsx copy --repair). It reads the stored blob first and refuses
// one that is intact or absent: good content is never touched. The
// damaged file is then kept in the quarantine with reason (it is never
// deleted), and c, checked as PutBlob checks it, is renamed over it and
// made durable before ReplaceBlob returns. It returns where the damaged
// file went ("quarantine/damaged-blob-<hex>[.N]").
func (d *dirStore) ReplaceBlob(ctx context.Context, repo, digest string, size int64, reason string, c store.Content) (string, error) {
	if err := store.CheckPutBlobArgs(ctx, repo, digest, size); err != nil {
		return "", err
	}
	if err := d.writable(); err != nil {
		return "", fmt.Errorf("replace blob %s in %s: %w", digest, repo, err)
	}
	damage, err := store.BlobDamage(ctx, d, repo, digest, size)
	if err != nil {
		return "", fmt.Errorf("replace blob %s in %s: %w", digest, repo, err)
	}
	if damage == nil {
		return "", fmt.Errorf("replace blob %s in %s: it is intact; nothing to replace", digest, repo)
	}
	p := blobPath(repo, digest)
	f, err := openRegular(d.root, p)
	if err != nil {
		return "", fmt.Errorf("replace blob %s in %s: %w", digest, repo, err)
	}
	defer f.Close()
	hex := strings.TrimPrefix(digest, "sha256:")
	loc, err := d.Quarantine(ctx, "damaged-blob-"+hex, fmt.Sprintf("%s (%s, in %s): %v", reason, p, repo, damage), map[string]io.Reader{hex: f})
	if err != nil {
		return "", fmt.Errorf("replace blob %s in %s: keep the damaged file: %w", digest, repo, err)
	}
	if err := d.writeFile(ctx, path.Dir(p), path.Base(p), io.LimitReader(c, size+1), d.checkBlob(ctx, repo, digest, size)); err != nil {
		return loc, fmt.Errorf("replace blob %s in %s: %w", digest, repo, err)
	}
	return loc, nil
}

// OpenBlob opens a blob for verified reading. A stored size other than
// size fails at once with a *MismatchError.
func (d *dirStore) OpenBlob(ctx context.Context, repo, digest string, size int64) (io.ReadCloser, error) {
	return store.OpenVerified(ctx, repo, digest, size, func() (io.ReadCloser, int64, error) {
		return d.openReaderCached(blobPath(repo, digest))
	})
}

// openRegular opens name for reading if it is a regular file; it never
// opens a pipe or device, never blocks, and never follows a final symlink.
func openRegular(root *os.Root, name string) (*os.File, error) {
	f, _, err := safefile.OpenIn(root, name, -1)
	return f, err
}

// readRegular reads a regular file of at most max bytes (see openRegular).
func readRegular(root *os.Root, name string, max int64) ([]byte, error) {
	data, err := safefile.ReadIn(root, name, max)
	if errors.Is(err, safefile.ErrTooLarge) {
		return nil, fmt.Errorf("%w (%w)", err, store.ErrTooLarge)
	}
	return data, err
}
