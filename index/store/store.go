package store

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Store holds a registry: blobs and tags per repository (Repo(id)), the
// signed metadata, and the quarantine. Manifests are blobs too, as in an
// OCI image layout. Every method checks its names first (errors wrap
// ErrInvalidName) and honours ctx. A Store is safe for concurrent use by
// several goroutines (copy and sync put blobs and tags in parallel).
// Implementations: index/store/dirstore, gitstore and ocistore; the conformance suite is index/store/storetest.
type Store interface {
	// StatBlob returns the size of a stored blob; an error wrapping
	// fs.ErrNotExist when it is absent. It does not read the content.
	StatBlob(ctx context.Context, repo, digest string) (size int64, err error)

	// PutBlob stores size bytes of c as the blob digest. It hashes while
	// writing and rejects content whose size or digest differs with a
	// *MismatchError (wrapping ErrMismatch), leaving nothing behind; an
	// error from c or ctx also leaves nothing behind. When the blob is
	// already present with that size, PutBlob returns nil and may not read
	// c at all. A store that retries a failed upload (a remote one) calls
	// c.Rewind and reads it again from the first byte.
	PutBlob(ctx context.Context, repo, digest string, size int64, c Content) error

	// OpenBlob opens a blob that should be size bytes long (the size its
	// descriptor gives; StatBlob tells it otherwise). The reader verifies:
	// it hashes while reading, never reads more than size + 1 bytes, and
	// returns a *MismatchError instead of io.EOF when the content is not
	// the one digest names. Data read before io.EOF is unverified. A
	// missing blob is an error wrapping fs.ErrNotExist.
	OpenBlob(ctx context.Context, repo, digest string, size int64) (io.ReadCloser, error)

	// Tag points tag at a manifest, replacing what it pointed at, in one
	// atomic step. The manifest blob must already be present with the
	// descriptor's size (else an error wrapping fs.ErrNotExist or
	// ErrMismatch), so a tag never dangles. MediaType must be an OCI image
	// manifest or index.
	Tag(ctx context.Context, repo, tag string, manifest Descriptor) error

	// Tags lists a repository's tags sorted by tag; an error wrapping
	// fs.ErrNotExist when the repository does not exist. Each descriptor
	// has MediaType, Digest, Size and ArtifactType; other annotations are
	// kept only where the place can keep them.
	Tags(ctx context.Context, repo string) ([]TagEntry, error)

	// Untag removes a tag in one atomic step. Removing a tag that does not
	// exist is not an error. Blobs stay.
	Untag(ctx context.Context, repo, tag string) error

	// Repos lists every repository that holds a blob or a tag, sorted as
	// strings.
	Repos(ctx context.Context) ([]string, error)

	// ListMetadata lists every metadata file (TUF metadata, the catalog),
	// as names ReadMetadata takes, sorted as strings: what a copy of the
	// registry must carry besides its repositories.
	ListMetadata(ctx context.Context) ([]string, error)

	// ReadMetadata reads a metadata file (TUF metadata, the catalog); an
	// error wrapping fs.ErrNotExist when absent and one wrapping
	// ErrTooLarge when it holds more than maxSize bytes. Names are checked
	// by CheckMetadataName.
	ReadMetadata(ctx context.Context, name string, maxSize int64) ([]byte, error)

	// WriteMetadata replaces a metadata file atomically: readers see the
	// old bytes or the new, never a mix.
	WriteMetadata(ctx context.Context, name string, data []byte) error

	// Quarantine keeps rejected files with the reason they were rejected,
	// under a new place derived from name (a single metadata-name
	// element); it never replaces an earlier quarantine. File names are
	// single elements too. It returns where the files went, as a location
	// relative to the registry ("quarantine/<name>[.N]"), never an
	// operating-system path. Quarantined files are never signed and never
	// deleted by the store.
	Quarantine(ctx context.Context, name, reason string, files map[string]io.Reader) (location string, err error)

	// Close releases the store's resources (and, for writers, its lock).
	Close() error
}

// Descriptor points at a blob: an OCI content descriptor.
type Descriptor struct {
	MediaType    string
	Digest       string // sha256:<hex>
	Size         int64
	ArtifactType string            // for manifests: their artifactType
	Annotations  map[string]string // stores may drop these; never the tag
}

// TagEntry is one tag of a repository and the manifest it points at.
type TagEntry struct {
	Tag      string
	Manifest Descriptor
}

// Errors callers branch on.
var (
	// ErrMismatch is wrapped by every *MismatchError: content that is not
	// what its digest and size say.
	ErrMismatch = errors.New("content does not match its digest")
	// ErrTooLarge is wrapped when a file holds more than the caller allows.
	ErrTooLarge = errors.New("too large")
	// ErrNotRegistry is wrapped when a path is not a registry.
	ErrNotRegistry = errors.New("not an airvsx registry")
	// ErrLocked is wrapped when another writer holds the registry.
	ErrLocked = errors.New("registry is locked by another writer")
	// ErrReadOnly is wrapped by writes to a store opened read-only.
	ErrReadOnly = errors.New("registry is open read-only")
	// ErrUnreachable is wrapped when a store cannot reach its place at
	// all (a registry that refuses the connection, fails TLS or rejects
	// the credentials): nothing was read, so nothing can be judged.
	ErrUnreachable = errors.New("the place cannot be reached")
	// ErrDamagedLayout is wrapped when a repository's layout files
	// (oci-layout, index.json) are there but not well formed.
	ErrDamagedLayout = errors.New("the repository's layout is damaged")
)

// MismatchError says a blob's content is not what its digest and size
// say. It wraps ErrMismatch.
type MismatchError struct {
	Repo   string
	Digest string // the digest asked for
	Size   int64  // the size asked for
	// GotSize is the number of bytes seen (Size + 1 when the content ran
	// past Size). GotDigest is the digest of the content, or empty when
	// it was not computed.
	GotSize   int64
	GotDigest string
}

// Error says what was expected and what was found.
func (e *MismatchError) Error() string {
	switch {
	case e.GotSize == e.Size+1 && e.GotDigest == "":
		return fmt.Sprintf("blob %s in %s: more than the expected %d bytes: %v", e.Digest, e.Repo, e.Size, ErrMismatch)
	case e.GotSize != e.Size:
		return fmt.Sprintf("blob %s in %s: %d bytes; want %d: %v", e.Digest, e.Repo, e.GotSize, e.Size, ErrMismatch)
	}
	return fmt.Sprintf("blob %s in %s: content has digest %s: %v", e.Digest, e.Repo, e.GotDigest, ErrMismatch)
}

// Unwrap returns ErrMismatch.
func (e *MismatchError) Unwrap() error { return ErrMismatch }
