package dirstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/internal/atomicfile"
	"github.com/airvsx/airvsx/internal/copybuf"
)

// How a Store writes: every file through a temporary file that is renamed
// into place, blobs made durable in batches before anything names them.

// writeBytes writes data to dir/name crash-safely.
func (d *dirStore) writeBytes(ctx context.Context, dir, name string, data []byte) error {
	return d.writeFile(ctx, dir, name, bytes.NewReader(data), nil)
}

// writeFile writes r to dir/name crash-safely: a temp file in dir, hashed
// while copied, fsynced, checked by check (given the byte count and
// "sha256:<hex>"), renamed into place, the directory fsynced. On any error
// the temp file is removed and dir/name is untouched.
func (d *dirStore) writeFile(ctx context.Context, dir, name string, r io.Reader, check func(n int64, sum string) error) error {
	if err := d.writeTemp(ctx, d.dirAt(dir), name, r, check, true); err != nil {
		return err
	}
	return d.syncDir(dir)
}

// writeDeferred is writeFile without its fsyncs, in the directory at (a
// blob's opened once for it: see blobDir): the file and its directory
// are made durable later, by syncDirty, before anything can name the
// file (a blob, a content-named metadata file, a new repository's
// layout).
func (d *dirStore) writeDeferred(ctx context.Context, at dirAt, name string, r io.Reader, check func(n int64, sum string) error) error {
	if err := d.writeTemp(ctx, at, name, r, check, false); err != nil {
		return err
	}
	d.markDirty(at.dir, name)
	return nil
}

// dirAt is a directory of the registry to write in: dir, its slash path
// from the registry's directory, reached as rel inside root (the
// registry's own root and dir itself, or the directory opened as a root
// of its own and ".", which resolves each name in it with one system
// call instead of one a path component).
type dirAt struct {
	root *os.Root
	rel  string
	dir  string
}

// dirAt returns dir reached from the registry's root.
func (d *dirStore) dirAt(dir string) dirAt { return dirAt{root: d.root, rel: dir, dir: dir} }

// join returns name in the directory, as a path inside at.root.
func (at dirAt) join(name string) string { return path.Join(at.rel, name) }

// markDirty records that dir has a rename not yet fsynced, and that the
// files named (none, or blob files renamed into dir) have content not
// yet fsynced.
func (d *dirStore) markDirty(dir string, files ...string) {
	d.dirtyMu.Lock()
	defer d.dirtyMu.Unlock()
	if d.dirty == nil {
		d.dirty = map[string][]string{}
	}
	d.dirty[dir] = append(d.dirty[dir], files...)
}

// syncDirty makes the blobs written under prefix ("" for all) durable, so
// that they survive a crash before anything names them: an fsync of each
// file and then of its directory, or when syncFSFiles files or more are
// dirty in the registry, one syncfs of the file system where the system
// has it (which makes every dirty file and directory durable at once).
func (d *dirStore) syncDirty(prefix string) error {
	// One at a time: a caller that finds nothing dirty under prefix must
	// not go on while another caller's syncfs, which took its files, is
	// still running.
	d.syncMu.Lock()
	defer d.syncMu.Unlock()
	d.dirtyMu.Lock()
	dirs := map[string][]string{}
	files, all := 0, 0
	for dir, names := range d.dirty {
		all += len(names)
		if prefix == "" || dir == prefix || strings.HasPrefix(dir, prefix+"/") {
			dirs[dir] = names
			files += len(names)
		}
	}
	if len(dirs) == 0 {
		d.dirtyMu.Unlock()
		return nil
	}
	// A few files (a sync's entry) are fsynced one by one; many dirty
	// anywhere in the registry (a copy) by one syncfs, which covers them
	// all (and whatever else is dirty on the file system).
	batch := files > 0 && all >= syncFSFiles
	if batch {
		// syncfs covers every dirty directory, not only those under
		// prefix: take them all while the lock is held.
		for dir, names := range d.dirty {
			dirs[dir] = names
		}
	}
	for dir := range dirs {
		delete(d.dirty, dir)
	}
	d.dirtyMu.Unlock()
	if batch {
		err := syncFS(d.root)
		if err == nil {
			for dir := range dirs {
				if testHookSyncDir != nil {
					testHookSyncDir(dir)
				}
			}
			return nil
		}
		if !errors.Is(err, errors.ErrUnsupported) {
			for dir, names := range dirs {
				d.markDirty(dir, names...) // still to do
			}
			return fmt.Errorf("sync the registry's file system: %w", err)
		}
	}
	var errs []error
	for dir, names := range dirs {
		var ferrs []error
		for _, name := range names {
			ferrs = append(ferrs, d.syncFile(path.Join(dir, name)))
		}
		if err := errors.Join(ferrs...); err != nil {
			d.markDirty(dir, names...) // still to do
			errs = append(errs, err)
			continue
		}
		if err := d.syncDir(dir); err != nil {
			d.markDirty(dir) // still to do
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// syncFSFiles is how many dirty blob files syncDirty makes durable with
// one syncfs rather than an fsync each.
const syncFSFiles = 64

// syncFile fsyncs a file written earlier.
func (d *dirStore) syncFile(name string) error {
	f, err := d.root.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", name, err)
	}
	return nil
}

// writeTemp is writeFile without the fsync of dir, and with fsync false
// without the fsync of the file.
func (d *dirStore) writeTemp(ctx context.Context, at dirAt, name string, r io.Reader, check func(n int64, sum string) error, fsync bool) error {
	if strings.HasPrefix(at.dir, extensionsDir+"/") {
		if err := d.takeClean(); err != nil {
			return err
		}
	}
	t, err := atomicfile.In(at.root).Create(at.rel, tempPrefix+"*", 0o644)
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		t.Cleanup()
		if !renamed {
			// Removed, or left for the next writer's full sweep.
			if _, err := at.root.Lstat(t.Name()); !errors.Is(err, fs.ErrNotExist) {
				d.unclean.Store(true)
			}
		}
	}()
	h := sha256.New()
	n, err := copybuf.Copy(io.MultiWriter(t, h), store.ContextReader(ctx, r))
	if err != nil {
		return err
	}
	if check != nil {
		if err := check(n, index.DigestOfSum(h.Sum(nil))); err != nil {
			return err
		}
	}
	if fsync {
		if err := t.Sync(); err != nil {
			return err
		}
	} else {
		// Start writing the file back now, without waiting, so that the
		// fsync that comes before anything names it (syncDirty) finds
		// most of it on disk.
		startWriteback(t.File())
	}
	if testHookBeforeRename != nil {
		if err := testHookBeforeRename(path.Join(at.dir, name)); err != nil {
			return err
		}
	}
	if err := t.Rename(at.join(name)); err != nil {
		return err
	}
	renamed = true
	return nil
}

// syncDir fsyncs a directory so a rename in it is durable. Windows cannot
// and filesystems that do not support it are skipped.
func (d *dirStore) syncDir(dir string) error {
	if testHookSyncDir != nil {
		testHookSyncDir(dir)
	}
	return atomicfile.In(d.root).SyncDir(dir)
}

// randText returns a random name part for temp files.
func randText() string { return rand.Text() }
