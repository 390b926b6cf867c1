package transfer

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/trust"
)

// plan is what a copy moves. It holds names, digests and sizes (and the
// manifests, a few kilobytes each, which the plan had to read anyway),
// never blob content: memory grows with the catalog, as the catalog
// itself does, not with the bytes of the registry.
type plan struct {
	blobs     []blobItem     // config and layers, by repository
	manifests []manifestItem // written after every layer
	tags      []tagItem
	meta      []metaItem // in the order they are written
	layouts   []string   // repositories whose damaged layout is written anew (Options.Repair)
}

type blobItem struct {
	repo, digest string
	size         int64
	damaged      bool // held by the destination with other bytes (Options.Repair)
}

type manifestItem struct {
	repo, digest string
	data         []byte
	damaged      bool
}

type tagItem struct {
	repo, tag string
	desc      store.Descriptor
}

type metaItem struct {
	name string
	sum  [32]byte // sha256 of the source's bytes when planned
	size int64
}

// makePlan reads every manifest the catalog pins from the source
// (verified), and plans what the destination lacks. Every manifest that
// does not verify is named, then the copy fails once.
func (c *copier) makePlan(ctx context.Context, src *checked) error {
	p := &plan{}
	c.plan = p
	ps := &planState{c: c, p: p, seen: map[string]bool{}, damaged: map[string]bool{}, repos: map[string]*RepoMove{}, tags: map[string][]store.TagEntry{}}
	var bad []error
	entries := src.cat.Entries
	if c.opts.held != nil {
		// Applying a bundle: the entries the destination's verified
		// catalog pins are its own; only the others are planned.
		entries = make([]index.Entry, 0, len(src.cat.Entries)-len(c.opts.held))
		for _, e := range src.cat.Entries {
			if !c.opts.held[artifact.Repo(e.ID)+"@"+e.ManifestDigest] {
				entries = append(entries, e)
			}
		}
		c.rep.Held += len(src.cat.Entries) - len(entries)
	}
	n := len(entries)
	pctx, stop := context.WithCancel(ctx)
	probes, wait := c.probeAhead(pctx, entries)
	defer func() { stop(); wait() }()
	for i := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		e := &entries[i]
		c.progress(Progress{Step: "plan", Entries: i, PlannedEntries: n})
		var pr *entryProbe
		select {
		case pr = <-probes[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		if pr.err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			bad = append(bad, pr.err)
			continue
		}
		if err := ps.entry(ctx, artifact.Repo(e.ID), pr); err != nil {
			return err
		}
	}
	repos := ps.repos
	c.rep.CatalogBlobs, c.rep.CatalogBytes = c.rep.Blobs+c.rep.Present, c.rep.Bytes+c.rep.PresentBytes
	c.progress(Progress{Step: "plan", Entries: n, PlannedEntries: n, PlannedBlobs: c.rep.Blobs, PlannedBytes: c.rep.Bytes})
	if len(bad) > 0 {
		return fmt.Errorf("copy: %s: %w: %w", c.opts.Source, ErrSource, errors.Join(bad...))
	}
	if err := c.checkRepairable(); err != nil {
		return err
	}
	// The config blob ("{}", two bytes) of each repository first: the
	// first blob of a repository makes its layout (a directory's
	// oci-layout and index.json, an OCI registry's first upload to it),
	// small work that waits on the disk or the network rather than the
	// CPU. Done first, on more workers, it is out of the way of the large
	// blobs, which then stream with no wait until the first tag.
	slices.SortStableFunc(p.blobs, func(a, b blobItem) int {
		return cmp.Compare(boolInt(a.digest != artifact.EmptyConfigDigest), boolInt(b.digest != artifact.EmptyConfigDigest))
	})
	for _, r := range repos {
		c.rep.Repositories = append(c.rep.Repositories, *r)
	}
	slices.SortFunc(c.rep.Repositories, func(a, b RepoMove) int { return strings.Compare(a.Repo, b.Repo) })
	c.rep.Tags = len(p.tags)
	return c.planMetadata(ctx, src.Trusted)
}

