package policies

import (
	"fmt"
	"strings"

	"github.com/airvsx/airvsx/index"
)

// Pattern selects extension IDs. It is one of:
//
//   - an exact ID, "namespace.name" (validated by index.ParseID);
//   - a namespace wildcard, "namespace.*";
//   - a glob, "namespace.name" where either part may use "*" (any run of
//     characters, possibly empty) and "?" (exactly one character).
//
// A pattern has exactly one dot and wildcards never cross it, so "*.*"
// selects every extension and "*" alone is invalid. Apart from the
// wildcards, each part uses only the characters Open VSX allows in names
// (A-Z a-z 0-9 _ - + $ ~). Matching ignores case, as extension identity does.
// The zero Pattern matches nothing.
type Pattern struct {
	raw      string
	ns, name string // lower-cased
	exact    bool
}

// ParsePattern parses an ID pattern.
func ParsePattern(s string) (Pattern, error) {
	ns, name, ok := strings.Cut(s, ".")
	if !ok || strings.Contains(name, ".") {
		return Pattern{}, fmt.Errorf("ID pattern %q: want namespace.name with exactly one dot (wildcards * and ? allowed; \"*.*\" selects everything)", s)
	}
	if !strings.ContainsAny(s, "*?") {
		if _, err := index.ParseID(s); err != nil {
			return Pattern{}, err
		}
		return Pattern{raw: s, ns: strings.ToLower(ns), name: strings.ToLower(name), exact: true}, nil
	}
	for _, part := range []string{ns, name} {
		if !validGlob(part) {
			return Pattern{}, fmt.Errorf("ID pattern %q: invalid part %q (want 1-%d of A-Z a-z 0-9 _ - + $ ~ * ?)", s, part, index.MaxNameLen)
		}
	}
	return Pattern{raw: s, ns: strings.ToLower(ns), name: strings.ToLower(name)}, nil
}

// MustParsePattern is ParsePattern for constants in tests; it panics on an
// invalid pattern.
func MustParsePattern(s string) Pattern {
	p, err := ParsePattern(s)
	if err != nil {
		panic(err)
	}
	return p
}

// ExactPattern returns the pattern that selects exactly id.
func ExactPattern(id index.ID) Pattern {
	return Pattern{raw: id.String(), ns: strings.ToLower(id.Namespace), name: strings.ToLower(id.Name), exact: true}
}

func validGlob(s string) bool {
	if len(s) == 0 || len(s) > index.MaxNameLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '*' || c == '?' {
			continue
		}
		if !index.ValidName(s[i : i+1]) {
			return false
		}
	}
	return true
}

// String returns the pattern as written.
func (p Pattern) String() string { return p.raw }

// IsZero reports whether p is the zero Pattern.
func (p Pattern) IsZero() bool { return p.raw == "" }

// ID returns the ID an exact pattern names; ok is false for wildcards.
func (p Pattern) ID() (id index.ID, ok bool) {
	if !p.exact {
		return index.ID{}, false
	}
	ns, name, _ := strings.Cut(p.raw, ".")
	return index.ID{Namespace: ns, Name: name}, true
}

// IsGlob reports whether p uses a wildcard ("ns.*" or a glob).
func (p Pattern) IsGlob() bool { return !p.exact && p.raw != "" }

// Match reports whether p selects id, ignoring case.
func (p Pattern) Match(id index.ID) bool {
	if p.raw == "" {
		return false
	}
	ns, name := strings.ToLower(id.Namespace), strings.ToLower(id.Name)
	if p.exact {
		return ns == p.ns && name == p.name
	}
	return glob(p.ns, ns) && glob(p.name, name)
}

// glob matches s against a pattern of literal bytes, "*" and "?". It runs
// in O(len(pat)·len(s)) by backtracking only to the most recent star.
func glob(pat, s string) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pat) && (pat[p] == '?' || pat[p] == s[i]):
			p++
			i++
		case p < len(pat) && pat[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pat) && pat[p] == '*' {
		p++
	}
	return p == len(pat)
}
