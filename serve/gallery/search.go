package gallery

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// A posting is an extension index with, in its top bit, whether the
// word came from a strong field (ID, name, display name, tags) rather
// than the description.
const strongBit = 1 << 31

// wordIndex maps every word of the catalog to the extensions it occurs
// in; words are sorted so that a prefix is a range.
type wordIndex struct {
	words    []string
	postings [][]uint32 // by word: sorted by extension, each once
}

type wordBuilder struct {
	m map[string][]uint32
}

func newWordBuilder() *wordBuilder { return &wordBuilder{m: map[string][]uint32{}} }

// add indexes the words of extension n.
func (wb *wordBuilder) add(n int32, x *ext) {
	seen := map[string]uint32{}
	note := func(s string, strong bool) {
		for _, w := range wordsOf(s) {
			bit := uint32(0)
			if strong {
				bit = strongBit
			}
			seen[w] |= bit
		}
	}
	note(x.key, true)
	note(x.id.Namespace, true)
	note(x.id.Name, true)
	note(x.latest.DisplayName, true)
	for _, t := range x.latest.Tags {
		note(t, true)
	}
	note(x.latest.Description, false)
	for w, f := range seen {
		wb.m[w] = append(wb.m[w], uint32(n)|f&strongBit)
	}
}

func (wb *wordBuilder) build() wordIndex {
	wi := wordIndex{words: make([]string, 0, len(wb.m))}
	for w := range wb.m {
		wi.words = append(wi.words, w)
	}
	slices.Sort(wi.words)
	wi.postings = make([][]uint32, len(wi.words))
	for i, w := range wi.words {
		wi.postings[i] = wb.m[w] // appended in extension order
	}
	return wi
}

// prefixRange returns the range of words that start with p.
func (wi *wordIndex) prefixRange(p string) (lo, hi int) {
	lo = sort.SearchStrings(wi.words, p)
	hi = lo + sort.Search(len(wi.words)-lo, func(i int) bool { return !strings.HasPrefix(wi.words[lo+i], p) })
	return lo, hi
}

// wordsOf returns the lower-cased words of s: its white-space separated
// words with the punctuation around them trimmed ("vscode-eslint",
// "c++"), and the runs of letters and digits inside them ("vscode",
// "eslint", "c").
func wordsOf(s string) []string {
	var out []string
	for _, f := range strings.Fields(strings.ToLower(s)) {
		f = strings.TrimFunc(f, isPunct)
		if f == "" {
			continue
		}
		out = append(out, f)
		runs := strings.FieldsFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if len(runs) == 1 && runs[0] == f {
			continue
		}
		out = append(out, runs...)
	}
	return out
}

func isPunct(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '+' && r != '#' }

// searchText is a parsed SearchText value.
type searchText struct {
	words     []string // lower-cased, punctuation around trimmed
	publisher string   // lower-cased; "" for none
	whole     string   // the lower-cased text without the publisher term
}

// parseSearchText splits s into words and takes out publisher:NAME or
// publisher:"NAME" (as VS Code sends it for "@publisher" searches).
func parseSearchText(s string) searchText {
	var st searchText
	rest := s
	for {
		i := strings.Index(strings.ToLower(rest), "publisher:")
		if i < 0 {
			break
		}
		v := rest[i+len("publisher:"):]
		var name, after string
		if strings.HasPrefix(v, `"`) {
			if j := strings.IndexByte(v[1:], '"'); j >= 0 {
				name, after = v[1:1+j], v[2+j:]
			} else {
				name, after = v[1:], ""
			}
		} else {
			j := strings.IndexFunc(v, unicode.IsSpace)
			if j < 0 {
				j = len(v)
			}
			name, after = v[:j], v[j:]
		}
		st.publisher = strings.ToLower(strings.TrimSpace(name))
		rest = rest[:i] + " " + after
	}
	st.whole = strings.ToLower(strings.TrimSpace(rest))
	for _, f := range strings.Fields(st.whole) {
		if f = strings.TrimFunc(f, isPunct); f != "" {
			st.words = append(st.words, f)
		}
	}
	return st
}

// scratch is the per-query state of a search, pooled: counts and scores
// by extension, reset through the list of what was touched, so a search
// costs what it matches, not the catalog's size.
type scratch struct {
	hits    []uint8
	score   []uint16
	touched []int32
}

type scratchPool struct{ p sync.Pool }

func (sp *scratchPool) get(n int) *scratch {
	if s, ok := sp.p.Get().(*scratch); ok && len(s.hits) == n {
		return s
	}
	return &scratch{hits: make([]uint8, n), score: make([]uint16, n)}
}

func (sp *scratchPool) put(s *scratch) {
	for _, i := range s.touched {
		s.hits[i], s.score[i] = 0, 0
	}
	s.touched = s.touched[:0]
	sp.p.Put(s)
}

// search returns the extensions that match every word, each with its
// score: per word, 4 for a strong field, 1 for the description only,
// +2 for a whole word rather than a prefix.
func (ix *Index) search(words []string, s *scratch) (match []int32, score []uint16) {
	for wi, w := range words {
		lo, hi := ix.words.prefixRange(w)
		for t := lo; t < hi; t++ {
			exact := ix.words.words[t] == w
			for _, p := range ix.words.postings[t] {
				n := int32(p &^ strongBit)
				if int(s.hits[n]) != wi {
					continue // missed an earlier word, or already counted this one
				}
				gain := uint16(1)
				if p&strongBit != 0 {
					gain = 4
				}
				if exact {
					gain += 2
				}
				if wi == 0 {
					s.touched = append(s.touched, n)
				}
				s.hits[n] = uint8(wi + 1)
				s.score[n] += gain
			}
		}
	}
	for _, n := range s.touched {
		if int(s.hits[n]) == len(words) {
			match = append(match, n)
		}
	}
	return match, s.score
}
