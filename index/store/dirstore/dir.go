package dirstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/internal/flock"
	"github.com/airvsx/airvsx/internal/madedir"
	"github.com/airvsx/airvsx/internal/safefile"
	"github.com/airvsx/airvsx/internal/strictjson"
)

// The registry directory's fixed names.
const (
	markerKind    = "airvsx-registry"
	metadataDir   = "metadata"
	extensionsDir = "extensions"
	quarantineDir = "quarantine"
	tempPrefix    = ".tmp-"
	maxMarker     = 4096
)

// testHookSyncDir, when set, is called with each directory syncDir is
// about to fsync.
var testHookSyncDir func(dir string)

// testHookBeforeRename, when set, runs before a finished temp file is
// renamed into place; an error makes the write fail there.
var testHookBeforeRename func(name string) error

// Options configure Open. The zero value opens an existing registry
// for reading and writing.
type Options struct {
	// Create makes a new registry when the path does not exist or is an
	// empty directory. Default false: the path must already be a registry.
	Create bool
	// ReadOnly opens without taking the writer lock and refuses writes.
	// Default false.
	ReadOnly bool
	// Logger receives debug and warning records. Default nil: discard.
	Logger *slog.Logger
	// Now is the clock for quarantine records (nothing signed uses it).
	// Default nil: time.Now.
	Now func() time.Time
}

// dirStore is the directory store itself, unchecked: Open wraps it in
// store.Checked (see Store).
type dirStore struct {
	path string
	root *os.Root
	lock *os.File // writers: the marker file, locked
	// readLock is, for readers, the marker file, holding the shared lock
	// a gc waits on (lockReaders); nil when it could not be taken.
	readLock *os.File
	// dirLock is, for writers, the registry's directory, locked before
	// its marker is read or written.
	dirLock *os.File
	opts    Options
	log     *slog.Logger
	mu      sync.Mutex // serializes the choice of quarantine names
	// repos serializes the read-modify-write of each repository's
	// index.json and the making of its layout.
	repos repoLocks
	// layouts holds the repositories (string keys) this store made or
	// found a layout in (ensureLayout), so that each blob put in one
	// does not look again; DeleteRepo and ReplaceLayout forget theirs.
	layouts sync.Map
	// clean says the registry has its cleanFile, wroteRepos that a temp
	// file was made under extensions/ (takeClean, under cleanMu); unclean
	// is set when one may be left there (writeTemp): Close then leaves no
	// cleanFile.
	cleanMu    sync.Mutex
	clean      bool
	wroteRepos bool
	unclean    atomic.Bool
	// discarded is set once Discard began removing the registry.
	discarded bool
	// dirs keeps the directories a read-only store read last open,
	// opened from top, the registry's directory held open (nil for a
	// writer).
	dirs dirCache
	top  heldDir

	// dirty holds the blob directories with renames not yet fsynced,
	// and the blob files in each whose content is not yet fsynced: a
	// blob is only reachable through a tag or the catalog, so its file
	// and directory are made durable before the first tag or metadata
	// write that may name it (and on Close), not one by one as they are
	// written: by an fsync of each file, then of the directory, or when
	// there are many (a copy), on Linux by one syncfs of the file
	// system, which the writer waits for once instead of once a blob.
	dirtyMu sync.Mutex
	dirty   map[string][]string
	// syncMu serializes syncDirty, so that a tag written after it
	// returns finds its blobs durable even while another goroutine's
	// syncfs is making them so.
	syncMu sync.Mutex

	// made says that this open wrote the marker: the registry is new
	// (Discard). created is the outermost directory Open made for it
	// (the registry's own, or a missing parent): "" when the directory
	// existed.
	made    bool
	created string
}

var _ store.Store = (*dirStore)(nil)

type marker struct {
	Kind   string `json:"kind"`
	Format int    `json:"format"`
}

// openDir opens the registry in the directory at path, unchecked (Open).
func openDir(path string, opts Options) (*dirStore, error) {
	if opts.Create && opts.ReadOnly {
		return nil, fmt.Errorf("open registry %s: Create and ReadOnly exclude each other", path)
	}
	fi, err := os.Stat(path)
	var created string
	switch {
	case errors.Is(err, fs.ErrNotExist) && opts.Create:
		created = madedir.Missing(path)
		if err := os.MkdirAll(path, 0o755); err != nil {
			return nil, fmt.Errorf("create registry: %w", err)
		}
	case err != nil:
		return nil, fmt.Errorf("open registry: %w", err)
	case !fi.IsDir():
		return nil, fmt.Errorf("open registry %s: not a directory: %w", path, store.ErrNotRegistry)
	}
	root, err := os.OpenRoot(path)
	if err != nil {
		return nil, fmt.Errorf("open registry: %w", err)
	}
	d := &dirStore{path: path, root: root, opts: opts, log: opts.Logger, created: created}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	if err := d.open(); err != nil {
		d.Discard() // a registry this open began is not left half made
		d.Close()
		return nil, fmt.Errorf("open registry %s: %w", path, err)
	}
	return d, nil
}

