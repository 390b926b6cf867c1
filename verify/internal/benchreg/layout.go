package benchreg

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/internal/copybuf"
)

// layoutWriter writes entries into a directory registry's extensions/
// tree in the directory store's exact layout (see dirstore.Store: one OCI
// image layout per repository, blobs under blobs/sha256/, index.json as
// artifact.TagIndex makes it), but as a bulk loader: each file is written
// once, in place, and never fsynced. It is for benchmark data only,
// where durability is not needed and a crash means making the registry
// again. Only what storing an entry needs is implemented (StatBlob,
// PutBlob, Tag); the rest fails with errors.ErrUnsupported. Each
// repository must be written by one goroutine at a time. It writes
// through plain paths under the directory, not an os.Root, whose
// resolution of every path component was most of a bulk load's system
// calls: the directory is one Make has just created.
type layoutWriter struct {
	dir string
}

var _ store.Store = (*layoutWriter)(nil)

// The directory store's names (dirstore's unexported constants).
const (
	extensionsDir = "extensions"
	ociLayout     = `{"imageLayoutVersion":"1.0.0"}`
)

// openLayoutWriter opens the registry directory dir (made by dirstore.Open
// with Create, so its marker and extensions/ exist) for bulk writes.
func openLayoutWriter(dir string) (*layoutWriter, error) {
	if _, err := os.Stat(filepath.Join(dir, extensionsDir)); err != nil {
		return nil, fmt.Errorf("bulk writer: %w", err)
	}
	return &layoutWriter{dir: dir}, nil
}

// path returns the file name of name, a slash-separated path in the
// registry.
func (w *layoutWriter) path(name string) string {
	return filepath.Join(w.dir, filepath.FromSlash(name))
}

func repoDir(repo string) string { return extensionsDir + "/" + repo }

func blobPath(repo, digest string) string {
	return repoDir(repo) + "/blobs/sha256/" + strings.TrimPrefix(digest, "sha256:")
}

// StatBlob returns a blob's size.
func (w *layoutWriter) StatBlob(ctx context.Context, repo, digest string) (int64, error) {
	fi, err := os.Lstat(w.path(blobPath(repo, digest)))
	if err != nil {
		return 0, fmt.Errorf("stat blob %s in %s: %w", digest, repo, err)
	}
	return fi.Size(), nil
}

// PutBlob writes size bytes of c as the blob digest, checking both; a
// blob already there with that size is kept.
func (w *layoutWriter) PutBlob(ctx context.Context, repo, digest string, size int64, c store.Content) error {
	if err := store.CheckPutBlobArgs(ctx, repo, digest, size); err != nil {
		return err
	}
	p := w.path(blobPath(repo, digest))
	if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Size() == size {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("put blob %s in %s: %w", digest, repo, err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("put blob %s in %s: %w", digest, repo, err)
	}
	h := sha256.New()
	n, err := copybuf.Copy(io.MultiWriter(f, h), io.LimitReader(c, size+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && (n != size || index.DigestOfSum(h.Sum(nil)) != digest) {
		err = &store.MismatchError{Repo: repo, Digest: digest, Size: size, GotSize: n, GotDigest: index.DigestOfSum(h.Sum(nil))}
	}
	if err != nil {
		os.Remove(p)
		return fmt.Errorf("put blob %s in %s: %w", digest, repo, err)
	}
	return nil
}

// Tag writes repo's oci-layout and points tag at m in its index.json.
func (w *layoutWriter) Tag(ctx context.Context, repo, tag string, m store.Descriptor) error {
	if err := store.CheckTagArgs(ctx, repo, tag); err != nil {
		return err
	}
	if err := os.WriteFile(w.path(repoDir(repo)+"/"+ocispec.ImageLayoutFile), []byte(ociLayout), 0o644); err != nil {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, err)
	}
	return artifact.TagIndex(ctx, repo, tag, m, w.readIndex, w.writeIndex)
}

// readIndex reads repo's index.json; none yet is no tags.
func (w *layoutWriter) readIndex(repo string) ([]store.TagEntry, error) {
	data, err := os.ReadFile(w.path(repoDir(repo) + "/" + ocispec.ImageIndexFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return artifact.DecodeIndex(data)
}

func (w *layoutWriter) writeIndex(ctx context.Context, repo string, tags []store.TagEntry) error {
	data, err := artifact.EncodeIndex(tags)
	if err != nil {
		return err
	}
	return os.WriteFile(w.path(repoDir(repo)+"/"+ocispec.ImageIndexFile), data, 0o644)
}

// Close does nothing: every file is closed as it is written.
func (w *layoutWriter) Close() error { return nil }

// The rest of store.Store: a bulk loader only writes entries.

var errBulk = fmt.Errorf("benchreg bulk writer: %w", errors.ErrUnsupported)

func (w *layoutWriter) OpenBlob(context.Context, string, string, int64) (io.ReadCloser, error) {
	return nil, errBulk
}
func (w *layoutWriter) Tags(context.Context, string) ([]store.TagEntry, error) { return nil, errBulk }
func (w *layoutWriter) Untag(context.Context, string, string) error            { return errBulk }
func (w *layoutWriter) Repos(context.Context) ([]string, error)                { return nil, errBulk }
func (w *layoutWriter) ListMetadata(context.Context) ([]string, error)         { return nil, errBulk }
func (w *layoutWriter) ReadMetadata(context.Context, string, int64) ([]byte, error) {
	return nil, errBulk
}
func (w *layoutWriter) WriteMetadata(context.Context, string, []byte) error { return errBulk }
func (w *layoutWriter) Quarantine(context.Context, string, string, map[string]io.Reader) (string, error) {
	return "", errBulk
}
