package dirstore

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/internal/flock"
	"github.com/airvsx/airvsx/internal/strictjson"
)

// What gc needs of a directory registry (store.BlobDeleter,
// store.PendingWriter): its blob files listed and removed, the readers
// waited for, and the records of unfinished writers in pending/.

// pendingDir holds one record per unfinished writer: pending/<name>.json.
const pendingDir = "pending"

// maxPending caps a pending record's size.
const maxPending = 64 << 20

// readerPoll is how often ExcludeReaders tries the lock again.
const readerPoll = 100 * time.Millisecond

// Blobs lists repo's blob files (extensions/<repo>/blobs/sha256/<hex>),
// sorted by digest; temp files and names that are no sha256 are left
// out (verify reports them).
func (d *dirStore) Blobs(ctx context.Context, repo string) ([]store.BlobInfo, error) {
	if err := store.CheckRepoArgs(ctx, repo); err != nil {
		return nil, fmt.Errorf("blobs: %w", err)
	}
	dir := repoDir(repo) + "/blobs/sha256"
	entries, err := fs.ReadDir(newRootFS(d.root), dir)
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := d.root.Lstat(repoDir(repo)); serr == nil {
			return nil, nil // a repository with no blob yet
		}
	}
	if err != nil {
		return nil, fmt.Errorf("blobs of %s: %w", repo, err)
	}
	var out []store.BlobInfo
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || len(name) != 64 || strings.ToLower(name) != name {
			continue
		}
		if _, err := hex.DecodeString(name); err != nil {
			continue
		}
		fi, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("blobs of %s: %w", repo, err)
		}
		out = append(out, store.BlobInfo{Digest: "sha256:" + name, Size: fi.Size()})
	}
	return out, nil // ReadDir sorts by name
}

// DeleteBlob removes the tags that point at repo's blob (a manifest),
// then its file, and fsyncs its directory, so the removal is durable
// before it returns.
func (d *dirStore) DeleteBlob(ctx context.Context, repo, digest string) (int64, error) {
	if err := store.CheckBlobArgs(ctx, repo, digest); err != nil {
		return 0, fmt.Errorf("delete blob: %w", err)
	}
	if err := d.writable(); err != nil {
		return 0, fmt.Errorf("delete blob %s in %s: %w", digest, repo, err)
	}
	p := blobPath(repo, digest)
	fi, err := d.root.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	// The tags that point at it first, each removal durable (Untag).
	tags, err := artifact.TagsFromIndex(ctx, repo, d.readIndex)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("delete blob %s in %s: %w", digest, repo, err)
	}
	for _, t := range tags {
		if t.Manifest.Digest != digest {
			continue
		}
		if err := d.Untag(ctx, repo, t.Tag); err != nil {
			return 0, fmt.Errorf("delete blob %s in %s: %w", digest, repo, err)
		}
	}
	if err != nil {
		return 0, fmt.Errorf("delete blob %s in %s: %w", digest, repo, err)
	}
	if err := d.root.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("delete blob %s in %s: %w", digest, repo, err)
	}
	if err := d.syncDir(path.Dir(p)); err != nil {
		return 0, fmt.Errorf("delete blob %s in %s: %w", digest, repo, err)
	}
	return fi.Size(), nil
}

// DeleteRepo removes an empty repository's directory in one step: it is
// renamed to a temp name beside it (durably), so that it is gone from
// Repos at once, and then removed; a removal killed half-way leaves a
// ".tmp-*" directory, which the next writer sweeps (the clean mark is
// taken first, so that writer walks extensions/). The namespace's
// directory goes too when that was its last repository.
func (d *dirStore) DeleteRepo(ctx context.Context, repo string) error {
	if err := store.CheckRepoArgs(ctx, repo); err != nil {
		return fmt.Errorf("delete repository: %w", err)
	}
	if err := d.writable(); err != nil {
		return fmt.Errorf("delete repository %s: %w", repo, err)
	}
	defer d.repos.lock(repo)()
	d.layouts.Delete(repo)
	dir := repoDir(repo)
	if _, err := d.root.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	tags, err := artifact.TagsFromIndex(ctx, repo, d.readIndex)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete repository %s: %w", repo, err)
	}
	blobs, err := d.Blobs(ctx, repo)
	if err != nil {
		return fmt.Errorf("delete repository %s: %w", repo, err)
	}
	if len(tags) > 0 || len(blobs) > 0 {
		return fmt.Errorf("delete repository %s: it holds %d tags and %d blobs; only an empty one is removed", repo, len(tags), len(blobs))
	}
	if err := d.takeClean(); err != nil {
		return fmt.Errorf("delete repository %s: %w", repo, err)
	}
	ns := path.Dir(dir)
	tmp := ns + "/" + tempPrefix + "gc-" + path.Base(dir)
	if err := d.root.RemoveAll(tmp); err != nil {
		return fmt.Errorf("delete repository %s: %w", repo, err)
	}
	if err := d.root.Rename(dir, tmp); err != nil {
		return fmt.Errorf("delete repository %s: %w", repo, err)
	}
	if err := d.syncDir(ns); err != nil {
		return fmt.Errorf("delete repository %s: %w", repo, err)
	}
	if err := d.root.RemoveAll(tmp); err != nil {
		d.unclean.Store(true) // the next writer sweeps extensions/
		return fmt.Errorf("delete repository %s: %w (the next writer removes %s)", repo, err, tmp)
	}
	// The namespace's directory, once its last repository went.
	if err := d.root.Remove(ns); err == nil {
		return d.syncDir(extensionsDir)
	}
	return d.syncDir(ns)
}

