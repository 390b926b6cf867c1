package verify

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/trust"
)

// The entries are checked shard by shard: a format-2 catalog's shards
// are read one at a time (a format-1 catalog is one shard, all its
// entries), each shard's entries checked and then dropped. What the
// checks across entries need is kept in a compact form (crossState):
// every extension of a repository is in one shard (the bin of its
// lower-case ID, as its repository's name is), so a repository's tags,
// blob references and layout are checked with its shard.

// depRef is one extensionDependencies or extensionPack member of an
// entry, checked against every ID present once all shards are read.
type depRef struct {
	entry string // the entry's name (Entry.String)
	id    index.ID
	pack  bool
}

// crossState is what the checks across entries keep of the entries of
// the shards already checked.
type crossState struct {
	// rows are the entries' results, order their sort keys (ID.Key, a
	// NUL, ID.String: index.ID.Compare's order), side by side so that sorting them at the end
	// needs no second copy of the results.
	rows    []EntryResult
	order   []string
	present map[string]bool // ID keys of every entry
	deps    []depRef
	policy  []policyRow // with a policy only
	// repos is every repository the store lists, nil when it cannot list
	// them (reported), and checked those whose entries were checked.
	repos   []string
	listed  map[string]bool
	checked map[string]bool
}

// stream lists the store's repositories, then reads the entries of head
// shard by shard and checks each shard. It reports whether every shard
// was read and returns how many entries there are. When a shard was not,
// the catalog does not verify: every problem found in the entries
// checked before it is dropped, so that, as for a catalog file that does
// not verify, no entry is checked, and the rest of the shards are only
// read, to report each one that is broken.
func (v *registryVerifier) stream(ctx context.Context, chain *trust.Trusted, head *index.Catalog) (ok bool, n int, err error) {
	total := head.EntryCount()
	v.x = crossState{present: make(map[string]bool, total), checked: map[string]bool{},
		rows: make([]EntryResult, 0, total), order: make([]string, 0, total)}
	mark := len(v.rep.Problems)
	v.listRepos(ctx)
	if err := ctx.Err(); err != nil {
		return false, 0, err
	}
	var broken []Problem // the problems of the shards that could not be read
	check := func(entries []index.Entry) error {
		n += len(entries)
		if len(broken) > 0 {
			return nil
		}
		return v.checkShard(ctx, entries)
	}
	if head.Format == index.FlatCatalogFormat {
		if err := check(head.Entries); err != nil {
			return false, 0, err
		}
		head.Entries = nil
	} else {
		// The next shard is read and decoded while the workers check this
		// one, so that they do not wait for it.
		type read struct {
			entries []index.Entry
			err     error
		}
		fetch := func(ref index.ShardRef) <-chan read {
			c := make(chan read, 1)
			go func() {
				entries, err := chain.Shard(ctx, head, ref)
				c <- read{entries, err}
			}()
			return c
		}
		var next <-chan read
		if len(head.Shards) > 0 {
			next = fetch(head.Shards[0])
		}
		for i, ref := range head.Shards {
			r := <-next
			if i+1 < len(head.Shards) {
				next = fetch(head.Shards[i+1])
			}
			entries, err := r.entries, r.err
			if err != nil {
				if ctx.Err() != nil {
					return false, 0, ctx.Err()
				}
				before := len(v.rep.Problems)
				v.shardProblem(ref, err)
				broken = append(broken, v.rep.Problems[before:]...)
				v.rep.Problems = v.rep.Problems[:before]
				continue
			}
			if err := check(entries); err != nil {
				return false, 0, err
			}
		}
	}
	if len(broken) > 0 {
		v.rep.Problems = append(v.rep.Problems[:mark], broken...)
		v.x = crossState{}
		v.rep.Summary.Blobs, v.rep.Summary.Bytes = 0, 0
		v.sigsVerified.Store(0)
		v.sigsCached.Store(0)
		return false, 0, nil
	}
	return true, n, nil
}

// listRepos lists the store's repositories, whose layout and extras are
// checked with their entries' shard, or at the end when no entry has
// them. A registry whose repositories cannot be listed is a problem of
// the registry, reported like any other, not a run that could not start.
func (v *registryVerifier) listRepos(ctx context.Context) {
	repos, err := v.st.Repos(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		v.add(Error, RuleLayoutInvalid, "extensions/", "", "cannot list the repositories: %v", err)
	}
	v.x.repos = repos
	v.x.listed = make(map[string]bool, len(repos))
	for _, r := range repos {
		v.x.listed[r] = true
	}
}

// checkShard checks the entries of one shard, in the catalog's order,
// repository by repository (checkRepos), and keeps what the checks
// across shards need (crossState).
func (v *registryVerifier) checkShard(ctx context.Context, entries []index.Entry) error {
	index.SortEntries(entries)
	for i := range entries {
		e := &entries[i]
		name := e.String()
		v.x.rows = append(v.x.rows, EntryResult{Entry: name, Manifest: artifact.BlobName(artifact.Repo(e.ID), e.ManifestDigest)})
		v.x.order = append(v.x.order, e.ID.Key()+"\x00"+e.ID.String())
		v.x.present[e.ID.Key()] = true
		for _, d := range e.Dependencies {
			v.x.deps = append(v.x.deps, depRef{entry: name, id: d})
		}
		for _, d := range e.ExtensionPack {
			v.x.deps = append(v.x.deps, depRef{entry: name, id: d, pack: true})
		}
		if l := e.Local; l != nil {
			v.add(Note, RuleLocalEntry, v.catPath, name, "added locally by key %s at %s (airvsx add): it has no upstream signature; the registry's key vouches for it",
				l.AddedBy, l.AddedAt.Format(time.RFC3339))
		}
		v.controlEntry(e, name)
		if v.opts.Policy != nil {
			v.policyEntry(e, name)
		}
	}
	return v.checkRepos(ctx, entries)
}

