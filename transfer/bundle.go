package transfer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/internal/atomicfile"
	"github.com/airvsx/airvsx/internal/copybuf"
)

// ErrBundleSince is wrapped when the state a bundle is to start from is
// not in the source's history: another registry's, a serial the source
// never signed or signed otherwise (a fork), or newer than the source.
var ErrBundleSince = errors.New("the state to bundle from is not in the source's history")

// Since is what the registry a bundle is made for holds (the far side):
// its catalog serial and, when known, the catalog's digest, the TUF
// versions of its metadata and its identity (what its state file
// records: trust.RegistryState). The more is known, the less the bundle
// carries that the far side already holds; what is known is checked.
type Since struct {
	Serial int64
	Digest string       // "" when not known (a bare serial)
	Trust  *trust.State // nil when not known
	// Registry is the identity the far side's state file records (the
	// sha256 of the root its chain starts from); "" when not known.
	Registry string
}

// SinceState is the Since of a registry's recorded state.
func SinceState(s trust.RegistryState) Since {
	t := s.Trust
	return Since{Serial: s.Serial, Digest: s.Digest, Trust: &t, Registry: s.Registry}
}

// SinceRegistry is the Since of a registry (a copy of the far side):
// its catalog's serial and digest and its TUF versions, read through its
// own chain from its first root (signatures and hashes, not expiry; the
// head only), and its identity. A registry with no catalog yet is serial
// 0, which Bundle refuses.
func SinceRegistry(ctx context.Context, st store.Store) (Since, error) {
	first, err := st.ReadMetadata(ctx, "1.root.json", trust.MaxRootBytes)
	if err != nil {
		return Since{}, err
	}
	id := index.SHA256Hex(first)
	head, tr, err := trust.OpenOwnCatalog(ctx, st)
	if errors.Is(err, trust.ErrNoCatalog) {
		return Since{Registry: id}, nil
	}
	if err != nil {
		return Since{}, fmt.Errorf("its metadata does not verify: %w", err)
	}
	t := tr.State()
	return Since{Serial: head.Serial, Digest: tr.CatalogDigest, Trust: &t, Registry: id}, nil
}

// BundleOptions configure Bundle. Anchor is required.
type BundleOptions struct {
	// Anchor, State and Now check the source as Copy checks it.
	Anchor trust.Anchor
	State  *trust.StateDir
	Now    func() time.Time
	// Source and Out name the registry and the bundle in messages.
	Source, Out string
	// FreeSpace gives the free space and block size where the bundle is
	// written, checked before anything is. Default nil: not checked.
	FreeSpace func() (free, block int64, err error)
	// Progress, when set, is called after each file written.
	Progress func(done, total int, bytes, totalBytes int64)
	// Logger receives debug records. Default nil: discard.
	Logger *slog.Logger
}

// BundleReport says what a bundle holds.
type BundleReport struct {
	Source string `json:"source"`
	Out    string `json:"out"`
	// UpToDate says the far side already holds the source's catalog: no
	// bundle was written.
	UpToDate bool            `json:"upToDate,omitempty"`
	Manifest *BundleManifest `json:"manifest"`
	// Entries is how many of the catalog's entries are new since From.
	Entries       int   `json:"entries"`
	Blobs         int   `json:"blobs"`
	BlobBytes     int64 `json:"blobBytes"`
	Metadata      int   `json:"metadata"`
	MetadataBytes int64 `json:"metadataBytes"`
	// Duration is how long the bundle took.
	Duration time.Duration `json:"durationNs"`
}

// Bundle writes into the directory out what a registry at since lacks of
// src's catalog: the blobs of the entries since added (those the far side
// holds already under the same repository left out), the metadata files
// of the catalogs since signed (the changed shards only, the new heads,
// the new TUF versions, timestamp.json) and last the manifest
// (BundleManifestName), which lists every file with its size and sha256
// and the step: from since's catalog to src's. src is verified first,
// from opts.Anchor, as Copy verifies a source, and every blob is read
// through its verifying reader. Every file name is one FAT32 and exFAT
// keep as it is, and no file is over 4 GiB, so the bundle can be carried
// on any USB stick. out must not exist or be empty. Apply applies it.
func Bundle(ctx context.Context, src store.Store, since Since, out string, opts BundleOptions) (*BundleReport, error) {
	start := time.Now()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Source == "" {
		opts.Source = "source"
	}
	if opts.Out == "" {
		opts.Out = out
	}
	rep := &BundleReport{Source: opts.Source, Out: opts.Out}
	c := &copier{opts: Options{Anchor: opts.Anchor, State: opts.State, Now: opts.Now, Source: opts.Source}, src: newMemo(src), rawSrc: src, rep: &Report{}}
	if c.opts.Now == nil {
		c.opts.Now = time.Now
	}
	if (opts.Anchor.Root == nil) == (opts.Anchor.Key == nil) {
		return nil, fmt.Errorf("bundle: %w", trust.ErrNoAnchor)
	}
	ch, err := c.checkSource(ctx)
	if err != nil {
		return nil, err
	}
	first, err := src.ReadMetadata(ctx, "1.root.json", trust.MaxRootBytes)
	if err != nil {
		return nil, fmt.Errorf("bundle: %s: %w", opts.Source, err)
	}
	b := &bundler{ctx: ctx, src: src, ch: ch, since: since, opts: opts, rep: rep,
		m: &BundleManifest{Registry: index.SHA256Hex(first), From: CatalogRef{Serial: since.Serial, Digest: since.Digest},
			To: CatalogRef{Serial: ch.cat.Serial, Digest: ch.CatalogDigest}}}
	if since.Registry != "" && since.Registry != b.m.Registry && since.Registry != ch.ID {
		return nil, fmt.Errorf("bundle: the state is of registry %s; %s is registry %s (the sha256 of its 1.root.json): bundle from the state of this registry, or from a serial: %w",
			since.Registry, opts.Source, b.m.Registry, ErrBundleSince)
	}
	rep.Manifest = b.m
	if err := b.plan(); err != nil {
		return nil, err
	}
	if !rep.UpToDate {
		if err := b.write(out); err != nil {
			return rep, err
		}
	}
	rep.Duration = time.Since(start)
	return rep, nil
}

