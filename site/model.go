package site

import (
	"cmp"
	"fmt"
	"html/template"
	"slices"
	"strings"
	"time"

	"github.com/airvsx/airvsx/index"
)

// model is everything the pages are made from, built from the catalog
// alone before any blob is read. Its order is the order of the pages.
type model struct {
	site       *siteData
	exts       []*extView // by display name, then ID key
	byKey      map[string]*extView
	categories []*listView // by name
	publishers []*listView // by namespace key
	platforms  []string    // present ones, in index.Platforms order
	caps       []capOption // present ones
}

// siteData is what every page shows about the site.
type siteData struct {
	Title    string
	Verified bool
	Reason   string // why not verified
	Serial   int64
	Digest   string
	Created  string
	Expires  string
	BaseURL  string
	Registry string
	// Downloads is how pages offer packages.
	Downloads Downloads
	// InstallTrust, ExtensionsDir and InstallPolicy complete the install
	// command.
	InstallTrust  string
	ExtensionsDir string
	InstallPolicy string
	Extensions    int
	Entries       int
	TotalSize     string
}

// extView is one extension: every entry of one ID.
type extView struct {
	Index       int // position on the home page and in the search index
	Key         string
	ID          string // display case of the latest entry
	Namespace   string
	Name        string
	DisplayName string
	Description string
	Page        string // relative to the site root
	Publisher   *listView
	Latest      *index.Entry
	LatestFile  entryView   // the download of Latest
	Entries     []entryView // newest first, as in the catalog
	Categories  []*listView
	Platforms   []string
	Declared    []string
	Detected    []index.Finding
	Kinds       []string // detected kinds, sorted, unique
	CapValues   []string // capOption values this extension has
	Signed      string   // "all", "some", "none": upstream signatures
	// LocalNote says who added the latest entry by hand and when
	// (airvsx add: index.Entry.Local); "" for one mirrored from upstream.
	LocalNote string
	// Control is what the extension control lists say of it:
	// "malicious", "deprecated" or ""; ControlNote says it in words.
	Control     string
	ControlNote string
	Icon        string // relative to the site root; set by renderExtension
	Deps, Pack  []depView
	Verified    bool // the catalog was verified

	inputs string // extInputs: what its page and card are made from
	cards  cards  // its cards, rendered at first use
}

// localNote says who added an entry by hand and when.
func localNote(l *index.LocalAddition) string {
	return "added locally by key " + l.AddedBy + " at " + formatTime(l.AddedAt)
}

type entryView struct {
	*index.Entry
	File      string // file name of the vsix
	Href      string // relative to the site root; "" when the site offers no download
	Size      string
	Published string
}

type depView struct {
	ID   string
	Page string // relative to the site root; "" when not in the registry
}

// listView is a category or a publisher page.
type listView struct {
	Name string
	Page string // relative to the site root
	Exts []*extView
}

type capOption struct {
	Value, Label string
}

