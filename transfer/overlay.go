package transfer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/internal/safefile"
)

// overlay is a bundle laid over the registry it was made for: a
// read-only store that holds what the registry will hold once the bundle
// is applied. Blobs and metadata files come from the bundle when it has
// them (each checked against its manifest line, a blob by its digest on
// every read), else from the registry. Copying the overlay into the
// registry is applying the bundle: the copy verifies the trust chain,
// the catalog, every manifest and every blob it moves, and writes the
// metadata last.
type overlay struct {
	root  *os.Root // the bundle's directory
	name  string   // the bundle's directory, for messages
	under store.Store
	blobs map[string]BundleFile // repo "@" digest
	meta  map[string]BundleFile // metadata name
	delta map[string]BundleFile // the metadata name of the shard it makes
	repos []string
	// bases holds shards of under already decoded (primeBase), by
	// digest: a delta's base found here is not read and decoded again.
	bases sync.Map
	// made holds the shards made from deltas (splice), by metadata name:
	// read again to be written, they are not made again.
	made sync.Map
}

// fromUnder reports whether the metadata file name is read from under
// (the bundle neither carries it nor makes it from a delta): a copy of
// the overlay into under finds it there already.
func (o *overlay) fromUnder(name string) bool {
	_, m := o.meta[name]
	_, d := o.delta[name]
	return !m && !d
}

// primeBase records the entries of under's shard of digest, decoded and
// checked against the digest by the caller (the destination's verified
// head pins it), for the deltas whose base it is.
func (o *overlay) primeBase(digest string, entries []index.Entry) { o.bases.Store(digest, entries) }

var (
	_ store.Store     = (*overlay)(nil)
	_ store.BlobFiler = (*overlay)(nil)
)

func newOverlay(root *os.Root, name string, m *BundleManifest, under store.Store) *overlay {
	o := &overlay{root: root, name: name, under: under, blobs: map[string]BundleFile{}, meta: map[string]BundleFile{}, delta: map[string]BundleFile{}}
	repos := map[string]bool{}
	for _, f := range m.Files {
		if n, ok := strings.CutPrefix(f.Path, bundleMetadata+"/"); ok {
			o.meta[n] = f
			continue
		}
		if n, ok := strings.CutPrefix(f.Path, bundleDeltas+"/"); ok {
			o.delta[n] = f
			continue
		}
		rest := strings.TrimPrefix(f.Path, bundleBlobs+"/")
		i := strings.LastIndexByte(rest, '/')
		repo := rest[:i]
		o.blobs[repo+"@sha256:"+rest[i+1:]] = f
		repos[repo] = true
	}
	o.repos = slices.Sorted(maps.Keys(repos))
	return o
}

func (o *overlay) StatBlob(ctx context.Context, repo, digest string) (int64, error) {
	if f, ok := o.blobs[repo+"@"+digest]; ok {
		return f.Size, nil
	}
	return o.under.StatBlob(ctx, repo, digest)
}

func (o *overlay) OpenBlob(ctx context.Context, repo, digest string, size int64) (io.ReadCloser, error) {
	f, ok := o.blobs[repo+"@"+digest]
	if !ok {
		return o.under.OpenBlob(ctx, repo, digest, size)
	}
	return store.OpenVerified(ctx, repo, digest, size, func() (io.ReadCloser, int64, error) {
		file, fi, err := safefile.OpenIn(o.root, f.Path, f.Size)
		if err != nil {
			return nil, 0, fmt.Errorf("bundle %s: %w", o.name, err)
		}
		return file, fi.Size(), nil
	})
}

// OpenBlobFile opens a blob the bundle carries (store.BlobFiler), so a
// copy reads it once and the destination's PutBlob alone hashes it. A
// blob the bundle does not carry is not one the copy moves: an error
// wrapping fs.ErrNotExist.
func (o *overlay) OpenBlobFile(ctx context.Context, repo, digest string) (*os.File, error) {
	if err := store.CheckBlobArgs(ctx, repo, digest); err != nil {
		return nil, err
	}
	f, ok := o.blobs[repo+"@"+digest]
	if !ok {
		return nil, fmt.Errorf("bundle %s: no blob %s in %s: %w", o.name, digest, repo, fs.ErrNotExist)
	}
	file, _, err := safefile.OpenIn(o.root, f.Path, f.Size)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", o.name, err)
	}
	return file, nil
}

func (o *overlay) ReadMetadata(ctx context.Context, name string, maxSize int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, ok := o.meta[name]
	if !ok {
		if d, ok := o.delta[name]; ok {
			data, err := o.shardFromDelta(ctx, name, d)
			if err == nil && int64(len(data)) > maxSize {
				err = fmt.Errorf("bundle %s: %s makes %d bytes, more than %d: %w", o.name, d.Path, len(data), maxSize, store.ErrTooLarge)
			}
			return data, err
		}
		return o.under.ReadMetadata(ctx, name, maxSize)
	}
	if f.Size > maxSize {
		return nil, fmt.Errorf("bundle %s: %s: %d bytes, more than %d: %w", o.name, f.Path, f.Size, maxSize, store.ErrTooLarge)
	}
	data, err := safefile.ReadIn(o.root, f.Path, f.Size)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", o.name, err)
	}
	if err := checkSum(f, data); err != nil {
		return nil, fmt.Errorf("bundle %s: %w: %w", o.name, err, store.ErrMismatch)
	}
	return data, nil
}

// checkSum checks bytes read against their manifest line.
func checkSum(f BundleFile, data []byte) error {
	sum := sha256.Sum256(data)
	if int64(len(data)) != f.Size || !bytes.Equal(sum[:], mustHex(f.SHA256)) {
		return fmt.Errorf("%s: %d bytes with sha256 %x; %s lists %d bytes with sha256 %s", f.Path, len(data), sum, BundleManifestName, f.Size, f.SHA256)
	}
	return nil
}

func mustHex(s string) []byte {
	b, _ := hex.DecodeString(s)
	return b
}

func (o *overlay) ListMetadata(ctx context.Context) ([]string, error) {
	names, err := o.under.ListMetadata(ctx)
	if err != nil {
		return nil, err
	}
	for n := range o.meta {
		names = append(names, n)
	}
	for n := range o.delta {
		names = append(names, n)
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

func (o *overlay) Repos(ctx context.Context) ([]string, error) {
	repos, err := o.under.Repos(ctx)
	if err != nil {
		return nil, err
	}
	repos = append(repos, o.repos...)
	slices.Sort(repos)
	return slices.Compact(repos), nil
}

func (o *overlay) Tags(ctx context.Context, repo string) ([]store.TagEntry, error) {
	return o.under.Tags(ctx, repo)
}

func (o *overlay) PutBlob(context.Context, string, string, int64, store.Content) error {
	return o.readOnly()
}

func (o *overlay) Tag(context.Context, string, string, store.Descriptor) error { return o.readOnly() }

func (o *overlay) Untag(context.Context, string, string) error { return o.readOnly() }

func (o *overlay) WriteMetadata(context.Context, string, []byte) error { return o.readOnly() }

func (o *overlay) Quarantine(context.Context, string, string, map[string]io.Reader) (string, error) {
	return "", o.readOnly()
}

func (o *overlay) readOnly() error {
	return fmt.Errorf("bundle %s: %w", o.name, store.ErrReadOnly)
}

// Close closes the bundle's directory; the registry under it stays open.
func (o *overlay) Close() error { return o.root.Close() }
