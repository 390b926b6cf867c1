package control

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/internal/strictjson"
)

// Source is one list and where it came from.
type Source struct {
	// Origin names where the list came from: "upstream" for the list sync
	// fetched, "file:NAME" for an admin's own.
	Origin string
	// Data is the list's file, byte for byte.
	Data []byte
	// List is Data parsed.
	List *List
}

// Set is the lists of several origins merged; each entry keeps its
// origin. The zero Set lists nothing.
type Set struct {
	sources []Source
}

// NewSet merges sources, in order: a verdict names the first origin that
// lists the extension.
func NewSet(sources ...Source) *Set {
	return &Set{sources: slices.Clone(sources)}
}

// Sources returns the lists the set merges.
func (s *Set) Sources() []Source {
	if s == nil {
		return nil
	}
	return s.sources
}

// Empty reports whether the set holds no list at all (a registry that
// carries none).
func (s *Set) Empty() bool { return s == nil || len(s.sources) == 0 }

// Verdict is what the lists say of one extension.
type Verdict struct {
	// Malicious is set when a list names the extension, or its
	// publisher, as malicious; Entry is the entry as the list spells it
	// and Origin the list's origin.
	Malicious bool
	Entry     string
	// Deprecated is the extension's deprecation (nil when none); with
	// Malicious unset, Entry and Origin are its list's.
	Deprecated *Deprecation
	Origin     string
	// LearnMore is the list's link about the entry, when it has one.
	LearnMore string
}

// Listed reports whether the verdict says anything.
func (v Verdict) Listed() bool { return v.Malicious || v.Deprecated != nil }

// Refuses reports whether an install must be refused: malicious, or
// deprecated with disallowInstall.
func (v Verdict) Refuses() bool {
	return v.Malicious || (v.Deprecated != nil && v.Deprecated.DisallowInstall)
}

// String says the verdict in a few words, for messages.
func (v Verdict) String() string {
	switch {
	case v.Malicious:
		what := "malicious"
		if !strings.Contains(v.Entry, ".") {
			what = "malicious (publisher " + v.Entry + ")"
		}
		return fmt.Sprintf("%s per the control list %s", what, v.Origin)
	case v.Deprecated != nil:
		s := "deprecated"
		if v.Deprecated.DisallowInstall {
			s += " (install disallowed)"
		}
		if r := v.Deprecated.Extension; r != nil {
			s += fmt.Sprintf(", replaced by %s (%s)", r.ID, r.DisplayName)
		} else if len(v.Deprecated.Settings) > 0 {
			s += ", replaced by the settings " + strings.Join(v.Deprecated.Settings, ", ")
		}
		return s + " per the control list " + v.Origin
	}
	return "not listed"
}

// Verdict returns what the lists say of id, as VS Code reads them:
// malicious when an entry of malicious is id (ignoring case) or, for an
// entry that is not an extension identifier, is id's publisher;
// deprecated when deprecated has id (ignoring case) with true or an
// object. Malicious wins over deprecated; the first origin wins among
// lists.
func (s *Set) Verdict(id index.ID) Verdict {
	if s == nil {
		return Verdict{}
	}
	full := id.Namespace + "." + id.Name
	for _, src := range s.sources {
		for _, m := range src.List.Malicious {
			if matches(m, id, full) {
				return Verdict{Malicious: true, Entry: m, Origin: src.Origin, LearnMore: src.List.LearnMoreLinks[m]}
			}
		}
	}
	for _, src := range s.sources {
		for k, d := range src.List.Deprecated {
			if !d.Set || !strings.EqualFold(k, full) {
				continue
			}
			info := d.Info
			if info == nil {
				info = &Deprecation{}
			}
			return Verdict{Deprecated: info, Entry: k, Origin: src.Origin}
		}
	}
	return Verdict{}
}