// ExcludeReaders takes the exclusive OFD lock on the marker file, which
// every read-only store of this registry holds shared while it is open
// (lockReaders), trying again every readerPoll until ctx ends. Where the
// system has no OFD locks it does not wait.
func (d *dirStore) ExcludeReaders(ctx context.Context, waiting func()) (func() error, error) {
	if err := d.writable(); err != nil {
		return nil, fmt.Errorf("exclude readers: %w", err)
	}
	f, err := d.root.OpenFile(artifact.MarkerFile, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("exclude readers of %s: %w", d.path, err)
	}
	told := false
	for {
		err := flock.TryExclusive(f)
		switch {
		case err == nil, errors.Is(err, errors.ErrUnsupported):
			return f.Close, nil
		case !errors.Is(err, flock.ErrHeld):
			f.Close()
			return nil, fmt.Errorf("lock %s against readers: %w", d.path, err)
		}
		if !told && waiting != nil {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for the readers of %s: %w", d.path, ctx.Err())
		case <-time.After(readerPoll):
		}
	}
}

// lockReaders takes, for a read-only store, the shared OFD lock on the
// marker file that a gc waits on (ExcludeReaders), and keeps it until
// Close. A gc that holds it already has signed the catalog this reader
// will read, and deletes none of its blobs: the reader goes on without.
func (d *dirStore) lockReaders() {
	f, err := d.root.Open(artifact.MarkerFile)
	if err != nil {
		return // the marker was read a moment ago; open reports the rest
	}
	switch err := flock.TryShared(f); {
	case err == nil:
		d.readLock = f
		return
	case errors.Is(err, flock.ErrHeld):
		d.log.Debug("a garbage collection is running; reading the catalog it keeps", "registry", d.path)
	}
	f.Close()
}

// BeginPending writes pending/<name>.json with repos added to those of
// the record already there (and its start time kept).
func (d *dirStore) BeginPending(ctx context.Context, name string, repos []string) error {
	if err := d.checkPending(ctx, name); err != nil {
		return err
	}
	rec := store.PendingRecord{Name: name, Started: time.Now().UTC().Truncate(time.Second)}
	if old, err := d.readPending(name + ".json"); err == nil {
		rec.Started, rec.Repos = old.Started, old.Repos
	} else if !errors.Is(err, fs.ErrNotExist) {
		d.log.Warn("replacing an unreadable pending record", "file", pendingDir+"/"+name+".json", "err", err)
	}
	for _, r := range repos {
		if err := store.CheckRepo(r); err != nil {
			return fmt.Errorf("pending record %s: %w", name, err)
		}
	}
	rec.Repos = append(rec.Repos, repos...)
	slices.Sort(rec.Repos)
	rec.Repos = slices.Compact(rec.Repos)
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if err := d.root.MkdirAll(pendingDir, 0o755); err != nil {
		return fmt.Errorf("pending record %s: %w", name, err)
	}
	if err := d.syncDir("."); err != nil {
		return fmt.Errorf("pending record %s: %w", name, err)
	}
	return d.writeBytes(ctx, pendingDir, name+".json", append(data, '\n'))
}

// EndPending removes pending/<name>.json, and pending/ when it is left
// empty, durably.
func (d *dirStore) EndPending(ctx context.Context, name string) error {
	if err := d.checkPending(ctx, name); err != nil {
		return err
	}
	err := d.root.Remove(pendingDir + "/" + name + ".json")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove pending record %s: %w", name, err)
	}
	if err := d.syncDir(pendingDir); err != nil {
		return err
	}
	if err := d.root.Remove(pendingDir); err != nil {
		return nil // another writer's record is there
	}
	return d.syncDir(".")
}

// Pending reads every record in pending/.
func (d *dirStore) Pending(ctx context.Context) ([]store.PendingRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(newRootFS(d.root), pendingDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s/: %w", pendingDir, err)
	}
	var recs []store.PendingRecord
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		rec, err := d.readPending(e.Name())
		if err != nil {
			return nil, fmt.Errorf("%w: a writer's record is damaged; remove it only when no copy or sync into %s is unfinished", err, d.path)
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// readPending reads and decodes pending/<file>.
func (d *dirStore) readPending(file string) (store.PendingRecord, error) {
	var rec store.PendingRecord
	data, err := readRegular(d.root, pendingDir+"/"+file, maxPending)
	if err != nil {
		return rec, err
	}
	if err := strictjson.Unmarshal(data, &rec); err != nil {
		return rec, fmt.Errorf("%s/%s: %w", pendingDir, file, err)
	}
	return rec, nil
}

// checkPending checks a pending record's writer name and that the store
// may write.
func (d *dirStore) checkPending(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := store.CheckWriterName(name); err != nil {
		return err
	}
	if err := d.writable(); err != nil {
		return fmt.Errorf("pending record %s: %w", name, err)
	}
	return nil
}