// repoGroup is the entries of one repository, sorted, and what checking
// them finds out about the repository.
type repoGroup struct {
	repo    string
	entries []index.Entry
	tags    []store.TagEntry
	tagsOK  bool         // tags could be read
	left    atomic.Int32 // its tasks not yet done (checkRepos)

	mu   sync.Mutex
	refs map[string]bool // the blob digests its entries reference
}

// use records that an entry of the repository references the blob
// digest, and reports whether it is the first to.
func (g *repoGroup) use(digest string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.refs[digest] {
		return false
	}
	if g.refs == nil {
		g.refs = map[string]bool{}
	}
	g.refs[digest] = true
	return true
}

// checkRepos checks entries (sorted, so that the entries of a repository
// are together), all the entries of their repositories, on the pool of
// workers: for each repository, its tags and each of its entries are
// tasks, in the catalog's order, and whichever task of a repository ends
// last then checks what in the repository no entry references
// (repoExtras). So the workers never wait for each other within a
// shard, and a repository's directories are read close together in
// time (a directory store keeps the last ones read open).
func (v *registryVerifier) checkRepos(ctx context.Context, entries []index.Entry) error {
	var groups []*repoGroup
	for rest := entries; len(rest) > 0; {
		repo, n := artifact.Repo(rest[0].ID), 1
		for n < len(rest) && artifact.Repo(rest[n].ID) == repo {
			n++
		}
		g := &repoGroup{repo: repo, entries: rest[:n]}
		g.left.Store(int32(n + 1))
		groups = append(groups, g)
		rest = rest[n:]
	}
	type task struct {
		g     *repoGroup
		entry int // -1: the tags
	}
	tasks := make([]task, 0, len(entries)+len(groups))
	for _, g := range groups {
		tasks = append(tasks, task{g, -1})
		for j := range g.entries {
			tasks = append(tasks, task{g, j})
		}
	}
	fsys := v.layout()
	var blobs, nbytes atomic.Int64
	v.parallel(ctx, len(tasks), func(h *hasher, i int) {
		t := tasks[i]
		g := t.g
		if t.entry < 0 {
			g.tags, g.tagsOK = v.checkTags(ctx, fsys, g.repo, g.entries)
		} else {
			e := &g.entries[t.entry]
			c := &entryCheck{v: v, g: g, e: e, name: e.String(), repo: g.repo}
			n, b := c.run(ctx, h)
			blobs.Add(int64(n))
			nbytes.Add(b)
			if len(c.probs) > 0 {
				v.mu.Lock()
				v.rep.Problems = append(v.rep.Problems, c.probs...)
				v.mu.Unlock()
			}
		}
		if g.left.Add(-1) == 0 && v.x.listed[g.repo] {
			used := make(map[string]bool, len(g.entries)) // tags of entries
			for j := range g.entries {
				tag, _ := artifact.Tag(g.entries[j].Platform, g.entries[j].Version)
				used[tag] = true
			}
			v.repoExtras(ctx, fsys, g.repo, g.tags, g.tagsOK, used, g.refs)
		}
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	v.rep.Summary.Blobs += int(blobs.Load())
	v.rep.Summary.Bytes += nbytes.Load()
	for _, g := range groups {
		v.x.checked[g.repo] = true
	}
	return nil
}

// finishExtras checks the repositories no entry belongs to, and the top
// of the layout.
func (v *registryVerifier) finishExtras(ctx context.Context) error {
	fsys := v.layout()
	for _, repo := range v.x.repos {
		if v.x.checked[repo] {
			continue
		}
		dir := "extensions/" + repo
		v.add(Warning, RuleOrphanRepo, dir+"/", "", "no catalog entry belongs to repository %s", repo)
		t, err := v.st.Tags(ctx, repo)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			v.add(Warning, RuleOrphanRepo, dir+"/index.json", "", "unreadable: %v", err)
			continue
		}
		v.repoExtras(ctx, fsys, repo, t, true, nil, nil)
	}
	if fsys != nil {
		v.walkTop(fsys)
	}
	return ctx.Err()
}

// sortedEntries returns the entries' results in the catalog's order.
func (x *crossState) sortedEntries() []EntryResult {
	sort.Stable(rowsByOrder{x})
	out := x.rows
	x.rows, x.order = nil, nil
	return out
}

// rowsByOrder sorts a crossState's rows by their order keys, moving
// both.
type rowsByOrder struct{ x *crossState }

func (r rowsByOrder) Len() int           { return len(r.x.rows) }
func (r rowsByOrder) Less(i, j int) bool { return r.x.order[i] < r.x.order[j] }
func (r rowsByOrder) Swap(i, j int) {
	r.x.rows[i], r.x.rows[j] = r.x.rows[j], r.x.rows[i]
	r.x.order[i], r.x.order[j] = r.x.order[j], r.x.order[i]
}
