package transfer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/trust"
)

// versionedMeta matches N.root.json, N.targets.json and N.snapshot.json.
var versionedMeta = regexp.MustCompile(`^([1-9][0-9]{0,18})\.(root|targets|snapshot)\.json$`)

// catalogAt is one catalog head of the source's history.
type catalogAt struct {
	digest string
	cat    *index.Catalog
}

// metaName is the metadata name of a catalog head.
func metaName(digest string) string {
	return strings.TrimPrefix(trust.CatalogPath(digest), "metadata/")
}

// plan works out the bundle's files: the blobs of the entries new since
// b.since, and the metadata files a registry at b.since lacks.
func (b *bundler) plan() error {
	cur := b.ch.cat
	s := b.since
	switch {
	case s.Serial < 0:
		return fmt.Errorf("bundle: serial %d: %w", s.Serial, ErrBundleSince)
	case s.Serial == 0:
		// A bundle applies to a registry; one with no catalog yet gets
		// the whole registry, which copy carries.
		return fmt.Errorf("bundle: the far side holds no catalog yet: carry the whole registry there first with airvsx copy %s DIR: %w", b.opts.Source, ErrBundleSince)
	case s.Serial > cur.Serial:
		return fmt.Errorf("bundle: the far side is at serial %d, newer than %s's serial %d: bundle from a newer copy of the registry: %w",
			s.Serial, b.opts.Source, cur.Serial, ErrBundleSince)
	case s.Serial == cur.Serial:
		if s.Digest != "" && s.Digest != b.ch.CatalogDigest {
			return b.fork(s.Serial, b.ch.CatalogDigest)
		}
		b.rep.UpToDate = true
		b.m.From = b.m.To
		return nil
	}
	heads, old, err := b.history()
	if err != nil {
		return err
	}
	if err := b.planBlobs(old); err != nil {
		return err
	}
	if err := b.planMetadata(heads, old); err != nil {
		return err
	}
	sortFiles(b.m.Files)
	// Every name and size checked as Apply will check them, before a
	// byte is written: a bundle FAT cannot hold is refused here.
	if _, err := ParseBundleManifest(b.m.Encode()); err != nil {
		return fmt.Errorf("bundle: %s cannot be carried on a FAT or exFAT stick: %w", b.opts.Source, err)
	}
	return nil
}

func (b *bundler) fork(serial int64, ours string) error {
	return fmt.Errorf("bundle: the far side's serial %d is catalog %s; %s's serial %d is %s: a fork, not a step of this registry's history: %w",
		serial, b.since.Digest, b.opts.Source, serial, ours, ErrBundleSince)
}

// history walks the catalog chain back from the current head to the
// far side's serial: the heads signed since (newest first) and the far
// side's own. Each head read is checked against the
// digest its successor names.
func (b *bundler) history() ([]catalogAt, *catalogAt, error) {
	heads := []catalogAt{{b.ch.CatalogDigest, b.ch.cat}}
	for {
		h := heads[len(heads)-1]
		prevDigest := h.cat.Previous
		if prevDigest == "" {
			return nil, nil, fmt.Errorf("bundle: %s's history starts at serial %d, after the far side's serial %d: %w",
				b.opts.Source, h.cat.Serial, b.since.Serial, ErrBundleSince)
		}
		prev, err := b.readHead(prevDigest)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case prev.Serial >= h.cat.Serial:
			return nil, nil, fmt.Errorf("bundle: %s: %s: serial %d follows serial %d: %w", b.opts.Source, trust.CatalogPath(h.digest), h.cat.Serial, prev.Serial, ErrSource)
		case prev.Serial < b.since.Serial:
			return nil, nil, fmt.Errorf("bundle: %s never signed serial %d (its history goes from %d to %d): %w",
				b.opts.Source, b.since.Serial, prev.Serial, h.cat.Serial, ErrBundleSince)
		case prev.Serial == b.since.Serial:
			if b.since.Digest != "" && b.since.Digest != prevDigest {
				return nil, nil, b.fork(prev.Serial, prevDigest)
			}
			b.m.From.Digest = prevDigest
			return heads, &catalogAt{prevDigest, prev}, nil
		}
		heads = append(heads, catalogAt{prevDigest, prev})
	}
}