func (d *dirStore) open() error {
	if !d.opts.ReadOnly {
		// The directory's lock first: it exists before the marker, so of
		// two writers creating a registry in it at once one gets it and
		// the other fails, where each could have renamed its own marker
		// into place and locked that.
		f, err := d.root.Open(".")
		if err != nil {
			return err
		}
		d.dirLock = f
		if err := flock.Try(f); errors.Is(err, flock.ErrHeld) {
			return fmt.Errorf("%s: %w", d.path, store.ErrLocked)
		} else if err != nil && !errors.Is(err, errors.ErrUnsupported) {
			return fmt.Errorf("lock %s: %w", d.path, err)
		}
	}
	data, err := readRegular(d.root, artifact.MarkerFile, maxMarker)
	switch {
	case errors.Is(err, fs.ErrNotExist) && d.opts.Create:
		entries, err := fs.ReadDir(newRootFS(d.root), ".")
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), tempPrefix) { // a creation that died before the marker
				return fmt.Errorf("directory is not empty and has no %s file: %w", artifact.MarkerFile, store.ErrNotRegistry)
			}
		}
		b, _ := json.Marshal(marker{Kind: markerKind, Format: artifact.DirFormat})
		if err := d.writeBytes(context.Background(), ".", artifact.MarkerFile, append(b, '\n')); err != nil {
			return err
		}
		d.made = true
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("no %s file: %w", artifact.MarkerFile, store.ErrNotRegistry)
	case err != nil:
		return err
	default:
		var m marker
		if err := strictjson.Unmarshal(data, &m); err != nil || m.Kind != markerKind {
			return fmt.Errorf("%s: not {\"kind\":%q,...}: %w", artifact.MarkerFile, markerKind, store.ErrNotRegistry)
		}
		if m.Format != artifact.DirFormat {
			return fmt.Errorf("%s: format %d; this airvsx reads format %d", artifact.MarkerFile, m.Format, artifact.DirFormat)
		}
	}
	if d.opts.ReadOnly {
		d.lockReaders()
		d.top, err = topDir(d.root)
		return err
	}
	f, err := d.root.Open(artifact.MarkerFile)
	if err != nil {
		return err
	}
	d.lock = f
	// The marker's lock too: the lock of writers before the directory's
	// (an older airvsx).
	if err := flock.TryLock(f, store.ErrLocked); err != nil {
		return err
	}
	for _, dir := range []string{metadataDir, extensionsDir, quarantineDir} {
		if err := d.root.MkdirAll(dir, 0o755); err != nil {
			if safefile.Escapes(err) {
				return fmt.Errorf("%s/: %w", dir, safefile.ErrEscapes)
			}
			return err
		}
	}
	fi, err := d.root.Lstat(cleanFile)
	d.clean = err == nil && fi.Mode().IsRegular()
	return d.sweepTemps(d.clean)
}

// cleanFile says that the writer before closed cleanly: every temp file
// it made under extensions/ was renamed into place or removed. So a
// writer that finds it as it opens sweeps for a killed writer's temp
// files only outside extensions/ (a few directories), and one that does
// not walks every repository, which in a registry of 200,000
// repositories took half of a sync that added one entry. A writer takes
// it away (durably) before it makes its first temp file under
// extensions/ (takeClean), and writes it when it closes cleanly after
// writing there; a writer that writes nothing there (a dry run, a
// refused copy) leaves it as it was. Its name is a temp file's: listings
// skip it, and a writer that does not know it (an older airvsx) sweeps
// it away with the rest, so that the writer after it walks everything
// again.
const cleanFile = metadataDir + "/" + tempPrefix + "clean"

// CleanMark is the file, by its slash path in the registry, that a
// writer that wrote and closed cleanly leaves, and that the next writer
// takes away before it writes (see cleanFile): not the registry's
// content, which tests that compare registries leave out.
const CleanMark = cleanFile

// takeClean makes ready for a temp file under extensions/: the first
// time, it removes cleanFile, made durable, when the registry has one.
func (d *dirStore) takeClean() error {
	d.cleanMu.Lock()
	defer d.cleanMu.Unlock()
	if d.wroteRepos {
		return nil
	}
	if d.clean {
		if err := d.root.Remove(cleanFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", cleanFile, err)
		}
		if err := d.syncDir(metadataDir); err != nil {
			return err
		}
		d.clean = false
	}
	d.wroteRepos = true
	return nil
}

// removeTemps removes the ".tmp-*" files and directories a killed writer
// left behind anywhere in the registry. Only a writer holding the lock
// calls it.
func (d *dirStore) removeTemps() error { return d.sweepTemps(false) }