// planState is what makePlan has planned so far: the blobs seen (each
// planned once per repository), those the destination holds damaged, the
// repositories that receive blobs, and the destination's tags.
type planState struct {
	c       *copier
	p       *plan
	seen    map[string]bool // repo "@" digest
	damaged map[string]bool // repo "@" digest
	repos   map[string]*RepoMove
	tags    map[string][]store.TagEntry
}

// entry plans one entry of repo, whose manifest pr read (verified): its
// blobs and manifest that the destination lacks, and its tag.
func (ps *planState) entry(ctx context.Context, repo string, pr *entryProbe) error {
	c, p, m := ps.c, ps.p, pr.m
	blobs := []blobItem{{repo: repo, digest: artifact.EmptyConfigDigest, size: int64(len(artifact.EmptyConfig))}}
	for _, l := range m.Layers {
		blobs = append(blobs, blobItem{repo: repo, digest: l.Digest, size: l.Size})
	}
	for _, b := range blobs {
		ok, err := ps.want(ctx, pr, repo, b.digest, b.size)
		if err != nil {
			return err
		}
		if ok {
			b.damaged = ps.damaged[repo+"@"+b.digest]
			p.blobs = append(p.blobs, b)
		}
	}
	ok, err := ps.want(ctx, pr, repo, m.Digest, m.Size)
	if err != nil {
		return err
	}
	if ok {
		p.manifests = append(p.manifests, manifestItem{repo, m.Digest, pr.raw, ps.damaged[repo+"@"+m.Digest]})
	}
	if _, ok := ps.tags[repo]; !ok && c.dst != nil {
		t, err := pr.tags()
		switch {
		case c.opts.Repair && errors.Is(err, store.ErrDamagedLayout):
			// Written anew before the tags; then every tag is missing.
			c.rep.Damaged = append(c.rep.Damaged, Damage{Repo: repo, Problem: err.Error()})
			p.layouts = append(p.layouts, repo)
			t = nil
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("copy: %s: %w", c.opts.Dest, err)
		}
		ps.tags[repo] = t
	}
	return c.planTag(ctx, p, ps.tags, repo, m)
}

// want reports whether the blob digest (of size) of repo is to be copied:
// not seen before, and not held intact by the destination (a damaged
// copy there is recorded, and replaced).
func (ps *planState) want(ctx context.Context, pr *entryProbe, repo, digest string, size int64) (bool, error) {
	c := ps.c
	k := repo + "@" + digest
	if ps.seen[k] {
		return false, nil
	}
	ps.seen[k] = true
	if c.dst != nil {
		r := pr.stat(ctx, c, repo, digest)
		switch {
		case r.err == nil && r.size == size && r.damage == nil:
			c.rep.Present++
			c.rep.PresentBytes += size
			return false, nil
		case r.err != nil && !errors.Is(r.err, fs.ErrNotExist):
			return false, fmt.Errorf("copy: %s: %w", c.opts.Dest, r.err)
		case r.damage != nil: // of this size or another: kept, then replaced
			ps.damaged[k] = true
			c.rep.Damaged = append(c.rep.Damaged, Damage{Repo: repo, Digest: digest, Size: size, Problem: r.damage.Error()})
		}
	}
	rm := ps.repos[repo]
	if rm == nil {
		rm = &RepoMove{Repo: repo}
		ps.repos[repo] = rm
	}
	rm.Blobs++
	rm.Bytes += size
	c.rep.Blobs++
	c.rep.Bytes += size
	return true, nil
}

// planWorkers is how many entries the plan reads and asks the
// destination about at once, ahead of the loop that decides: against a
// remote destination each question is a round trip, and one at a time
// they would add up (2,000 blobs, 2,000 HEADs).
const planWorkers = 8

// entryProbe is what the plan learns of one entry ahead of deciding: its
// manifest from the source, the destination's answer for each blob the
// manifest names, and the destination's tags of its repository.
type entryProbe struct {
	m     *artifact.Manifest
	raw   []byte
	err   error
	sizes map[string]statResult // by digest
	tags  func() ([]store.TagEntry, error)
}

