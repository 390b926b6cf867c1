package dirstore

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sync"

	"github.com/airvsx/airvsx/index/store"
)

// dirCacheSize is how many directories a read-only store keeps open.
// Readers check a repository's blobs one after another (verify checks
// the entries of a repository together), so a few dozen are plenty.
const dirCacheSize = 64

// dirCache keeps the directories read last open (heldDir): a read-only
// store's Lstat or open of a blob then resolves one name in the blob
// directory instead of every component of its path from the registry's
// root, which for a registry of many small entries is most of the time
// verify takes. Each is opened through the registry's directory, so the
// rules of every access hold: nothing outside the registry, no final
// symlink followed. Only a read-only store keeps one (a writer may move
// a directory away, which an open directory would not see), and a lookup
// that fails there is repeated from the registry's root, so errors name
// the path as they always did.
type dirCache struct {
	mu sync.Mutex
	m  map[string]*cachedDir
	// lru is the ring of the directories in m, the one used last after
	// it (lru.next is the one used least recently).
	lru cachedDir
}

// cachedDir is one open directory: refs users; gone once evicted, closed
// when its last user releases it.
type cachedDir struct {
	key        string
	dir        heldDir
	refs       int
	gone       bool
	prev, next *cachedDir // in dirCache.lru
}

// touchLocked makes cd the directory used last.
func (c *dirCache) touchLocked(cd *cachedDir) {
	if c.lru.next == nil {
		c.lru.next, c.lru.prev = &c.lru, &c.lru
	}
	if cd.next != nil {
		cd.prev.next, cd.next.prev = cd.next, cd.prev
	}
	cd.prev, cd.next = c.lru.prev, &c.lru
	c.lru.prev.next = cd
	c.lru.prev = cd
}

// unlinkLocked takes cd out of the ring.
func (c *dirCache) unlinkLocked(cd *cachedDir) {
	if cd.next != nil {
		cd.prev.next, cd.next.prev = cd.next, cd.prev
		cd.prev, cd.next = nil, nil
	}
}

// get returns dir (a slash path below top, the registry's directory)
// held open, and the function that releases it; ok is false when it
// cannot be opened.
func (c *dirCache) get(top heldDir, dir string) (h heldDir, release func(), ok bool) {
	c.mu.Lock()
	cd := c.m[dir]
	if cd == nil {
		// Opened without the lock, so that readers of other directories
		// do not wait on it.
		c.mu.Unlock()
		sub, err := c.open(top, dir)
		if err != nil {
			return nil, nil, false
		}
		c.mu.Lock()
		if cd = c.m[dir]; cd != nil {
			sub.close() // another reader opened it meanwhile
		} else {
			if c.m == nil {
				c.m = map[string]*cachedDir{}
			}
			if len(c.m) >= dirCacheSize {
				c.evictLocked()
			}
			cd = &cachedDir{key: dir, dir: sub}
			c.m[dir] = cd
		}
	}
	cd.refs++
	c.touchLocked(cd)
	c.mu.Unlock()
	return cd.dir, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		cd.refs--
		if cd.gone && cd.refs == 0 {
			cd.dir.close()
		}
	}, true
}

// open opens dir: from the open directory nearest above it when there is
// one (a blob directory from its repository's), else from top.
func (c *dirCache) open(top heldDir, dir string) (heldDir, error) {
	for up := path.Dir(dir); up != "." && up != "/"; up = path.Dir(up) {
		c.mu.Lock()
		ok := c.m[up] != nil
		c.mu.Unlock()
		if !ok {
			continue
		}
		if h, release, ok := c.get(top, up); ok {
			sub, err := h.sub(dir[len(up)+1:])
			release()
			if err == nil {
				return sub, nil
			}
		}
		break
	}
	return top.sub(dir)
}

// evictLocked drops the directory used least recently.
func (c *dirCache) evictLocked() {
	od := c.lru.next
	c.unlinkLocked(od)
	delete(c.m, od.key)
	od.gone = true
	if od.refs == 0 {
		od.dir.close()
	}
}

// close closes every directory no one uses; the others close when
// released.
func (c *dirCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, cd := range c.m {
		delete(c.m, k)
		c.unlinkLocked(cd)
		cd.gone = true
		if cd.refs == 0 {
			cd.dir.close()
		}
	}
}

// lstat is root.Lstat(name), through the open directory of name when the
// store keeps one.
func (d *dirStore) lstat(name string) (fs.FileInfo, error) {
	return d.lstatUnder(path.Dir(name), path.Base(name))
}

// throughHeld calls f with the directory dir held open and rel below
// it when the store keeps directories open and f succeeds there; else
// with the registry's root and dir/rel, whose errors are the ones
// reported.
func throughHeld[T any](d *dirStore, dir, rel string, f func(h heldDir, rel string) (T, error)) (T, error) {
	if d.opts.ReadOnly {
		if h, release, ok := d.dirs.get(d.top, dir); ok {
			v, err := f(h, rel)
			release()
			if err == nil {
				return v, nil
			}
		}
	}
	return f(&rootDir{r: d.root}, path.Join(dir, rel))
}

// lstatUnder is root.Lstat(dir + "/" + rel), through the open directory
// dir when the store keeps one.
func (d *dirStore) lstatUnder(dir, rel string) (fs.FileInfo, error) {
	return throughHeld(d, dir, rel, heldDir.lstat)
}

// openRegularCached is openRegular(d.root, name), through the open
// directory of name when the store keeps one.
func (d *dirStore) openRegularCached(name string) (*os.File, error) {
	return throughHeld(d, path.Dir(name), path.Base(name), heldDir.openFile)
}

// sized is a reader and the size of what it reads.
type sized struct {
	rc   io.ReadCloser
	size int64
}

// openReaderCached opens the regular file name for reading (openRegular)
// and returns its size, through the open directory of name when the
// store keeps one.
func (d *dirStore) openReaderCached(name string) (io.ReadCloser, int64, error) {
	s, err := throughHeld(d, path.Dir(name), path.Base(name), func(h heldDir, rel string) (sized, error) {
		rc, size, err := h.openReader(rel)
		return sized{rc, size}, err
	})
	return s.rc, s.size, err
}

// readRegularCached is readRegular(d.root, name, max), through the open
// directory of name when the store keeps one.
func (d *dirStore) readRegularCached(name string, max int64) ([]byte, error) {
	return throughHeld(d, path.Dir(name), path.Base(name), func(h heldDir, rel string) ([]byte, error) {
		return h.readFile(rel, max)
	})
}

// repoFS opens repo's directory as a file system (Store.RepoFS), kept
// open for the next reader when the store is read-only.
func (d *dirStore) repoFS(repo string) (fs.FS, func(), error) {
	if err := store.CheckRepo(repo); err != nil {
		return nil, nil, fmt.Errorf("open repository: %w", err)
	}
	dir := repoDir(repo)
	if d.opts.ReadOnly {
		if h, release, ok := d.dirs.get(d.top, dir); ok {
			return h.fsys(), release, nil
		}
	}
	r, err := d.root.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	return newRootFS(r), func() { r.Close() }, nil
}