// sweepTemps is removeTemps; when clean (the writer before closed
// cleanly), it leaves out extensions/, where only writeTemp makes temp
// files, and cleanFile itself.
func (d *dirStore) sweepTemps(clean bool) error {
	var n int
	err := fs.WalkDir(newRootFS(d.root), ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if clean {
			switch {
			case p == cleanFile:
				return nil
			case p == extensionsDir && e.IsDir():
				return fs.SkipDir
			}
		}
		if !strings.HasPrefix(e.Name(), tempPrefix) {
			return nil
		}
		n++
		if err := d.root.RemoveAll(p); err != nil {
			return err
		}
		if e.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
	if n > 0 {
		d.log.Debug("removed stale temp files", "count", n)
	}
	if err != nil {
		return fmt.Errorf("remove stale temp files: %w", err)
	}
	return nil
}

// Discard removes a registry this Store created (Open with Create, on a
// path that did not exist or was an empty directory) while it is still
// the skeleton Open made: nothing in metadata/, extensions/ or
// quarantine/ but temp files. It is for a writer whose first sync or
// copy failed before it stored anything, so that the failure leaves
// nothing behind. Only what Open made is removed: the marker, the
// empty directories, the registry's directory and the missing parents it
// created, never a directory that existed before. The writer lock is
// held throughout (the directories go while it is held), so no other
// writer sees the registry half removed. It reports whether it removed
// the registry; the Store must still be closed.
func (d *dirStore) Discard() (bool, error) {
	if !d.made || d.opts.ReadOnly || d.lock == nil || !d.skeleton() {
		return false, nil
	}
	d.dirtyMu.Lock()
	d.dirty = nil // what was written is being removed
	d.dirtyMu.Unlock()
	if err := d.removeTemps(); err != nil {
		return false, fmt.Errorf("discard registry %s: %w", d.path, err)
	}
	d.discarded = true
	// The record of the writer whose first run failed: it stored nothing.
	if err := d.root.RemoveAll(pendingDir); err != nil {
		return false, fmt.Errorf("discard registry %s: %w", d.path, err)
	}
	for _, name := range []string{metadataDir, extensionsDir, quarantineDir, pendingDir, artifact.MarkerFile} {
		if err := d.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("discard registry %s: %w", d.path, err)
		}
	}
	d.made = false
	// The directory and the parents made for it (none when it existed),
	// innermost first, while the lock is held.
	if err := madedir.Remove(d.path, d.created); err != nil {
		return true, fmt.Errorf("discard registry %s: %w", d.path, err)
	}
	return true, nil
}

// skeleton reports whether the registry holds nothing but what Open
// made: the marker and the empty metadata/, extensions/ and quarantine/
// (temp files aside), and perhaps the record of the writer that found
// it so (pending/).
func (d *dirStore) skeleton() bool {
	want := map[string]bool{artifact.MarkerFile: true, metadataDir: true, extensionsDir: true, quarantineDir: true, pendingDir: true}
	entries, err := fs.ReadDir(newRootFS(d.root), ".")
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !want[e.Name()] && !strings.HasPrefix(e.Name(), tempPrefix) {
			return false
		}
	}
	for _, dir := range []string{metadataDir, extensionsDir, quarantineDir} {
		entries, err := fs.ReadDir(newRootFS(d.root), dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), tempPrefix) {
				return false
			}
		}
	}
	return true
}

// Close makes every blob written durable and releases the directory and
// the writer lock.
func (d *dirStore) Close() error {
	var errs []error
	if d.lock != nil {
		err := d.syncDirty("")
		errs = append(errs, err)
		d.cleanMu.Lock()
		wrote := d.wroteRepos
		d.cleanMu.Unlock()
		if err == nil && !d.unclean.Load() && !d.discarded && wrote {
			errs = append(errs, d.writeBytes(context.Background(), metadataDir, path.Base(cleanFile), nil))
		}
		errs = append(errs, d.lock.Close()) // closing releases the flock
		d.lock = nil
	}
	if d.dirLock != nil {
		errs = append(errs, d.dirLock.Close())
		d.dirLock = nil
	}
	if d.readLock != nil {
		errs = append(errs, d.readLock.Close()) // closing releases the OFD lock
		d.readLock = nil
	}
	d.dirs.close()
	if d.top != nil {
		errs = append(errs, d.top.close())
		d.top = nil
	}
	errs = append(errs, d.root.Close())
	return errors.Join(errs...)
}

// Path returns the directory the registry is in.
func (d *dirStore) Path() string { return d.path }

func (d *dirStore) writable() error {
	if d.opts.ReadOnly {
		return store.ErrReadOnly
	}
	return nil
}

// FreeSpace returns how many bytes the file system holding the registry
// still lets it write, and the size of its blocks (each file takes whole
// blocks). Where the system cannot say, the error wraps
// errors.ErrUnsupported.
func (d *dirStore) FreeSpace() (free, block int64, err error) {
	free, block, err = freeSpaceAt(d.path)
	if err != nil {
		return 0, 0, fmt.Errorf("free space of %s: %w", d.path, err)
	}
	return free, block, nil
}

// FreeSpaceAt is Store.FreeSpace for a registry directory that does not
// exist yet: the free space of the file system that would hold path (its
// nearest existing parent's).
func FreeSpaceAt(path string) (free, block int64, err error) {
	p := filepath.Clean(path)
	for {
		if _, err := os.Stat(p); err == nil {
			break
		}
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	free, block, err = freeSpaceAt(p)
	if err != nil {
		return 0, 0, fmt.Errorf("free space for %s: %w", path, err)
	}
	return free, block, nil
}