// buildModel makes the model of the pages; linkBase is the registry's
// directory relative to the site root, for DownloadsLink.
func buildModel(tr *trusted, opts *Options, linkBase string) *model {
	cat := tr.cat
	m := &model{byKey: make(map[string]*extView)}
	var total int64
	for i := range cat.Entries {
		e := &cat.Entries[i]
		total += e.VsixSize
		x := m.byKey[e.ID.Key()]
		if x == nil {
			x = &extView{Key: e.ID.Key(), Latest: e}
			m.byKey[x.Key] = x
			m.exts = append(m.exts, x)
		}
		x.Entries = append(x.Entries, entryView{
			Entry:     e,
			File:      vsixFileName(e),
			Href:      downloadHref(opts.Downloads, linkBase, e),
			Size:      index.FormatBytes(e.VsixSize),
			Published: formatTime(e.Published),
		})
	}
	for _, x := range m.exts {
		x.Latest = latest(x.Entries)
		for _, ev := range x.Entries {
			if ev.Entry == x.Latest {
				x.LatestFile = ev
			}
		}
		l := x.Latest
		x.ID, x.Namespace, x.Name = l.ID.String(), l.ID.Namespace, l.ID.Name
		x.DisplayName = cmp.Or(strings.TrimSpace(l.DisplayName), l.ID.Name)
		x.Description = l.Description
		x.Page = "ext/" + x.Key + ".html"
		x.Verified = tr.verified
		x.Declared = capStrings(l.DeclaredCapabilities)
		x.Detected = l.DetectedCapabilities
		for _, f := range l.DetectedCapabilities {
			x.Kinds = append(x.Kinds, f.Kind)
		}
		slices.Sort(x.Kinds)
		x.Kinds = slices.Compact(x.Kinds)
		signed := 0
		for _, ev := range x.Entries {
			if ev.Upstream.Signed {
				signed++
			}
			if !slices.Contains(x.Platforms, string(ev.Platform)) {
				x.Platforms = append(x.Platforms, string(ev.Platform))
			}
		}
		slices.SortFunc(x.Platforms, comparePlatforms)
		if l := x.Latest.Local; l != nil {
			x.LocalNote = localNote(l)
		}
		if v := tr.control.Verdict(l.ID); v.Malicious {
			x.Control, x.ControlNote = "malicious", v.String()
		} else if v.Deprecated != nil {
			x.Control, x.ControlNote = "deprecated", v.String()
		}
		x.Signed = "some"
		switch signed {
		case 0:
			x.Signed = "none"
		case len(x.Entries):
			x.Signed = "all"
		}
	}
	lower := make(map[*extView]string, len(m.exts)) // each lower-cased once, not per comparison
	for _, x := range m.exts {
		lower[x] = strings.ToLower(x.DisplayName)
	}
	slices.SortFunc(m.exts, func(a, b *extView) int {
		return cmp.Or(strings.Compare(lower[a], lower[b]), strings.Compare(a.Key, b.Key))
	})
	for i, x := range m.exts {
		x.Index = i
	}
	for _, x := range m.exts {
		for _, d := range x.Latest.Dependencies {
			x.Deps = append(x.Deps, m.dep(d))
		}
		for _, d := range x.Latest.ExtensionPack {
			x.Pack = append(x.Pack, m.dep(d))
		}
	}
	m.buildLists()
	m.buildFilters()

	s := &siteData{
		Title: opts.Title, Verified: tr.verified, Reason: tr.reason,
		Serial: cat.Serial, Digest: tr.digest,
		Created: formatTime(cat.Created), Expires: formatTime(tr.expires),
		BaseURL: opts.BaseURL, Registry: opts.Registry, Downloads: opts.Downloads, InstallTrust: opts.InstallTrust, ExtensionsDir: opts.Extensions, InstallPolicy: opts.InstallPolicy,
		Extensions: len(m.exts), Entries: len(cat.Entries), TotalSize: index.FormatBytes(total),
	}
	m.site = s
	return m
}

func (m *model) dep(id index.ID) depView {
	if x := m.byKey[id.Key()]; x != nil {
		return depView{ID: id.String(), Page: x.Page}
	}
	return depView{ID: id.String()}
}