// readHead reads an earlier catalog head of the source, checked against
// its digest.
func (b *bundler) readHead(digest string) (*index.Catalog, error) {
	data, err := b.src.ReadMetadata(b.ctx, metaName(digest), index.MaxCatalogBytes)
	if err != nil {
		return nil, fmt.Errorf("bundle: %s: %s: %w", b.opts.Source, trust.CatalogPath(digest), err)
	}
	if index.DigestBytes(data) != digest {
		return nil, fmt.Errorf("bundle: %s: %s: its bytes are not the catalog its name says: %w", b.opts.Source, trust.CatalogPath(digest), ErrSource)
	}
	cat, err := index.DecodeCatalog(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("bundle: %s: %s: %w: %w", b.opts.Source, trust.CatalogPath(digest), ErrSource, err)
	}
	return cat, nil
}

// entriesOf returns every entry of an earlier catalog: a format-1
// catalog's own, or its shards', each checked against the head.
func (b *bundler) entriesOf(h *catalogAt) ([]index.Entry, error) {
	if h.cat.Format == index.FlatCatalogFormat {
		return h.cat.Entries, nil
	}
	var all []index.Entry
	for _, ref := range h.cat.Shards {
		name := strings.TrimPrefix(trust.ShardPath(ref), "metadata/")
		data, err := b.src.ReadMetadata(b.ctx, name, ref.Size)
		if err == nil && (int64(len(data)) != ref.Size || index.DigestBytes(data) != ref.Digest) {
			err = errors.New("its bytes are not the shard its catalog pins")
		}
		var es []index.Entry
		if err == nil {
			es, err = index.DecodeShard(bytes.NewReader(data), h.cat, ref)
		}
		if err != nil {
			return nil, fmt.Errorf("bundle: %s: %s (of serial %d): %w", b.opts.Source, trust.ShardPath(ref), h.cat.Serial, err)
		}
		all = append(all, es...)
	}
	return all, nil
}

// planBlobs plans the blobs of every entry of the current catalog the far
// side's catalog does not pin, less those the far side holds in the same
// repository (its entries' manifests, configs and layers).
func (b *bundler) planBlobs(old *catalogAt) error {
	var oldEntries []index.Entry
	if old != nil {
		var err error
		if oldEntries, err = b.entriesOf(old); err != nil {
			return err
		}
	}
	b.oldEntries = oldEntries
	pinned := map[string]bool{} // repo "@" manifest digest
	byRepo := map[string][]*index.Entry{}
	for i := range oldEntries {
		e := &oldEntries[i]
		r := artifact.Repo(e.ID)
		pinned[r+"@"+e.ManifestDigest] = true
		byRepo[r] = append(byRepo[r], e)
	}
	held := map[string]bool{} // repo "@" digest the far side holds, or the bundle carries
	looked := map[string]bool{}
	add := func(repo, digest string, size int64) {
		k := repo + "@" + digest
		if held[k] {
			return
		}
		held[k] = true
		b.blobs = append(b.blobs, blobItem{repo: repo, digest: digest, size: size})
		b.m.Files = append(b.m.Files, BundleFile{Path: blobPath(repo, digest), Size: size, SHA256: strings.TrimPrefix(digest, "sha256:")})
		b.rep.Blobs++
		b.rep.BlobBytes += size
	}
	cur := b.ch.cat
	for i := range cur.Entries {
		if err := b.ctx.Err(); err != nil {
			return err
		}
		e := &cur.Entries[i]
		r := artifact.Repo(e.ID)
		if pinned[r+"@"+e.ManifestDigest] {
			continue
		}
		b.rep.Entries++
		if !looked[r] {
			looked[r] = true
			for _, oe := range byRepo[r] {
				m, err := artifact.EntryManifest(b.ctx, b.src, oe)
				if errors.Is(err, fs.ErrNotExist) {
					// Pruned here since: the far side's blobs of it are
					// not known, so nothing is left out on its account.
					b.opts.Logger.Debug("an entry of the far side's catalog is no longer stored", "entry", oe.String())
					continue
				}
				if err != nil {
					return fmt.Errorf("bundle: %s: %w: %w", b.opts.Source, ErrSource, err)
				}
				held[r+"@"+artifact.EmptyConfigDigest] = true
				held[r+"@"+m.Digest] = true
				for _, l := range m.Layers {
					held[r+"@"+l.Digest] = true
				}
			}
		}
		m, err := artifact.EntryManifest(b.ctx, b.src, e)
		if err != nil {
			return fmt.Errorf("bundle: %s: %w: %w", b.opts.Source, ErrSource, err)
		}
		add(r, artifact.EmptyConfigDigest, int64(len(artifact.EmptyConfig)))
		for _, l := range m.Layers {
			add(r, l.Digest, l.Size)
		}
		add(r, m.Digest, m.Size)
	}
	return nil
}

