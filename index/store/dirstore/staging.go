package dirstore

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/airvsx/airvsx/index/store"
)

// Staging is a directory inside a Store's registry where a writer puts files
// that will become blobs, so that storing one is a rename instead of a
// second copy and a second hash of every byte. Its name starts with
// ".tmp-": readers skip it, and the next writer to open the registry
// removes one that a killed run left behind.
//
// A Staging is safe for concurrent use by multiple goroutines.
type Staging struct {
	d   *dirStore
	rel string // the directory, relative to the registry root
	dir string // the directory's OS path
}

// Dir is the directory's OS path, for creating files in it (for example
// with os.CreateTemp).
func (s *Staging) Dir() string { return s.dir }

// NewStaging creates a staging directory in the registry. Remove it when
// done.
func (d *dirStore) NewStaging() (store.Staging, error) {
	if err := d.writable(); err != nil {
		return nil, fmt.Errorf("staging directory: %w", err)
	}
	rel := tempPrefix + "staging-" + randText()
	if err := d.root.Mkdir(rel, 0o700); err != nil {
		return nil, fmt.Errorf("staging directory in %s: %w", d.path, err)
	}
	return &Staging{d: d, rel: rel, dir: filepath.Join(d.path, rel)}, nil
}

// Remove removes the staging directory and whatever is still in it.
func (s *Staging) Remove() error {
	if err := s.d.root.RemoveAll(s.rel); err != nil {
		return fmt.Errorf("remove staging directory: %w", err)
	}
	return nil
}

// AdoptBlob stores the file name (a base name in s.Dir(), written and
// closed by the caller) as blob digest of size bytes in repo, by fsyncing
// it and renaming it into place; the file is gone afterwards. The caller
// vouches for digest: it must have hashed the bytes as it wrote them, the
// way mirror hashes a download. The size is checked. A present blob of the
// right size is kept and the file is left where it is. Where the rename is
// impossible (the blob directory is on another filesystem), the file is
// copied, hashed and checked like PutBlob does.
func (s *Staging) AdoptBlob(ctx context.Context, repo, digest string, size int64, name string) error {
	d := s.d
	if err := store.CheckBlobArgs(ctx, repo, digest); err != nil {
		return fmt.Errorf("adopt blob: %w", err)
	}
	if name == "" || name != path.Base(name) || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return fmt.Errorf("adopt blob %s in %s: %q is not a file name", digest, repo, name)
	}
	if err := d.writable(); err != nil {
		return fmt.Errorf("adopt blob %s in %s: %w", digest, repo, err)
	}
	src := s.rel + "/" + name
	p := blobPath(repo, digest)
	if fi, err := d.root.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Size() == size {
		return nil
	}
	f, err := openRegular(d.root, src)
	if err != nil {
		return fmt.Errorf("adopt blob %s in %s: %w", digest, repo, err)
	}
	fi, err := f.Stat()
	if err == nil && fi.Size() != size {
		err = &store.MismatchError{Repo: repo, Digest: digest, Size: size, GotSize: fi.Size()}
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("adopt blob %s in %s: %w", digest, repo, err)
	}
	dir := path.Dir(p)
	if err := d.root.MkdirAll(dir, 0o755); err != nil {
		f.Close()
		return fmt.Errorf("adopt blob %s in %s: %w", digest, repo, err)
	}
	if err := d.ensureLayout(ctx, repo); err != nil { // the layout exists before its first blob does
		f.Close()
		return fmt.Errorf("adopt blob %s in %s: %w", digest, repo, err)
	}
	if testHookBeforeRename != nil {
		if err := testHookBeforeRename(p); err != nil {
			f.Close()
			return fmt.Errorf("adopt blob %s in %s: %w", digest, repo, err)
		}
	}
	err = d.root.Rename(src, p)
	if errors.Is(err, syscall.EXDEV) {
		// Another filesystem: copy it, checked like any other write.
		err = d.PutBlob(ctx, repo, digest, size, store.SeekContent(f))
		f.Close()
		if err == nil {
			d.root.Remove(src)
		}
		return err
	}
	f.Close()
	if err != nil {
		return fmt.Errorf("adopt blob %s in %s: %w", digest, repo, err)
	}
	d.markDirty(dir) // fsynced before anything names the blob
	return nil
}
