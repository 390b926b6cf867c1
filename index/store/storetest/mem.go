package storetest

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/airvsx/airvsx/index/store"
)

// Mem is a store.Store held in memory: a second implementation of the
// contract, for tests that must show a reader goes through the Store
// interface and nothing else (it has no directory, so it offers none of
// a directory store's extras, such as OpenBlobFile or FS). It checks
// names as the directory store does, verifies on read with store.VerifyReader, and is
// safe for concurrent use. Close does nothing; the content stays
// readable.
//
// Tests may change it behind the contract's back: SetRawBlob stores bytes
// under any digest, and MemFromDir copies a directory registry as it is,
// tampered content included.
type Mem struct {
	mu    sync.RWMutex
	repos map[string]*memRepo
	meta  map[string][]byte
	quar  map[string]map[string][]byte // location → file → bytes, REASON included
}

// memRepo is one repository: its blobs and its tags. err, when set, is
// what reading the tags fails with (a directory registry's index.json
// that does not decode, copied by MemFromDir).
type memRepo struct {
	blobs map[string][]byte
	tags  map[string]store.Descriptor
	err   error
}

var _ store.Store = (*Mem)(nil)

// NewMem returns an empty in-memory store.
func NewMem() *Mem {
	return &Mem{repos: map[string]*memRepo{}, meta: map[string][]byte{}, quar: map[string]map[string][]byte{}}
}

// repo returns repo's record, making it when create is true; the caller
// holds m.mu (for writing when create is true).
func (m *Mem) repo(repo string, create bool) *memRepo {
	r := m.repos[repo]
	if r == nil && create {
		r = &memRepo{blobs: map[string][]byte{}, tags: map[string]store.Descriptor{}}
		m.repos[repo] = r
	}
	return r
}

