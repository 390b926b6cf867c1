package gitstore

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/internal/atomicfile"
	"github.com/airvsx/airvsx/internal/copybuf"
)

// tempPrefix names the temp files of loose objects being written, in
// objects/ (git's own prefix, so git gc also cleans what a killed writer
// left; a writer removes those with the airvsx part when it opens).
const tempPrefix = "tmp_obj_airvsx_"

// maxMetaObject caps the trees, commits and tags a store reads into
// memory.
const maxMetaObject = 64 << 20

// writeObject writes a loose object of type typ holding size bytes of r,
// hashing SHA-1 (the object ID) and SHA-256 while compressing, and
// reading at most size+1 bytes. check, when not nil, is given the byte
// count and "sha256:<hex>" before the object is made visible; its error,
// r's or ctx's leaves nothing behind. The file is renamed into
// objects/xx/..., as git does (an object already present is kept); Commit
// makes the objects durable before the branch names them.
func (s *gitStore) writeObject(ctx context.Context, typ plumbing.ObjectType, size int64, r io.Reader, check func(n int64, sum string) error) (plumbing.Hash, error) {
	objects := filepath.Join(s.gitDir, "objects")
	t, err := atomicfile.FS{}.Create(objects, tempPrefix+"*", 0o444)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer t.Cleanup()
	zw, _ := zlib.NewWriterLevel(t, zlib.BestSpeed) // git's core.looseCompression default
	hasher := plumbing.NewHasher(typ, size)
	if _, err := fmt.Fprintf(zw, "%s %d\x00", typ, size); err != nil {
		return plumbing.ZeroHash, err
	}
	sum := sha256.New()
	n, err := copybuf.Copy(io.MultiWriter(zw, hasher, sum), io.LimitReader(store.ContextReader(ctx, r), size+1))
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if check != nil {
		if err := check(n, index.DigestOfSum(sum.Sum(nil))); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	if n != size {
		return plumbing.ZeroHash, fmt.Errorf("object content: %d bytes; want %d", n, size)
	}
	if err := zw.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	h := hasher.Sum()
	hx := h.String()
	dir := filepath.Join(objects, hx[:2])
	final := filepath.Join(dir, hx[2:])
	if _, err := os.Lstat(final); err == nil {
		return h, nil // Cleanup removes the temp file
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return plumbing.ZeroHash, err
	}
	// Not fsynced here: Commit makes every object durable at once
	// (syncObjects) before the branch can name it.
	if err := t.Rename(final); err != nil {
		return plumbing.ZeroHash, err
	}
	s.noteWritten(final)
	return h, nil
}

// writeBytes writes a small blob.
func (s *gitStore) writeBytes(data []byte) (plumbing.Hash, error) {
	return s.writeObject(context.Background(), plumbing.BlobObject, int64(len(data)), bytes.NewReader(data), nil)
}

// removeTemps removes the temp objects a killed writer left behind. Only
// a writer holding the lock calls it.
func removeTemps(gitDir string, log *slog.Logger) {
	dir := filepath.Join(gitDir, "objects")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	n := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) && os.Remove(filepath.Join(dir, e.Name())) == nil {
			n++
		}
	}
	if n > 0 {
		log.Debug("removed stale temp objects", "count", n)
	}
}

// openBlob opens blob object h for streaming and returns its size, as
// the object's header gives it (the content is not checked against h).
func (s *gitStore) openBlob(h plumbing.Hash) (io.ReadCloser, int64, error) {
	o, err := s.st.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, 0, err
	}
	r, err := o.Reader()
	if err != nil {
		return nil, 0, err
	}
	return r, o.Size(), nil
}

// readSmall reads a whole object of type typ (a tree, commit or tag) and
// checks that its content hashes to h: go-git does not, and a tree
// changed on disk must not pass for the one its ID names.
func (s *gitStore) readSmall(typ plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	o, err := s.st.EncodedObject(typ, h)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", typ, h, err)
	}
	if o.Size() > maxMetaObject {
		return nil, fmt.Errorf("%s %s: %d bytes: %w", typ, h, o.Size(), store.ErrTooLarge)
	}
	r, err := o.Reader()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", typ, h, err)
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, o.Size()+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", typ, h, err)
	}
	if got := plumbing.ComputeHash(typ, data); got != h || int64(len(data)) != o.Size() {
		return nil, fmt.Errorf("%s %s: the object's content hashes to %s: %w", typ, h, got, ErrDamaged)
	}
	mo := &plumbing.MemoryObject{}
	mo.SetType(typ)
	mo.Write(data)
	return mo, nil
}