// bundler is one run of Bundle.
type bundler struct {
	ctx   context.Context
	src   store.Store
	ch    *checked
	since Since
	opts  BundleOptions
	rep   *BundleReport
	m     *BundleManifest
	blobs []blobItem // in the order written
	meta  []string   // metadata names, in the order written
	// deltas are the shards carried as deltas, in the order written.
	deltas []bundleDelta
	// oldEntries are the far side's catalog's entries, and binned them and
	// the current catalog's by bin (made when the first delta is).
	oldEntries []index.Entry
	binned     map[string][2][]index.Entry
}

// write writes the bundle's files, then its manifest, into out.
func (b *bundler) write(out string) error {
	if err := b.checkOut(out); err != nil {
		return err
	}
	root, err := os.OpenRoot(out)
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	defer root.Close()
	afs := atomicfile.In(root)
	// The marker first: from now on the directory is a bundle, which
	// Apply refuses until its manifest is written, last.
	if err := afs.WriteFile(BundleMarkerName, []byte(bundleMarker), 0o644); err != nil {
		return fmt.Errorf("bundle: %s: %w", b.opts.Out, err)
	}
	total, totalBytes := len(b.m.Files), b.m.Bytes()
	var done int
	var bytes int64
	step := func(n int64) {
		done++
		bytes += n
		if b.opts.Progress != nil {
			b.opts.Progress(done, total, bytes, totalBytes)
		}
	}
	sums := map[string]string{}
	for _, f := range b.m.Files {
		sums[f.Path] = f.SHA256
	}
	for _, bl := range b.blobs {
		p := blobPath(bl.repo, bl.digest)
		if err := b.writeFile(root, afs, p, func(w io.Writer) error {
			rc, err := b.src.OpenBlob(b.ctx, bl.repo, bl.digest, bl.size)
			if err != nil {
				return err
			}
			defer rc.Close()
			_, err = copybuf.Copy(w, rc)
			return err
		}); err != nil {
			return err
		}
		step(bl.size)
	}
	for _, name := range b.meta {
		p := bundleMetadata + "/" + name
		data, err := b.src.ReadMetadata(b.ctx, name, index.MaxCatalogBytes)
		if err != nil {
			return fmt.Errorf("bundle: %s: %w", b.opts.Source, err)
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != sums[p] {
			return fmt.Errorf("bundle: %s: metadata/%s changed while the bundle was written; write it again", b.opts.Source, name)
		}
		if err := b.writeFile(root, afs, p, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			return err
		}
		step(int64(len(data)))
	}
	for _, d := range b.deltas {
		if err := b.writeFile(root, afs, bundleDeltas+"/"+d.name, func(w io.Writer) error { _, err := w.Write(d.data); return err }); err != nil {
			return err
		}
		step(int64(len(d.data)))
	}
	// The manifest last: a bundle without it is one whose writing did
	// not finish, and Apply says so.
	if err := afs.WriteFile(BundleManifestName, b.m.Encode(), 0o644); err != nil {
		return fmt.Errorf("bundle: %s: %w", b.opts.Out, err)
	}
	return nil
}

func (b *bundler) writeFile(root *os.Root, afs atomicfile.FS, p string, fill func(io.Writer) error) error {
	if err := root.MkdirAll(path.Dir(p), 0o755); err != nil {
		return fmt.Errorf("bundle: %s: %w", b.opts.Out, err)
	}
	if err := afs.Write(p, 0o644, fill); err != nil {
		if b.ctx.Err() != nil {
			return b.ctx.Err()
		}
		return fmt.Errorf("bundle: write %s/%s: %w", b.opts.Out, p, err)
	}
	return nil
}

// checkOut makes out, or accepts it empty, and checks its free space.
func (b *bundler) checkOut(out string) error {
	entries, err := os.ReadDir(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.Mkdir(out, 0o755); err != nil {
			return fmt.Errorf("bundle: %w (does its parent directory exist? is the stick mounted?)", err)
		}
	case err != nil:
		return fmt.Errorf("bundle: %w", err)
	case len(entries) > 0:
		return fmt.Errorf("bundle: %s is not empty: write a bundle into a new or empty directory (remove an older bundle first)", b.opts.Out)
	}
	if b.opts.FreeSpace == nil {
		return nil
	}
	free, block, err := b.opts.FreeSpace()
	if errors.Is(err, errors.ErrUnsupported) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("bundle: %s: %w", b.opts.Out, err)
	}
	block = max(block, 1)
	var need int64
	for _, f := range b.m.Files {
		need += (f.Size+block-1)/block*block + dirEntryBytes
	}
	need += 2 * block
	if need > free {
		return fmt.Errorf("bundle: %s has %s free; the bundle needs about %s (%d files): use a larger stick or free some space; nothing was written: %w",
			b.opts.Out, index.FormatBytes(free), index.FormatBytes(need), len(b.m.Files), ErrNoSpace)
	}
	return nil
}