// planMetadata plans the metadata files the far side lacks: the heads
// signed since its serial, the current head's shards its head does not
// pin, the TUF files of versions after those it holds, root.json when
// the root changed, and timestamp.json.
func (b *bundler) planMetadata(heads []catalogAt, old *catalogAt) error {
	var have trust.State
	switch {
	case b.since.Trust != nil:
		have = *b.since.Trust
	case old != nil:
		have = b.versionsAt(old.digest)
	}
	want := map[string]bool{}
	for _, h := range heads {
		want[metaName(h.digest)] = true
	}
	oldShards := map[string]bool{}
	if old != nil {
		for _, ref := range old.cat.Shards {
			oldShards[ref.Digest+ref.Bin] = true
		}
	}
	for _, ref := range b.ch.cat.Shards {
		if !oldShards[ref.Digest+ref.Bin] {
			want[strings.TrimPrefix(trust.ShardPath(ref), "metadata/")] = true
		}
	}
	// The control lists the head pins that the far side's does not.
	oldControl := map[string]bool{}
	if old != nil {
		for _, ref := range old.cat.Control {
			oldControl[ref.Digest] = true
		}
	}
	for _, ref := range b.ch.cat.Control {
		if !oldControl[ref.Digest] {
			want[strings.TrimPrefix(trust.ControlPath(ref), "metadata/")] = true
		}
	}
	names, err := b.src.ListMetadata(b.ctx)
	if err != nil {
		return fmt.Errorf("bundle: %s: %w", b.opts.Source, err)
	}
	for _, n := range names {
		if !b.ch.Names(n) || !b.newMeta(n, have, want) {
			continue
		}
		delete(want, n)
		data, err := b.src.ReadMetadata(b.ctx, n, index.MaxCatalogBytes)
		if err != nil {
			return fmt.Errorf("bundle: %s: %w", b.opts.Source, err)
		}
		if d := b.delta(n, old, data); d != nil {
			sum := sha256.Sum256(d)
			b.deltas = append(b.deltas, bundleDelta{name: n, data: d})
			b.m.Files = append(b.m.Files, BundleFile{Path: bundleDeltas + "/" + n, Size: int64(len(d)), SHA256: hex.EncodeToString(sum[:])})
			b.rep.Metadata++
			b.rep.MetadataBytes += int64(len(d))
			continue
		}
		sum := sha256.Sum256(data)
		b.meta = append(b.meta, n)
		b.m.Files = append(b.m.Files, BundleFile{Path: bundleMetadata + "/" + n, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])})
		b.rep.Metadata++
		b.rep.MetadataBytes += int64(len(data))
	}
	for n := range want {
		return fmt.Errorf("bundle: %s lacks metadata/%s, which its signed catalog needs: %w", b.opts.Source, n, ErrSource)
	}
	return nil
}