// ErrDamaged is wrapped when a git object is not what its ID names.
var ErrDamaged = errors.New("git object damaged")

// decodeSmall reads the object h of type typ, its hash checked
// (readSmall), and decodes it into v.
func (s *gitStore) decodeSmall(typ plumbing.ObjectType, h plumbing.Hash, v interface {
	Decode(plumbing.EncodedObject) error
}) error {
	o, err := s.readSmall(typ, h)
	if err != nil {
		return err
	}
	if err := v.Decode(o); err != nil {
		return fmt.Errorf("%s %s: %w", typ, h, err)
	}
	return nil
}

// readCommit reads and decodes a commit, its hash checked.
func (s *gitStore) readCommit(h plumbing.Hash) (*object.Commit, error) {
	c := &object.Commit{}
	if err := s.decodeSmall(plumbing.CommitObject, h, c); err != nil {
		return nil, err
	}
	c.Hash = h
	return c, nil
}

// readTag returns the object an annotated tag names.
func readTag(o plumbing.EncodedObject) (plumbing.Hash, error) {
	t := &object.Tag{}
	if err := t.Decode(o); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("tag %s: %w", o.Hash(), err)
	}
	return t.Target, nil
}

// treeCache keeps decoded trees by ID (bounded), each indexed by name.
type treeCache struct {
	mu sync.Mutex
	m  map[plumbing.Hash]*cachedTree
}

// cachedTree is a decoded tree and, for a large one, its index: name →
// the first entry of that name. A tree is indexed once, when decoded, so
// looking up each of its n names costs O(n) in all, not O(n²) (a hostile
// commit can put hundreds of thousands of files in one directory).
type cachedTree struct {
	t      *object.Tree
	byName map[string]int
}

const maxCachedTrees = 4096

// indexedEntries is the size above which a tree is indexed by name;
// smaller ones are scanned.
const indexedEntries = 16

// find returns the first entry named name; nil when there is none.
func (c *cachedTree) find(name string) *object.TreeEntry {
	if c.byName != nil {
		if i, ok := c.byName[name]; ok {
			return &c.t.Entries[i]
		}
		return nil
	}
	for i := range c.t.Entries {
		if c.t.Entries[i].Name == name {
			return &c.t.Entries[i]
		}
	}
	return nil
}

// readTree reads and decodes a tree, its hash checked, through the cache.
func (s *gitStore) readTree(h plumbing.Hash) (*object.Tree, error) {
	c, err := s.cachedTree(h)
	if err != nil {
		return nil, err
	}
	return c.t, nil
}

// findIn returns the entry named name in the tree h; nil when there is
// none.
func (s *gitStore) findIn(h plumbing.Hash, name string) (*object.TreeEntry, error) {
	c, err := s.cachedTree(h)
	if err != nil {
		return nil, err
	}
	return c.find(name), nil
}

// cachedTree reads, decodes and indexes a tree, its hash checked, through
// the cache.
func (s *gitStore) cachedTree(h plumbing.Hash) (*cachedTree, error) {
	s.trees.mu.Lock()
	c, ok := s.trees.m[h]
	s.trees.mu.Unlock()
	if ok {
		return c, nil
	}
	t := &object.Tree{}
	if err := s.decodeSmall(plumbing.TreeObject, h, t); err != nil {
		return nil, err
	}
	t.Hash = h
	c = &cachedTree{t: t}
	if len(t.Entries) > indexedEntries {
		c.byName = make(map[string]int, len(t.Entries))
		for i := range t.Entries {
			if _, dup := c.byName[t.Entries[i].Name]; !dup {
				c.byName[t.Entries[i].Name] = i
			}
		}
	}
	s.trees.mu.Lock()
	if s.trees.m == nil || len(s.trees.m) >= maxCachedTrees {
		s.trees.m = map[plumbing.Hash]*cachedTree{}
	}
	s.trees.m[h] = c
	s.trees.mu.Unlock()
	return c, nil
}