// buildLists makes the category and publisher pages.
func (m *model) buildLists() {
	cats := make(map[string]*listView)
	pubs := make(map[string]*listView)
	for _, x := range m.exts {
		for _, c := range x.Latest.Categories {
			l := cats[c]
			if l == nil {
				l = &listView{Name: c}
				cats[c] = l
				m.categories = append(m.categories, l)
			}
			l.Exts = append(l.Exts, x)
			x.Categories = append(x.Categories, l)
		}
		k := strings.ToLower(x.Namespace)
		p := pubs[k]
		if p == nil {
			p = &listView{Name: x.Namespace, Page: "publisher/" + k + ".html"}
			pubs[k] = p
			m.publishers = append(m.publishers, p)
		}
		p.Exts = append(p.Exts, x)
		x.Publisher = p
	}
	slices.SortFunc(m.categories, func(a, b *listView) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(m.publishers, func(a, b *listView) int { return strings.Compare(a.Page, b.Page) })
	used := make(map[string]bool)
	for _, c := range m.categories {
		s := slug(c.Name)
		for n := 2; used[s]; n++ {
			s = fmt.Sprintf("%s-%d", slug(c.Name), n)
		}
		used[s] = true
		c.Page = "category/" + s + ".html"
	}
	for _, x := range m.exts {
		slices.SortFunc(x.Categories, func(a, b *listView) int { return strings.Compare(a.Name, b.Name) })
	}
}

// buildFilters collects the platform and capability filter options.
func (m *model) buildFilters() {
	plats := make(map[string]bool)
	caps := make(map[string]bool)
	for _, x := range m.exts {
		for _, p := range x.Platforms {
			plats[p] = true
		}
		if len(x.Declared) == 0 && len(x.Kinds) == 0 {
			x.CapValues = append(x.CapValues, "none")
		}
		for _, c := range x.Declared {
			x.CapValues = append(x.CapValues, "declared:"+c)
		}
		for _, k := range x.Kinds {
			x.CapValues = append(x.CapValues, "detected:"+k)
		}
		for _, v := range x.CapValues {
			caps[v] = true
		}
	}
	for _, p := range index.Platforms {
		if plats[string(p)] {
			m.platforms = append(m.platforms, string(p))
		}
	}
	if caps["none"] {
		m.caps = append(m.caps, capOption{"none", "none declared or detected"})
	}
	var rest []string
	for v := range caps {
		if v != "none" {
			rest = append(rest, v)
		}
	}
	slices.Sort(rest)
	for _, v := range rest {
		kind, name, _ := strings.Cut(v, ":")
		m.caps = append(m.caps, capOption{v, kind + ": " + name})
	}
}

// latest is the entry whose page data the extension shows: the newest
// release version (universal preferred), else the newest of all.
func latest(es []entryView) *index.Entry {
	for _, pre := range []bool{false, true} {
		var best *index.Entry
		for _, e := range es {
			if e.PreRelease && !pre {
				continue
			}
			if best == nil {
				best = e.Entry
				continue
			}
			if e.Version == best.Version && e.Platform == index.Universal {
				best = e.Entry
			}
		}
		if best != nil {
			return best
		}
	}
	return es[0].Entry
}

// vsixFileName is ns.name-version[@platform].vsix, as the Open VSX CLI and
// the VS Code marketplace name downloads.
func vsixFileName(e *index.Entry) string {
	s := e.ID.String() + "-" + e.Version
	if e.Platform != index.Universal && e.Platform != "" {
		s += "@" + string(e.Platform)
	}
	return s + ".vsix"
}

func comparePlatforms(a, b string) int {
	return slices.Index(index.Platforms, index.Platform(a)) - slices.Index(index.Platforms, index.Platform(b))
}

func capStrings(cs index.CapabilitySet) []string {
	var out []string
	for _, c := range cs {
		out = append(out, string(c))
	}
	return out
}

// slug makes a file name from free text: lower-case letters and digits,
// other runs become "-", at most 60 bytes; "-" alone when nothing is left.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			if b.Len() >= 60 {
				break
			}
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "-"
	}
	return b.String()
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// pageData is what every template gets.
type pageData struct {
	Site  *siteData
	Root  string // "" on the home page, "../" elsewhere
	Title string
	Home  *homeData
	Ext   *extPage
	List  *listPage
	// Publishers is the publishers page's list.
	Publishers []*listView
}

type homeData struct {
	Cards      template.HTML // the first page of cards
	Shown      int           // how many
	Categories []*listView
	Publishers int // how many
	Platforms  []string
	Caps       []capOption
}

type extPage struct {
	X          *extView
	Readme     template.HTML
	ReadmeNote string
	Changelog  template.HTML
	License    string // the licence text
	Repository string // http(s) URL or ""
	RepoText   string // the repository as written, when not a URL
	Homepage   string
	HomeText   string
	Install    []string
	// IconNote and LicenseNote say why the icon or the licence text is
	// unavailable ("" when it is not).
	IconNote, LicenseNote string
}

type listPage struct {
	Kind  string // "Category" or "Publisher"
	L     *listView
	Cards template.HTML
}