// newMeta reports whether the metadata file n is one the far side lacks.
func (b *bundler) newMeta(n string, have trust.State, want map[string]bool) bool {
	switch {
	case want[n]:
		return true
	case n == trust.RootFile:
		return b.ch.Root.Version > have.Root
	case n == trust.TimestampFile:
		return true
	}
	m := versionedMeta.FindStringSubmatch(n)
	if m == nil {
		return false // an earlier catalog or shard: the far side holds what it needs of them
	}
	v, _ := strconv.ParseInt(m[1], 10, 64)
	switch m[2] {
	case "root":
		return v > have.Root
	case "targets":
		return v > have.Targets
	}
	return v > have.Snapshot
}

// versionsAt works out the TUF versions a registry held when its catalog
// was digest (the far side's, given only as a serial): the newest
// targets that pins it and the newest snapshot of that targets. What it
// cannot work out is taken as not held (the bundle carries more). The
// root's version is not recorded there: only the first is taken as held.
func (b *bundler) versionsAt(digest string) trust.State {
	st := trust.State{Root: 1}
	hexSum := strings.TrimPrefix(digest, "sha256:")
	for v := b.ch.Targets.Version; v >= 1; v-- {
		data, err := b.src.ReadMetadata(b.ctx, strconv.FormatInt(v, 10)+".targets.json", trust.MaxTargetsBytes)
		if err != nil {
			break
		}
		var t struct {
			Signed struct {
				Targets map[string]struct {
					Hashes map[string]string `json:"hashes"`
				} `json:"targets"`
			} `json:"signed"`
		}
		if json.Unmarshal(data, &t) == nil && t.Signed.Targets[trust.CatalogTarget].Hashes["sha256"] == hexSum {
			st.Targets = v
			break
		}
	}
	if st.Targets == 0 {
		return st
	}
	for v := b.ch.Snapshot.Version; v >= 1; v-- {
		data, err := b.src.ReadMetadata(b.ctx, strconv.FormatInt(v, 10)+".snapshot.json", trust.MaxSnapshotBytes)
		if err != nil {
			break
		}
		var s struct {
			Signed struct {
				Meta map[string]struct {
					Version int64 `json:"version"`
				} `json:"meta"`
			} `json:"signed"`
		}
		if json.Unmarshal(data, &s) == nil && s.Signed.Meta["targets.json"].Version == st.Targets {
			st.Snapshot = v
			break
		}
	}
	return st
}

// bundleDelta is a shard carried as a delta (see shardDelta).
type bundleDelta struct {
	name string // the shard's metadata name
	data []byte
}

// delta returns the delta that makes the shard n (whose bytes are data)
// from the far side's shard of its bin, or nil when the far side has
// none of that bin or the delta would not be smaller.
func (b *bundler) delta(n string, old *catalogAt, data []byte) []byte {
	m := shardMeta.FindStringSubmatch(n)
	cur := b.ch.cat
	if m == nil || old == nil || old.cat.Format != index.CatalogFormat || old.cat.ShardDigits != cur.ShardDigits {
		return nil
	}
	bin := m[2]
	var base *index.ShardRef
	for i := range old.cat.Shards {
		if old.cat.Shards[i].Bin == bin {
			base = &old.cat.Shards[i]
		}
	}
	if base == nil {
		return nil
	}
	if b.binned == nil {
		b.binned = map[string][2][]index.Entry{}
		for _, e := range b.oldEntries {
			k := index.BinOf(e.ID, cur.ShardDigits)
			v := b.binned[k]
			v[0] = append(v[0], e)
			b.binned[k] = v
		}
		for _, e := range cur.Entries {
			k := index.BinOf(e.ID, cur.ShardDigits)
			v := b.binned[k]
			v[1] = append(v[1], e)
			b.binned[k] = v
		}
	}
	v := b.binned[bin]
	d, err := makeDelta(bin, *base, v[0], v[1], data)
	if err != nil {
		b.opts.Logger.Debug("no delta for a shard", "shard", n, "err", err)
		return nil
	}
	return d
}