// statResult is the destination's answer for a blob: its size, and with
// Options.Repair, the damage found reading it.
type statResult struct {
	size   int64
	err    error
	damage *store.MismatchError
}

// stat returns the destination's answer for a blob of the entry, asking
// now for one the probe did not.
func (pr *entryProbe) stat(ctx context.Context, c *copier, repo, digest string) statResult {
	if r, ok := pr.sizes[digest]; ok {
		return r
	}
	return c.probeBlob(ctx, repo, digest)
}

// probeBlob asks the destination for a blob's size and, with
// Options.Repair, reads the blob it holds through its verifying reader.
func (c *copier) probeBlob(ctx context.Context, repo, digest string) statResult {
	var r statResult
	r.size, r.err = c.dst.StatBlob(ctx, repo, digest)
	if r.err != nil || !c.opts.Repair {
		return r
	}
	r.damage, r.err = store.BlobDamage(ctx, c.dst, repo, digest, r.size)
	return r
}

// probeAhead reads the entries' manifests from the source and asks the
// destination (when there is one) about their blobs and tags on
// planWorkers goroutines, in the entries' order, until ctx ends; the
// probe of entries[i] arrives on the i-th channel. Each repository's tags
// are asked for once. wait returns once the goroutines have (cancel ctx
// first to stop them early).
func (c *copier) probeAhead(ctx context.Context, entries []index.Entry) (probes []chan *entryProbe, wait func()) {
	out := make([]chan *entryProbe, len(entries))
	for i := range out {
		out[i] = make(chan *entryProbe, 1)
	}
	var mu sync.Mutex
	tagsOf := map[string]func() ([]store.TagEntry, error){}
	repoTags := func(repo string) func() ([]store.TagEntry, error) {
		mu.Lock()
		defer mu.Unlock()
		f := tagsOf[repo]
		if f == nil {
			f = sync.OnceValues(func() ([]store.TagEntry, error) {
				if lc, ok := store.As[store.LayoutRepairer](c.dst); ok && c.opts.Repair {
					if err := lc.CheckLayout(ctx, repo); errors.Is(err, store.ErrDamagedLayout) {
						return nil, err
					}
				}
				return c.dst.Tags(ctx, repo)
			})
			tagsOf[repo] = f
		}
		return f
	}
	next := make(chan int)
	go func() {
		defer close(next)
		for i := range entries {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range min(planWorkers, max(len(entries), 1)) {
		wg.Go(func() {
			for i := range next {
				e := &entries[i]
				pr := &entryProbe{sizes: map[string]statResult{}}
				pr.m, pr.raw, pr.err = readManifest(ctx, c.src, e)
				if pr.err == nil && c.dst != nil {
					repo := artifact.Repo(e.ID)
					pr.tags = repoTags(repo)
					digests := []string{artifact.EmptyConfigDigest, pr.m.Digest}
					for _, l := range pr.m.Layers {
						digests = append(digests, l.Digest)
					}
					for _, d := range digests {
						pr.sizes[d] = c.probeBlob(ctx, repo, d)
					}
					pr.tags() // fetched now, off the deciding loop
				}
				out[i] <- pr
			}
		})
	}
	return out, wg.Wait
}

// readManifest reads the manifest the catalog pins for e, verified by
// digest and size, and checks that it is e's.
func readManifest(ctx context.Context, s store.Store, e *index.Entry) (*artifact.Manifest, []byte, error) {
	raw, err := store.ReadBlob(ctx, s, artifact.Repo(e.ID), e.ManifestDigest, e.ManifestSize, artifact.MaxManifestBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("manifest of %s: %w", e, err)
	}
	m, err := artifact.ParseManifest(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("manifest of %s: %w", e, err)
	}
	if err := artifact.CheckEntry(m, e); err != nil {
		return nil, nil, err
	}
	return m, raw, nil
}

// planTag plans the entry's tag unless the destination has it pointing at
// the manifest.
func (c *copier) planTag(ctx context.Context, p *plan, tags map[string][]store.TagEntry, repo string, m *artifact.Manifest) error {
	if c.dst != nil {
		have, ok := tags[repo]
		if !ok {
			t, err := c.dst.Tags(ctx, repo)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("copy: %s: %w", c.opts.Dest, err)
			}
			have, tags[repo] = t, t
		}
		tag := m.Tag()
		i := slices.IndexFunc(have, func(t store.TagEntry) bool { return t.Tag == tag })
		if i >= 0 && have[i].Manifest.Digest == m.Digest && have[i].Manifest.Size == m.Size {
			return nil
		}
	}
	p.tags = append(p.tags, tagItem{repo, m.Tag(), m.Descriptor()})
	return nil
}

// planMetadata plans every metadata file of the source that the chain t
// names (trust.Trusted.Names) and the destination lacks or holds with
// other bytes, in the order they are written: the catalogs, targets and
// snapshots, then the roots by version, root.json, and timestamp.json
// last, the commit point. A file the chain does not name, or a catalog
// whose bytes are not the digest its name says, is left out: no signature
// covers it, and the destination must not carry it as if one did (a git
// destination's commit is signed). Those are counted in Report.Stray and
// logged as a warning.
func (c *copier) planMetadata(ctx context.Context, t *trust.Trusted) error {
	names, err := c.src.ListMetadata(ctx)
	if err != nil {
		return fmt.Errorf("copy: %s: %w", c.opts.Source, err)
	}
	slices.SortStableFunc(names, func(a, b string) int {
		if d := metaRank(a) - metaRank(b); d != 0 {
			return d
		}
		return cmp.Compare(rootVersion(a), rootVersion(b)) // 0 for all but N.root.json
	})
	for _, name := range names {
		if c.opts.bundle != nil && c.opts.bundle.fromUnder(name) {
			continue // the destination's own file, where it is
		}
		if !t.Names(name) {
			c.stray(name)
			continue
		}
		data, err := c.src.ReadMetadata(ctx, name, index.MaxCatalogBytes)
		if err != nil {
			return fmt.Errorf("copy: %s: %w", c.opts.Source, err)
		}
		if strings.HasPrefix(name, "targets/") && !trust.ContentNamed(name, data) {
			c.stray(name) // not the catalog or shard its name says
			continue
		}
		if c.dst != nil {
			have, err := c.dst.ReadMetadata(ctx, name, int64(len(data)))
			switch {
			case err == nil && bytes.Equal(have, data):
				continue
			case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, store.ErrTooLarge):
				return fmt.Errorf("copy: %s: %w", c.opts.Dest, err)
			}
		}
		c.plan.meta = append(c.plan.meta, metaItem{name, sha256.Sum256(data), int64(len(data))})
		c.rep.Metadata = append(c.rep.Metadata, name)
	}
	if c.rep.Stray > 0 {
		c.opts.Logger.Warn("left out metadata files the signed metadata does not name", "source", c.opts.Source, "files", c.rep.Stray, "first", c.rep.StrayNames)
	}
	return nil
}

// maxStrayNames is how many of the stray files a report names.
const maxStrayNames = 5

// stray counts a metadata file of the source that is left out.
func (c *copier) stray(name string) {
	c.rep.Stray++
	if len(c.rep.StrayNames) < maxStrayNames {
		c.rep.StrayNames = append(c.rep.StrayNames, name)
	}
}

// rootVersion is N of N.root.json, 0 for any other name.
func rootVersion(name string) int64 {
	m := rootFile.FindStringSubmatch(name)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseInt(m[1], 10, 64)
	return v
}

// metaRank orders metadata writes: everything the new timestamp makes
// reachable first, the roots next (in version order, then root.json),
// timestamp.json last.
func metaRank(name string) int {
	switch {
	case name == trust.TimestampFile:
		return 3
	case name == trust.RootFile:
		return 2
	case rootFile.MatchString(name):
		return 1
	}
	return 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
