package store

import (
	"context"
	"crypto"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"time"
)

// The optional capabilities a store may offer besides Store. A caller
// finds one with As, which sees through wrappers (Checked): a store
// implements a capability only when it can honour it, and the conformance
// suite (index/store/storetest) exercises every capability the store
// under test claims. Capability methods check their own arguments: they
// are reached past the wrapper.

// Unwrapper is implemented by a Store that wraps another (Checked does):
// Unwrap returns the wrapped store, so that As finds what it offers.
type Unwrapper interface {
	Unwrap() Store
}

// As returns s, or the first store s wraps (through Unwrapper), that
// implements T, and whether there is one. A wrapper may hide what it
// wraps offers (a read-only Checked hides the capabilities that only
// write, BlobDeleter and PendingWriter).
func As[T any](s Store) (T, bool) {
	for s != nil {
		if t, ok := s.(T); ok {
			return t, true
		}
		u, ok := s.(Unwrapper)
		if !ok {
			break
		}
		if h, ok := s.(hider); ok && h.hides((*T)(nil)) {
			break
		}
		s = u.Unwrap()
	}
	var zero T
	return zero, false
}

// BlobFiler is implemented by stores that keep each blob in a file of its
// own (the directory store): readers that need random access (a zip
// reader) or a second pass use the file instead of a spooled copy.
type BlobFiler interface {
	// OpenBlobFile opens a blob's file for random access. Unlike OpenBlob
	// it does not verify the content: the caller must check the size and
	// the digest itself before trusting a byte. Names are checked as
	// OpenBlob checks them. A missing blob is an error wrapping
	// fs.ErrNotExist.
	OpenBlobFile(ctx context.Context, repo, digest string) (*os.File, error)
}

// BlobReplacer is implemented by stores that can replace a blob holding
// the wrong bytes, keeping the damaged one in their quarantine (copy
// --repair).
type BlobReplacer interface {
	// ReplaceBlob reads the stored blob first and refuses one that is
	// intact or absent: good content is never touched. The damaged blob is
	// kept in the quarantine with reason, and c, checked as PutBlob checks
	// it, takes its place. It returns where the damaged blob went
	// ("quarantine/<name>[.N]").
	ReplaceBlob(ctx context.Context, repo, digest string, size int64, reason string, c Content) (quarantined string, err error)
}

// LayoutRepairer is implemented by stores whose repositories have layout
// files (oci-layout, index.json), which they can check and write anew,
// keeping damaged ones in their quarantine (copy --repair).
type LayoutRepairer interface {
	// CheckLayout reports whether repo's layout files are there and well
	// formed; an error wrapping ErrDamagedLayout when they are there but
	// are not.
	CheckLayout(ctx context.Context, repo string) error
	// ReplaceLayout quarantines repo's layout files with reason and
	// writes them anew, with no tags. It returns where the damaged files
	// went.
	ReplaceLayout(ctx context.Context, repo, reason string) (quarantined string, err error)
}

// FreeSpacer is implemented by stores on a file system, which can say how
// much they may still write, so that a copy can be refused before it
// starts instead of failing half-way.
type FreeSpacer interface {
	// FreeSpace returns the bytes free to an unprivileged writer and the
	// file system's block size; an error wrapping errors.ErrUnsupported
	// where the system cannot say.
	FreeSpace() (free, block int64, err error)
}

// Stager is implemented by stores that can take a file written by the
// caller as a blob by renaming it, instead of copying and hashing it
// again (sync's downloads).
type Stager interface {
	// NewStaging makes a staging directory inside the store. Remove it
	// when done.
	NewStaging() (Staging, error)
}

// Staging is a directory inside a store where a writer puts files that
// become blobs (Stager).
type Staging interface {
	// Dir is the directory's operating-system path, for creating files
	// in it (with os.CreateTemp, say).
	Dir() string
	// AdoptBlob stores the file name (a base name in Dir, written and
	// closed by the caller) as blob digest of size bytes in repo. The
	// caller vouches for digest: it hashed the bytes as it wrote them.
	// The size is checked. The file is gone afterwards unless the blob
	// was already present.
	AdoptBlob(ctx context.Context, repo, digest string, size int64, name string) error
	// Remove removes the directory and whatever is still in it.
	Remove() error
}

// LayoutFS is implemented by stores that keep the registry's file layout
// (index/store/artifact: extensions/<ns>/<name>/... and metadata/): FS
// returns that tree read-only, for readers that check the layout itself
// (oci-layout files, files that have no place).
type LayoutFS interface {
	FS() fs.FS
}

// Committer is implemented by stores that group writes into changes (a
// git store makes one commit per change). Writers end each change with
// Commit once its metadata is written, the catalog last. Stores whose
// every write is visible at once (the directory store) do not implement it.
type Committer interface {
	// Commit records every write since the last Commit as one change
	// described by message. Nothing is visible to readers of the change
	// history before it returns; a change that is never committed is
	// finished by the next Commit.
	Commit(ctx context.Context, message string) error
}

// Discarder is implemented by stores that can remove a registry their
// opening created while it is still empty (dirstore.Store.Discard): a writer whose
// first sync or copy failed before it stored anything leaves nothing.
type Discarder interface {
	// Discard removes the registry if this store created it and it
	// holds nothing yet, and reports whether it did. The store must
	// still be closed.
	Discard() (bool, error)
}

