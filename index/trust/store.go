package trust

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
)

// ErrNoCatalog is wrapped when a registry has no signed catalog yet.
var ErrNoCatalog = errors.New("the registry has no signed catalog yet")

// Metadata adapts a store's metadata files to MetadataFS, for the TUF
// reader and writer. The adapter carries ctx because MetadataFS has none;
// use it within the call that made it.
func Metadata(ctx context.Context, s store.Store) MetadataFS {
	return &metadataFS{ctx: ctx, s: s}
}

type metadataFS struct {
	ctx context.Context
	s   store.Store
}

// Open reads a metadata file (at most index.MaxCatalogBytes; the TUF
// reader caps each role further).
func (m *metadataFS) Open(name string) (io.ReadCloser, error) {
	b, err := m.s.ReadMetadata(m.ctx, name, index.MaxCatalogBytes)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// readCapped reads a metadata file through the store's own cap, so that
// no more than max+1 bytes of it are ever read (Open reads up to
// index.MaxCatalogBytes of any file before the caller's cap applies).
func (m *metadataFS) readCapped(name string, max int64) ([]byte, error) {
	return m.s.ReadMetadata(m.ctx, name, max)
}

// WriteFile replaces a metadata file atomically.
func (m *metadataFS) WriteFile(name string, data []byte) error {
	return m.s.WriteMetadata(m.ctx, name, data)
}

// CatalogOptions configure ReadCatalog.
type CatalogOptions struct {
	// Root is the root to start the chain from. nil means the registry's
	// own 1.root.json: the catalog is then checked for consistency with
	// the registry's history, not against an anchor the caller trusts
	// (what sync does with its own registry, and ls without an anchor).
	// Commands that take an anchor use Check instead.
	Root []byte
	// Load is passed to Load (the clock, the rollback state).
	Load LoadOptions
}

// ReadCatalog reads the registry's signed catalog through its TUF
// metadata from opts.Root: every signature, length, hash, version and
// expiry is checked before the catalog is decoded. A registry without a
// catalog gives an error wrapping ErrNoCatalog.
func ReadCatalog(ctx context.Context, s store.Store, opts CatalogOptions) (*index.Catalog, *Trusted, error) {
	tr, err := openCatalog(ctx, s, opts)
	if err != nil {
		return nil, nil, err
	}
	cat, err := tr.Decode(ctx)
	if err != nil {
		return nil, nil, err
	}
	return cat, tr, nil
}

// OpenCatalog is ReadCatalog without the entries: it returns the
// catalog's head (a format-1 catalog whole), for a reader that then reads
// only the shards it needs (Trusted.Lookup, Trusted.Shard).
func OpenCatalog(ctx context.Context, s store.Store, opts CatalogOptions) (*index.Catalog, *Trusted, error) {
	tr, err := openCatalog(ctx, s, opts)
	if err != nil {
		return nil, nil, err
	}
	head, err := tr.Head()
	if err != nil {
		return nil, nil, err
	}
	return head, tr, nil
}

// ReadOwnCatalog is ReadCatalog from the registry's own first root with
// expiry not checked (signatures, hashes and versions are): how a writer
// reads the registry it writes, which may have expired (sync, prune, gc,
// copy's destination).
func ReadOwnCatalog(ctx context.Context, s store.Store) (*index.Catalog, *Trusted, error) {
	return ReadCatalog(ctx, s, ownCatalog)
}

// OpenOwnCatalog is ReadOwnCatalog without the entries (OpenCatalog).
func OpenOwnCatalog(ctx context.Context, s store.Store) (*index.Catalog, *Trusted, error) {
	return OpenCatalog(ctx, s, ownCatalog)
}

// ownCatalog reads from the registry's first root at a time before any
// expiry.
var ownCatalog = CatalogOptions{Load: LoadOptions{Now: func() time.Time { return time.Unix(1, 0) }}}

// openCatalog verifies the chain of ReadCatalog and OpenCatalog.
func openCatalog(ctx context.Context, s store.Store, opts CatalogOptions) (*Trusted, error) {
	root := opts.Root
	if root == nil {
		b, err := s.ReadMetadata(ctx, rootName(1), MaxRootBytes)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &FileError{File: displayName(rootName(1)), Err: ErrNoCatalog}
		}
		if err != nil {
			return nil, fmt.Errorf("read the registry's root: %w", err)
		}
		root = b
	}
	tr, err := Load(ctx, Metadata(ctx, s), root, opts.Load)
	if err != nil {
		if errors.Is(err, ErrMissing) {
			// Only now look for the commit point: a registry that never
			// published has none.
			if herr := hasCatalog(ctx, s); herr != nil {
				return nil, herr
			}
		}
		return nil, err
	}
	return tr, nil
}

// hasCatalog returns an error wrapping ErrNoCatalog when the registry has
// never published (no timestamp.json).
func hasCatalog(ctx context.Context, s store.Store) error {
	if _, err := s.ReadMetadata(ctx, TimestampFile, MaxTimestampBytes); errors.Is(err, fs.ErrNotExist) {
		return &FileError{File: displayName(TimestampFile), Err: ErrNoCatalog}
	}
	return nil
}

// CatalogPath is how reports name the catalog file of a digest
// ("sha256:<hex>"): "metadata/targets/<hex>.catalog.json".
func CatalogPath(digest string) string {
	return displayName(catalogName(strings.TrimPrefix(digest, "sha256:")))
}
