package gallery

import (
	"slices"
	"strings"

	"github.com/airvsx/airvsx/index"
)

// plan is a filter's criteria sorted by what they do.
type plan struct {
	named     bool    // ExtensionId or ExtensionName criteria present
	ids       []int32 // the extensions they name, in order, once each
	cats      []string
	tags      []string
	publisher string
	words     []string
	whole     string // the search text, lower-cased, for exact-ID ranking
	platform  index.Platform
	none      bool // a criterion no extension can meet
}

func (ix *Index) plan(f *Filter) plan {
	var p plan
	for _, c := range f.Criteria {
		v := strings.TrimSpace(c.Value)
		switch c.Type {
		case FilterExtensionID, FilterExtensionName:
			p.named = true
			m := ix.byKey
			if c.Type == FilterExtensionID {
				m = ix.byUUID
			}
			if n, ok := m[strings.ToLower(v)]; ok && !slices.Contains(p.ids, n) {
				p.ids = append(p.ids, n)
			}
		case FilterCategory:
			p.cats = append(p.cats, strings.ToLower(v))
		case FilterTag:
			p.tags = append(p.tags, strings.ToLower(v))
		case FilterSearchText:
			st := parseSearchText(v)
			if st.publisher != "" {
				if p.publisher != "" && p.publisher != st.publisher {
					p.none = true
				}
				p.publisher = st.publisher
			}
			p.words = append(p.words, st.words...)
			p.whole = st.whole
		case FilterTarget:
			switch {
			case strings.EqualFold(v, vscodeTarget):
			case index.Platform(v).Valid():
				p.platform = index.Platform(v)
			default:
				p.none = true
			}
		case FilterFeatured:
			p.none = true
		}
	}
	if len(p.words) > MaxSearchWords {
		p.words = p.words[:MaxSearchWords]
	}
	return p
}

// keep reports whether extension n meets the plan's criteria other
// than names and words.
func (ix *Index) keep(p *plan, n int32) bool {
	x := &ix.exts[n]
	if p.publisher != "" && x.pubKey != p.publisher {
		return false
	}
	if len(p.cats) > 0 && !anyIn(p.cats, x.catKeys) {
		return false
	}
	if len(p.tags) > 0 && !anyIn(p.tags, x.tagKeys) {
		return false
	}
	if p.platform != "" && !x.hasBuild(p.platform) && !x.hasBuild(index.Universal) {
		return false
	}
	return true
}

func anyIn(want, have []string) bool {
	for _, w := range want {
		if slices.Contains(have, w) {
			return true
		}
	}
	return false
}

// run returns the page f asks for and how many extensions match.
func (ix *Index) run(f *Filter) (page []int32, total int) {
	p := ix.plan(f)
	if p.none {
		return nil, 0
	}
	var cand []int32
	var score []uint16
	switch {
	case p.named:
		cand = p.ids
	case len(p.words) > 0:
		s := ix.scratch.get(len(ix.exts))
		defer ix.scratch.put(s)
		cand, score = ix.search(p.words, s)
	default:
		cand = ix.narrowest(&p)
		if cand == nil {
			return ix.walk(f, &p)
		}
	}
	kept := cand[:0:0]
	for _, n := range cand {
		if ix.keep(&p, n) {
			kept = append(kept, n)
		}
	}
	total = len(kept)
	if !(p.named && f.SortBy == SortRelevance) {
		ix.sort(kept, f, score, &p)
	}
	lo := (f.PageNumber - 1) * f.PageSize
	if lo >= len(kept) {
		return nil, total
	}
	return kept[lo:min(lo+f.PageSize, len(kept))], total
}

// narrowest returns the shortest candidate list the plan's categories,
// tags and publisher give (to be checked against the rest), or nil when
// none of them is set.
func (ix *Index) narrowest(p *plan) []int32 {
	var best []int32
	found := false
	consider := func(list []int32) {
		if !found || len(list) < len(best) {
			best, found = list, true
		}
	}
	if p.publisher != "" {
		consider(ix.byPub[p.publisher])
	}
	if len(p.cats) > 0 {
		consider(union(ix.byCat, p.cats))
	}
	if len(p.tags) > 0 {
		consider(union(ix.byTag, p.tags))
	}
	if found && best == nil {
		best = []int32{}
	}
	return best
}

// union returns the extensions listed under any of keys, in index order.
func union(m map[string][]int32, keys []string) []int32 {
	if len(keys) == 1 {
		return m[keys[0]]
	}
	var out []int32
	for _, k := range keys {
		out = append(out, m[k]...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// walk pages through a precomputed order of the whole catalog, keeping
// what meets the plan (only a target platform can remain): the work is
// the page's, plus what is skipped on the way.
func (ix *Index) walk(f *Filter, p *plan) (page []int32, total int) {
	order, _, desc := ix.orderFor(f)
	lo := (f.PageNumber - 1) * f.PageSize
	if p.platform == "" {
		total = len(order)
		if lo >= total {
			return nil, total
		}
		hi := min(lo+f.PageSize, total)
		page = make([]int32, 0, hi-lo)
		for i := lo; i < hi; i++ {
			page = append(page, at(order, i, desc))
		}
		return page, total
	}
	total = ix.platformCount(p.platform)
	seen := 0
	for i := 0; i < len(order) && len(page) < f.PageSize && seen < lo+f.PageSize; i++ {
		n := at(order, i, desc)
		if !ix.keep(p, n) {
			continue
		}
		if seen >= lo {
			page = append(page, n)
		}
		seen++
	}
	return page, total
}

func at(order []int32, i int, desc bool) int32 {
	if desc {
		return order[len(order)-1-i]
	}
	return order[i]
}

// platformCount is how many extensions have a build for p or a
// universal one.
func (ix *Index) platformCount(p index.Platform) int {
	return ix.platCount[p]
}

// orderFor returns the precomputed order f's sort uses, the ranks in
// it, and whether to read it backwards.
func (ix *Index) orderFor(f *Filter) (order, rank []int32, desc bool) {
	order, rank = ix.byTitle, ix.rankTitle
	switch f.SortBy {
	case SortLastUpdated:
		order, rank, desc = ix.byUpdated, ix.rankUpdated, true
	case SortPublishedDate, SortPublishedDate2:
		order, rank, desc = ix.byPublished, ix.rankPublished, true
	case SortPublisher:
		order, rank = ix.byPublisher, ix.rankPublisher
	}
	switch f.SortOrder {
	case SortAscending:
		desc = false
	case SortDescending:
		desc = true
	}
	return order, rank, desc
}

// sort orders a subset as f asks: relevance by score (then title), the
// others by the precomputed ranks.
func (ix *Index) sort(s []int32, f *Filter, score []uint16, p *plan) {
	if f.SortBy == SortRelevance && score != nil {
		exact, hasExact := ix.byKey[p.whole]
		first := func(n int32) bool {
			return hasExact && n == exact || strings.EqualFold(ix.exts[n].id.Name, p.whole)
		}
		slices.SortFunc(s, func(a, b int32) int {
			if fa, fb := first(a), first(b); fa != fb {
				if fa {
					return -1
				}
				return 1
			}
			if score[a] != score[b] {
				return int(score[b]) - int(score[a])
			}
			return int(ix.rankTitle[a] - ix.rankTitle[b])
		})
		return
	}
	_, rank, desc := ix.orderFor(f)
	slices.SortFunc(s, func(a, b int32) int {
		if desc {
			return int(rank[b] - rank[a])
		}
		return int(rank[a] - rank[b])
	})
}
