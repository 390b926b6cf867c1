package store

import (
	"context"
	"fmt"
	"io"
)

// Checked returns s wrapped in the checks every Store method makes before
// it touches storage, so that no store re-makes them: the arguments
// (CheckBlobArgs, CheckPutBlobArgs, CheckTagArgs, CheckRepoArgs,
// CheckMetadataArgs, CheckQuarantineArgs: ctx not done, every name valid)
// and, when readOnly, the refusal of every write with ErrReadOnly. A bad
// name never reaches s. The stores' Open functions return their store
// wrapped; Unwrap (and As) reach s itself.
func Checked(s Store, readOnly bool) Store {
	return &checked{s: s, readOnly: readOnly}
}

// checked is the Store Checked returns.
type checked struct {
	s        Store
	readOnly bool
}

// Unwrap returns the store checked wraps.
func (c *checked) Unwrap() Store { return c.s }

// writable returns ErrReadOnly for a read-only store.
func (c *checked) writable() error {
	if c.readOnly {
		return ErrReadOnly
	}
	return nil
}

func (c *checked) StatBlob(ctx context.Context, repo, digest string) (int64, error) {
	if err := CheckBlobArgs(ctx, repo, digest); err != nil {
		return 0, fmt.Errorf("stat blob: %w", err)
	}
	return c.s.StatBlob(ctx, repo, digest)
}

func (c *checked) PutBlob(ctx context.Context, repo, digest string, size int64, content Content) error {
	if err := CheckPutBlobArgs(ctx, repo, digest, size); err != nil {
		return err
	}
	if err := c.writable(); err != nil {
		return fmt.Errorf("put blob %s in %s: %w", digest, repo, err)
	}
	return c.s.PutBlob(ctx, repo, digest, size, content)
}

func (c *checked) OpenBlob(ctx context.Context, repo, digest string, size int64) (io.ReadCloser, error) {
	if err := CheckBlobArgs(ctx, repo, digest); err != nil {
		return nil, fmt.Errorf("open blob: %w", err)
	}
	if size < 0 {
		return nil, fmt.Errorf("open blob %s in %s: negative size %d", digest, repo, size)
	}
	return c.s.OpenBlob(ctx, repo, digest, size)
}

func (c *checked) Tag(ctx context.Context, repo, tag string, m Descriptor) error {
	if err := CheckTagArgs(ctx, repo, tag); err != nil {
		return fmt.Errorf("tag: %w", err)
	}
	if err := CheckManifestDescriptor(m); err != nil {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, err)
	}
	if err := c.writable(); err != nil {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, err)
	}
	return c.s.Tag(ctx, repo, tag, m)
}

func (c *checked) Tags(ctx context.Context, repo string) ([]TagEntry, error) {
	if err := CheckRepoArgs(ctx, repo); err != nil {
		return nil, fmt.Errorf("tags: %w", err)
	}
	return c.s.Tags(ctx, repo)
}

func (c *checked) Untag(ctx context.Context, repo, tag string) error {
	if err := CheckTagArgs(ctx, repo, tag); err != nil {
		return fmt.Errorf("untag: %w", err)
	}
	if err := c.writable(); err != nil {
		return fmt.Errorf("untag %s in %s: %w", tag, repo, err)
	}
	return c.s.Untag(ctx, repo, tag)
}

func (c *checked) Repos(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("repos: %w", err)
	}
	return c.s.Repos(ctx)
}

func (c *checked) ListMetadata(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list metadata: %w", err)
	}
	return c.s.ListMetadata(ctx)
}

func (c *checked) ReadMetadata(ctx context.Context, name string, maxSize int64) ([]byte, error) {
	if err := CheckMetadataArgs(ctx, name); err != nil {
		return nil, fmt.Errorf("read metadata: %w", err)
	}
	if maxSize < 0 {
		return nil, fmt.Errorf("read metadata %s: negative maxSize %d", name, maxSize)
	}
	return c.s.ReadMetadata(ctx, name, maxSize)
}

func (c *checked) WriteMetadata(ctx context.Context, name string, data []byte) error {
	if err := CheckMetadataArgs(ctx, name); err != nil {
		return fmt.Errorf("write metadata: %w", err)
	}
	if err := c.writable(); err != nil {
		return fmt.Errorf("write metadata %s: %w", name, err)
	}
	return c.s.WriteMetadata(ctx, name, data)
}

func (c *checked) Quarantine(ctx context.Context, name, reason string, files map[string]io.Reader) (string, error) {
	if err := CheckQuarantineArgs(ctx, name, files); err != nil {
		return "", fmt.Errorf("quarantine: %w", err)
	}
	if err := c.writable(); err != nil {
		return "", fmt.Errorf("quarantine %s: %w", name, err)
	}
	return c.s.Quarantine(ctx, name, reason, files)
}

func (c *checked) Close() error { return c.s.Close() }

// hider is implemented by a wrapper that keeps As from finding some of
// the capabilities of the store it wraps (capability is a *T).
type hider interface {
	hides(capability any) bool
}

// hides keeps a read-only store's writing capabilities from As: a
// caller that asks a read-only store for BlobDeleter or PendingWriter
// gets none, where Unwrap would reach the store's own.
func (c *checked) hides(capability any) bool {
	if !c.readOnly {
		return false
	}
	switch capability.(type) {
	case *BlobDeleter, *PendingWriter:
		return true
	}
	return false
}