// History is implemented by stores whose content is a signed history of
// changes (a git store: commits). Readers that keep state between runs
// (verify) check the signature of the revision they read and that it
// descends from the one they trusted last, so a rewound history fails.
type History interface {
	// Revision names the change being read (a commit ID); "" when the
	// store holds none.
	Revision() string
	// CheckSignature checks that the revision is signed by one of keys.
	CheckSignature(ctx context.Context, keys []crypto.PublicKey) error
	// Descends reports whether the revision is old or descends from it
	// (false when old is not in the store's history at all).
	Descends(ctx context.Context, old string) (bool, error)
}

// BlobDeleter is implemented by stores that can say which blobs a
// repository holds and delete them (a directory, an OCI registry): what
// gc needs to free the bytes no catalog refers to. A store whose history
// keeps every byte (git) does not implement it. A store opened read-only
// refuses its deletes with ErrReadOnly (store.Checked hides it from As).
type BlobDeleter interface {
	// Blobs lists the blobs of repo the store can find, sorted by
	// digest: at least every manifest a tag points at, its config and
	// its layers (all a registry's API can list); a directory lists
	// every blob file. An error wrapping fs.ErrNotExist when repo does
	// not exist.
	Blobs(ctx context.Context, repo string) ([]BlobInfo, error)
	// DeleteBlob removes repo's blob digest and makes the removal
	// durable before it returns. It returns the bytes it freed; a blob
	// already gone is not an error and frees 0. A manifest's tags go
	// first (a registry drops them with the manifest), so no tag is left
	// pointing at a missing manifest, and a removal killed half-way is
	// found again by Blobs. The caller makes sure that nothing else still
	// refers to it: no catalog pins it, no writer's pending record names
	// its repository.
	DeleteBlob(ctx context.Context, repo, digest string) (freed int64, err error)
	// DeleteRepo removes a repository that holds no tag and no blob any
	// more (its layout files), durably; a repository already gone is not
	// an error, one with a tag or a blob is refused. Killed half-way, it
	// leaves nothing a reader takes for a repository (a directory: a
	// temp directory the next writer sweeps). A registry may go on
	// listing the emptied repository's name (Repos).
	DeleteRepo(ctx context.Context, repo string) error
	// ExcludeReaders waits until no reader that opened the store (in
	// any process) still has it open, calling waiting once if it has to
	// wait, and keeps readers from holding it until release is called.
	// A reader that opens meanwhile reads the catalog current then, whose
	// blobs gc keeps. It honours ctx while it waits.
	ExcludeReaders(ctx context.Context, waiting func()) (release func() error, err error)
}

// BlobInfo is one blob a repository holds (BlobDeleter.Blobs).
type BlobInfo struct {
	Digest string // sha256:<hex>
	Size   int64
}

// PendingWriter is implemented by stores that delete blobs
// (BlobDeleter): a writer (copy, sync) records which repositories it is
// about to write blobs into before its first blob, and removes the
// record once its catalog is committed, so that gc keeps the blobs an
// unfinished writer put there and its next run relies on. A record
// survives a kill; the next run of the same writer takes it over.
type PendingWriter interface {
	// BeginPending records durably that the writer name (a metadata-name
	// element: "copy", "sync") is writing blobs into repos; a record of
	// that name already there is kept and repos are added to it.
	BeginPending(ctx context.Context, name string, repos []string) error
	// EndPending removes the record name, durably; none is not an error.
	EndPending(ctx context.Context, name string) error
	// Pending returns every record, by writer name.
	Pending(ctx context.Context) ([]PendingRecord, error)
}

// writerName is what a writer's name in a pending record may be.
var writerName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// CheckWriterName checks the name of a writer's pending record
// (PendingWriter): 1 to 32 of a-z, 0-9 and "-", starting with a letter.
// The error wraps ErrInvalidName.
func CheckWriterName(name string) error {
	if !writerName.MatchString(name) {
		return fmt.Errorf("pending record %q: not a writer's name (1-32 of a-z 0-9 -, a letter first): %w", name, ErrInvalidName)
	}
	return nil
}

// PendingRecord is what an unfinished writer left (PendingWriter).
type PendingRecord struct {
	Name    string    `json:"name"`    // the writer: "copy", "sync"
	Started time.Time `json:"started"` // when the first run began
	Repos   []string  `json:"repos"`   // sorted
}

// BeginPending records in s, when it keeps pending records
// (PendingWriter), that the writer name is writing blobs into repos; on
// any other store it does nothing.
func BeginPending(ctx context.Context, s Store, name string, repos []string) error {
	if p, ok := As[PendingWriter](s); ok && len(repos) > 0 {
		if err := p.BeginPending(ctx, name, repos); err != nil {
			return fmt.Errorf("record the %s in progress: %w", name, err)
		}
	}
	return nil
}

// EndPending removes the record of the writer name from s, when it
// keeps pending records; on any other store it does nothing.
func EndPending(ctx context.Context, s Store, name string) error {
	if p, ok := As[PendingWriter](s); ok {
		if err := p.EndPending(ctx, name); err != nil {
			return fmt.Errorf("remove the record of the finished %s: %w", name, err)
		}
	}
	return nil
}
