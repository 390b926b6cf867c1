package verify

import (
	"context"
	"sort"

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
		for _, ref := range head.Shards {
			entries, err := chain.Shard(ctx, head, ref)
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

// checkShard checks the entries of one shard, in the catalog's order, a
// few repositories at a time (checkRepos), and keeps what the checks
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
		if v.opts.Policy != nil {
			v.policyEntry(e, name)
		}
	}
	for len(entries) > 0 {
		n := reposEnd(entries, repoBatch)
		if err := v.checkRepos(ctx, entries[:n]); err != nil {
			return err
		}
		entries = entries[n:]
	}
	return nil
}

// repoBatch is how many repositories checkRepos checks at once: few
// enough that a store that keeps the directories read last open
// (dirstore) still has them open when their extras are checked.
const repoBatch = 16

// reposEnd returns the length of the first part of entries (sorted, so
// that the entries of a repository are together) that holds the entries
// of at most n repositories.
func reposEnd(entries []index.Entry, n int) int {
	for i := 1; i < len(entries); i++ {
		if artifact.Repo(entries[i].ID) != artifact.Repo(entries[i-1].ID) {
			if n--; n == 0 {
				return i
			}
		}
	}
	return len(entries)
}

// repoGroup is the entries of one repository, sorted.
type repoGroup struct {
	repo    string
	entries []index.Entry
	tags    []store.TagEntry
	tagsOK  bool // tags could be read
}

// checkRepos checks entries, all the entries of their repositories: the
// tags of those repositories, every entry, then what in those
// repositories no entry references, each step on the pool of workers.
func (v *registryVerifier) checkRepos(ctx context.Context, entries []index.Entry) error {
	var groups []repoGroup
	for rest := entries; len(rest) > 0; {
		n := reposEnd(rest, 1)
		groups = append(groups, repoGroup{repo: artifact.Repo(rest[0].ID), entries: rest[:n]})
		rest = rest[n:]
	}
	fsys := v.layout()
	v.parallel(ctx, len(groups), func(_ *hasher, i int) {
		g := &groups[i]
		g.tags, g.tagsOK = v.checkTags(ctx, fsys, g.repo, g.entries)
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	v.refs, v.counted = nil, nil
	if err := v.checkEntries(ctx, entries); err != nil {
		return err
	}
	v.parallel(ctx, len(groups), func(_ *hasher, i int) {
		g := &groups[i]
		if !v.x.listed[g.repo] {
			return
		}
		used := map[string]bool{} // tags of entries
		for j := range g.entries {
			tag, _ := artifact.Tag(g.entries[j].Platform, g.entries[j].Version)
			used[tag] = true
		}
		v.repoExtras(ctx, fsys, g.repo, g.tags, g.tagsOK, used)
	})
	for _, g := range groups {
		v.x.checked[g.repo] = true
	}
	v.refs, v.counted = nil, nil
	return ctx.Err()
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
		v.repoExtras(ctx, fsys, repo, t, true, nil)
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
