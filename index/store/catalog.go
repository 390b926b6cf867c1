package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/airvsx/airvsx/index"
)

// ErrNoCatalog is wrapped when a registry has no signed catalog yet.
var ErrNoCatalog = errors.New("the registry has no signed catalog yet")

// Metadata adapts a store's metadata files to index.MetadataFS, for the
// TUF reader and writer. The adapter carries ctx because MetadataFS has
// none; use it within the call that made it.
func Metadata(ctx context.Context, s Store) index.MetadataFS {
	return &metadataFS{ctx: ctx, s: s}
}

type metadataFS struct {
	ctx context.Context
	s   Store
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

// WriteFile replaces a metadata file atomically.
func (m *metadataFS) WriteFile(name string, data []byte) error {
	return m.s.WriteMetadata(m.ctx, name, data)
}

// CatalogOptions configure ReadCatalog.
type CatalogOptions struct {
	// Root is the pinned trust anchor (a root.json). nil means the
	// registry's own 1.root.json: the catalog is then checked for
	// consistency with the registry's history, not against an anchor the
	// caller trusts.
	Root []byte
	// Load is passed to index.Load (the clock, the rollback state).
	Load index.LoadOptions
}

// ReadCatalog reads the registry's signed catalog through its TUF
// metadata: every signature, length, hash, version and expiry is checked
// before the catalog is decoded. A registry without a catalog gives an
// error wrapping ErrNoCatalog.
func ReadCatalog(ctx context.Context, s Store, opts CatalogOptions) (*index.Catalog, *index.Trusted, error) {
	root := opts.Root
	if root == nil {
		b, err := s.ReadMetadata(ctx, "1.root.json", index.MaxRootBytes)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("metadata/1.root.json: %w", ErrNoCatalog)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read the registry's root: %w", err)
		}
		root = b
	}
	if _, err := s.ReadMetadata(ctx, index.TimestampFile, index.MaxTimestampBytes); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("metadata/%s: %w", index.TimestampFile, ErrNoCatalog)
	}
	tr, err := index.Load(ctx, Metadata(ctx, s), root, opts.Load)
	if err != nil {
		return nil, nil, err
	}
	cat, err := index.DecodeCatalog(bytes.NewReader(tr.Catalog))
	if err != nil {
		return nil, nil, fmt.Errorf("metadata/targets (catalog %s): %w", tr.CatalogDigest, err)
	}
	return cat, tr, nil
}