// StatBlob returns the size of a stored blob.
func (m *Mem) StatBlob(ctx context.Context, repo, digest string) (int64, error) {
	if err := store.CheckBlobArgs(ctx, repo, digest); err != nil {
		return 0, fmt.Errorf("stat blob: %w", err)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	b, ok := m.blob(repo, digest)
	if !ok {
		return 0, fmt.Errorf("stat blob %s in %s: %w", digest, repo, fs.ErrNotExist)
	}
	return int64(len(b)), nil
}

// blob returns a blob's bytes; the caller holds m.mu.
func (m *Mem) blob(repo, digest string) ([]byte, bool) {
	r := m.repo(repo, false)
	if r == nil {
		return nil, false
	}
	b, ok := r.blobs[digest]
	return b, ok
}

// PutBlob reads c whole, checks its size and digest, and stores it. A
// present blob of that size is kept and c is not read.
func (m *Mem) PutBlob(ctx context.Context, repo, digest string, size int64, c store.Content) error {
	if err := store.CheckPutBlobArgs(ctx, repo, digest, size); err != nil {
		return err
	}
	m.mu.RLock()
	b, ok := m.blob(repo, digest)
	m.mu.RUnlock()
	if ok && int64(len(b)) == size {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(store.ContextReader(ctx, c), size+1))
	if err != nil {
		return fmt.Errorf("put blob %s in %s: %w", digest, repo, err)
	}
	if n := int64(len(data)); n > size {
		return fmt.Errorf("put blob %s in %s: %w", digest, repo, &store.MismatchError{Repo: repo, Digest: digest, Size: size, GotSize: n})
	}
	if got := digestOf(data); int64(len(data)) != size || got != digest {
		return fmt.Errorf("put blob %s in %s: %w", digest, repo, &store.MismatchError{Repo: repo, Digest: digest, Size: size, GotSize: int64(len(data)), GotDigest: got})
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("put blob %s in %s: %w", digest, repo, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.repo(repo, true).blobs[digest] = data
	return nil
}

// OpenBlob opens a blob for verified reading. A stored size other than
// size fails at once with a *store.MismatchError.
func (m *Mem) OpenBlob(ctx context.Context, repo, digest string, size int64) (io.ReadCloser, error) {
	return store.OpenVerified(ctx, repo, digest, size, func() (io.ReadCloser, int64, error) {
		m.mu.RLock()
		b, ok := m.blob(repo, digest)
		m.mu.RUnlock()
		if !ok {
			return nil, 0, fs.ErrNotExist
		}
		// Stored slices are replaced, never changed, so b needs no copy.
		return io.NopCloser(bytes.NewReader(b)), int64(len(b)), nil
	})
}

// Tag points tag at a manifest already stored in repo.
func (m *Mem) Tag(ctx context.Context, repo, tag string, d store.Descriptor) error {
	if err := store.CheckTagArgs(ctx, repo, tag); err != nil {
		return fmt.Errorf("tag: %w", err)
	}
	if err := store.CheckManifestDescriptor(d); err != nil {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.blob(repo, d.Digest)
	switch {
	case !ok:
		return fmt.Errorf("tag %s in %s: manifest %s: %w", tag, repo, d.Digest, fs.ErrNotExist)
	case int64(len(b)) != d.Size:
		return fmt.Errorf("tag %s in %s: %w", tag, repo, &store.MismatchError{Repo: repo, Digest: d.Digest, Size: d.Size, GotSize: int64(len(b))})
	}
	r := m.repo(repo, true)
	if r.err != nil {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, r.err)
	}
	d.Annotations = maps.Clone(d.Annotations)
	r.tags[tag] = d
	return nil
}

// Tags lists repo's tags sorted by tag.
func (m *Mem) Tags(ctx context.Context, repo string) ([]store.TagEntry, error) {
	if err := store.CheckRepoArgs(ctx, repo); err != nil {
		return nil, fmt.Errorf("tags: %w", err)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	r := m.repo(repo, false)
	switch {
	case r == nil:
		return nil, fmt.Errorf("tags of %s: %w", repo, fs.ErrNotExist)
	case r.err != nil:
		return nil, fmt.Errorf("tags of %s: %w", repo, r.err)
	}
	tags := make([]store.TagEntry, 0, len(r.tags))
	for tag, d := range r.tags {
		d.Annotations = maps.Clone(d.Annotations)
		tags = append(tags, store.TagEntry{Tag: tag, Manifest: d})
	}
	slices.SortFunc(tags, func(a, b store.TagEntry) int { return cmp.Compare(a.Tag, b.Tag) })
	return tags, nil
}

// Untag removes a tag; an absent tag or repository is not an error.
func (m *Mem) Untag(ctx context.Context, repo, tag string) error {
	if err := store.CheckTagArgs(ctx, repo, tag); err != nil {
		return fmt.Errorf("untag: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.repo(repo, false)
	switch {
	case r == nil:
		return nil
	case r.err != nil:
		return fmt.Errorf("untag %s in %s: %w", tag, repo, r.err)
	}
	delete(r.tags, tag)
	return nil
}

// Repos lists every repository that holds a blob or a tag, sorted.
func (m *Mem) Repos(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("repos: %w", err)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return slices.Sorted(maps.Keys(m.repos)), nil
}

// ListMetadata lists every metadata file, sorted.
func (m *Mem) ListMetadata(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list metadata: %w", err)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return slices.Sorted(maps.Keys(m.meta)), nil
}

// ReadMetadata reads a metadata file of at most maxSize bytes. A name
// that is a directory of other names (as "targets" is of
// "targets/x.json") is an error, as in a directory store.
func (m *Mem) ReadMetadata(ctx context.Context, name string, maxSize int64) ([]byte, error) {
	if err := store.CheckMetadataArgs(ctx, name); err != nil {
		return nil, fmt.Errorf("read metadata: %w", err)
	}
	if maxSize < 0 {
		return nil, fmt.Errorf("read metadata %s: negative maxSize %d", name, maxSize)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	b, ok := m.meta[name]
	switch {
	case !ok && m.isMetaDir(name):
		return nil, fmt.Errorf("read metadata %s: a directory, not a file", name)
	case !ok:
		return nil, fmt.Errorf("read metadata %s: %w", name, fs.ErrNotExist)
	case int64(len(b)) > maxSize:
		return nil, fmt.Errorf("read metadata %s: more than %d bytes: %w", name, maxSize, store.ErrTooLarge)
	}
	return bytes.Clone(b), nil
}

// isMetaDir reports whether name is the parent of a metadata name; the
// caller holds m.mu.
func (m *Mem) isMetaDir(name string) bool {
	for n := range m.meta {
		if strings.HasPrefix(n, name+"/") {
			return true
		}
	}
	return false
}

// WriteMetadata replaces a metadata file. A name that is, or lies under,
// another file's place fails, as in a directory store.
func (m *Mem) WriteMetadata(ctx context.Context, name string, data []byte) error {
	if err := store.CheckMetadataArgs(ctx, name); err != nil {
		return fmt.Errorf("write metadata: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.isMetaDir(name) {
		return fmt.Errorf("write metadata %s: a directory, not a file", name)
	}
	for p := name; strings.Contains(p, "/"); {
		p = p[:strings.LastIndex(p, "/")]
		if _, ok := m.meta[p]; ok {
			return fmt.Errorf("write metadata %s: %s is a file, not a directory", name, p)
		}
	}
	m.meta[name] = bytes.Clone(data)
	return nil
}

// Quarantine keeps the files and the reason at "quarantine/<name>", or
// "<name>.2", "<name>.3", … when that is taken.
func (m *Mem) Quarantine(ctx context.Context, name, reason string, files map[string]io.Reader) (string, error) {
	if err := store.CheckQuarantineArgs(ctx, name, files); err != nil {
		return "", fmt.Errorf("quarantine: %w", err)
	}
	kept := map[string][]byte{store.ReasonFile: []byte(reason)}
	for f, r := range files {
		b, err := io.ReadAll(store.ContextReader(ctx, r))
		if err != nil {
			return "", fmt.Errorf("quarantine %s: %s: %w", name, f, err)
		}
		kept[f] = b
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := 1; ; i++ {
		loc := "quarantine/" + name
		if i > 1 {
			loc += "." + strconv.Itoa(i)
		}
		if _, ok := m.quar[loc]; !ok {
			m.quar[loc] = kept
			return loc, nil
		}
	}
}

// Close does nothing: the content stays.
func (m *Mem) Close() error { return nil }

// SetRawBlob stores data as the blob digest of repo without checking
// either: tampering behind the store's back, as a bad disk or an attacker
// would. Names are not checked.
func (m *Mem) SetRawBlob(repo, digest string, data []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.repo(repo, true).blobs[digest] = bytes.Clone(data)
}

// RawBlob returns a copy of the stored bytes of a blob, unverified.
func (m *Mem) RawBlob(repo, digest string) ([]byte, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	b, ok := m.blob(repo, digest)
	return bytes.Clone(b), ok
}