// matches reports whether the malicious entry m covers id: m is id
// (ignoring case), or m is not an extension identifier as VS Code
// defines one and is id's publisher. (VS Code compares an entry that is
// not such an identifier with the publisher only, so it would miss
// "pub.na$me"; Open VSX allows that name, and airvsx matches it too.)
func matches(m string, id index.ID, full string) bool {
	if strings.EqualFold(m, full) {
		return true
	}
	return !identifier.MatchString(m) && strings.EqualFold(m, id.Namespace)
}

// Bytes returns the set as one list in VS Code's format: the one list's
// own bytes when the set holds one, else the lists merged (malicious
// entries in order without repeats, the first origin's deprecation of an
// ID), encoded.
func (s *Set) Bytes() ([]byte, error) {
	switch {
	case s.Empty():
		return strictjson.Marshal(&List{Malicious: []string{}})
	case len(s.sources) == 1:
		return slices.Clone(s.sources[0].Data), nil
	}
	merged := &List{Malicious: []string{}}
	seen := map[string]bool{}
	for _, src := range s.sources {
		for _, m := range src.List.Malicious {
			if k := strings.ToLower(m); !seen[k] {
				seen[k] = true
				merged.Malicious = append(merged.Malicious, m)
			}
			if link, ok := src.List.LearnMoreLinks[m]; ok {
				if merged.LearnMoreLinks == nil {
					merged.LearnMoreLinks = map[string]string{}
				}
				if _, had := merged.LearnMoreLinks[m]; !had {
					merged.LearnMoreLinks[m] = link
				}
			}
		}
		for k, d := range src.List.Deprecated {
			if merged.Deprecated == nil {
				merged.Deprecated = map[string]DeprecationValue{}
			}
			if _, had := merged.Deprecated[strings.ToLower(k)]; !had {
				merged.Deprecated[strings.ToLower(k)] = d
			}
		}
	}
	return strictjson.Marshal(merged)
}

// NewSource parses data (Parse) as the list of origin.
func NewSource(origin string, data []byte) (Source, error) {
	l, err := Parse(data)
	if err != nil {
		return Source{}, fmt.Errorf("control list %s: %w", origin, err)
	}
	return Source{Origin: origin, Data: data, List: l}, nil
}

// Stale returns the lists of refs fetched more than maxAge before now
// (none when maxAge is 0: no bound).
func Stale(refs []index.ControlRef, now time.Time, maxAge time.Duration) []index.ControlRef {
	if maxAge <= 0 {
		return nil
	}
	var out []index.ControlRef
	for _, r := range refs {
		if now.Sub(r.FetchedAt) > maxAge {
			out = append(out, r)
		}
	}
	return out
}

// Older returns the first list of next that is older than the list of the
// same origin in prev (its FetchedAt earlier): a list rolled back. ok is
// false when none is.
func Older(prev, next []index.ControlRef) (was, now index.ControlRef, ok bool) {
	for _, n := range next {
		for _, p := range prev {
			if p.Origin == n.Origin && n.FetchedAt.Before(p.FetchedAt) {
				return p, n, true
			}
		}
	}
	return was, now, false
}

// Pinned is a list as a catalog's head pins it: its ref and its bytes
// (what trust.Trusted.Control returns).
type Pinned struct {
	Ref  index.ControlRef
	Data []byte
}

// Load parses pinned lists, each checked against its ref's sha256, into
// a Set, in order. It is what a reader of a verified catalog (verify,
// site, serve) calls: Verdict then judges an extension, and Bytes is the
// list to hand out at a gallery's controlUrl.
func Load(lists ...Pinned) (*Set, error) {
	srcs := make([]Source, 0, len(lists))
	for _, p := range lists {
		if index.DigestBytes(p.Data) != p.Ref.Digest {
			return nil, fmt.Errorf("control list %s: its bytes are not the %s its catalog pins", p.Ref.Origin, p.Ref.Digest)
		}
		src, err := NewSource(p.Ref.Origin, p.Data)
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, src)
	}
	return NewSet(srcs...), nil
}
