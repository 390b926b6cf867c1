package gallery

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"time"

	"github.com/airvsx/airvsx/index"
)

// Index answers gallery queries over one catalog. New builds it; it is
// immutable afterwards and safe for concurrent use.
type Index struct {
	exts   []ext
	byKey  map[string]int32 // lower-cased "namespace.name"
	byUUID map[string]int32 // lower-case UUID text
	byPub  map[string][]int32
	byCat  map[string][]int32 // lower-cased category
	byTag  map[string][]int32 // lower-cased tag
	words  wordIndex

	// platCount is, by platform, how many extensions have a build for it
	// or a universal one.
	platCount map[index.Platform]int
	scratch   scratchPool

	// The extensions in each precomputed order, ascending; and each
	// extension's rank in it, for sorting a subset.
	byTitle, byPublisher, byUpdated, byPublished []int32
	rankTitle, rankPublisher                     []int32
	rankUpdated, rankPublished                   []int32
}

// ext is one extension: every build of it in the catalog.
type ext struct {
	id        index.ID
	key       string // id.Key()
	uuid      string
	pubUUID   string
	pubKey    string // lower-cased namespace
	title     string // lower-cased display name (or name), for sorting
	builds    []index.Entry
	latest    *index.Entry // the newest build: the extension's metadata
	released  time.Time    // the oldest build's Published
	updated   time.Time    // the newest Published of any build
	platforms []index.Platform
	webTag    bool // it has a web build: tagged __web_extension
	catKeys   []string
	tagKeys   []string
	// hdrSize and sizes bound the JSON of the extension without versions
	// and of each build, less the base URL (measure).
	hdrSize uint32
	sizes   []uint32
	// Text written into every response, worked out once: the asset
	// path "/vscode/asset/{ns}/{name}/", each build's Published and
	// the extension's dates, in the gallery's time format.
	assetPath                 string
	published                 []string
	updatedText, releasedText string
	// head and catTags are x's JSON up to its versions, and its
	// categories and tags, rendered once (measure).
	head, catTags string
}

// New indexes cat for the gallery. It does not change cat and keeps no
// reference to its entry slice. Entries whose ID is not valid are left
// out (a verified catalog has none).
func New(cat *index.Catalog) *Index {
	groups := map[string][]index.Entry{}
	var order []string
	for i := range cat.Entries {
		e := cat.Entries[i]
		if e.ID.Validate() != nil || !urlSafe(e.Version) {
			continue
		}
		k := e.ID.Key()
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], e)
	}
	slices.Sort(order)
	ix := &Index{
		exts:   make([]ext, len(order)),
		byKey:  make(map[string]int32, len(order)),
		byUUID: make(map[string]int32, len(order)),
		byPub:  map[string][]int32{},
		byCat:  map[string][]int32{},
		byTag:  map[string][]int32{},
	}
	wb := newWordBuilder()
	for i, k := range order {
		builds := groups[k]
		index.SortEntries(builds)
		x := &ix.exts[i]
		x.builds = builds
		x.latest = &builds[0]
		x.id = x.latest.ID
		x.key = k
		x.uuid = ExtensionUUID(x.id)
		x.pubKey = strings.ToLower(x.id.Namespace)
		x.pubUUID = PublisherUUID(x.id.Namespace)
		x.title = strings.ToLower(cmp.Or(x.latest.DisplayName, x.id.Name))
		x.released, x.updated = builds[0].Published, builds[0].Published
		for j := range builds {
			b := &builds[j]
			if b.Published.Before(x.released) {
				x.released = b.Published
			}
			if b.Published.After(x.updated) {
				x.updated = b.Published
			}
			if !slices.Contains(x.platforms, b.Platform) {
				x.platforms = append(x.platforms, b.Platform)
			}
			if b.Platform == index.Web {
				x.webTag = true
			}
		}
		x.assetPath = "/vscode/asset/" + x.id.Namespace + "/" + x.id.Name + "/"
		x.published = make([]string, len(builds))
		for j := range builds {
			x.published[j] = formatTime(builds[j].Published)
		}
		x.updatedText, x.releasedText = formatTime(x.updated), formatTime(x.released)
		n := int32(i)
		ix.byKey[k] = n
		ix.byUUID[x.uuid] = n
		ix.byPub[x.pubKey] = append(ix.byPub[x.pubKey], n)
		for _, c := range x.latest.Categories {
			c = strings.ToLower(c)
			x.catKeys = append(x.catKeys, c)
			ix.byCat[c] = appendOnce(ix.byCat[c], n)
		}
		for _, t := range x.tags() {
			t = strings.ToLower(t)
			x.tagKeys = append(x.tagKeys, t)
			ix.byTag[t] = appendOnce(ix.byTag[t], n)
		}
		wb.add(n, x)
	}
	ix.words = wb.build()
	var scratch []byte
	for i := range ix.exts {
		scratch = ix.exts[i].measure(scratch)
	}
	ix.platCount = map[index.Platform]int{}
	for i := range ix.exts {
		x := &ix.exts[i]
		for _, p := range index.Platforms {
			if x.hasBuild(p) || x.hasBuild(index.Universal) {
				ix.platCount[p]++
			}
		}
	}
	ix.byTitle, ix.rankTitle = ix.order(func(a, b *ext) int { return strings.Compare(a.title, b.title) })
	ix.byPublisher, ix.rankPublisher = ix.order(func(a, b *ext) int { return strings.Compare(a.pubKey, b.pubKey) })
	ix.byUpdated, ix.rankUpdated = ix.order(func(a, b *ext) int { return a.updated.Compare(b.updated) })
	ix.byPublished, ix.rankPublished = ix.order(func(a, b *ext) int { return a.released.Compare(b.released) })
	return ix
}

// order returns the extensions sorted by c (ties by ID key, which is
// their index), ascending, and each one's rank.
func (ix *Index) order(c func(a, b *ext) int) (sorted, rank []int32) {
	sorted = make([]int32, len(ix.exts))
	for i := range sorted {
		sorted[i] = int32(i)
	}
	slices.SortStableFunc(sorted, func(a, b int32) int { return c(&ix.exts[a], &ix.exts[b]) })
	rank = make([]int32, len(sorted))
	for r, i := range sorted {
		rank[i] = int32(r)
	}
	return sorted, rank
}

func appendOnce(s []int32, n int32) []int32 {
	if len(s) > 0 && s[len(s)-1] == n {
		return s
	}
	return append(s, n)
}

// tags returns the tags the gallery shows: the newest build's, plus
// __web_extension when a web build exists (VS Code's test for one).
func (x *ext) tags() []string {
	if x.webTag && !slices.Contains(x.latest.Tags, "__web_extension") {
		return append(slices.Clone(x.latest.Tags), "__web_extension")
	}
	return x.latest.Tags
}

// ExtensionUUID returns the gallery UUID of the extension id: stable
// across replicas and snapshots, derived from the lower-cased ID (see
// the package documentation).
func ExtensionUUID(id index.ID) string { return hashUUID("airvsx gallery extension\x00" + id.Key()) }

// PublisherUUID returns the gallery UUID of a publisher (a namespace),
// derived from the lower-cased namespace.
func PublisherUUID(namespace string) string {
	return hashUUID("airvsx gallery publisher\x00" + strings.ToLower(namespace))
}

// hashUUID returns an RFC 9562 version-8 UUID whose custom bits are the
// first bits of SHA-256 of s.
func hashUUID(s string) string {
	sum := sha256.Sum256([]byte(s))
	u := sum[:16]
	u[6] = u[6]&0x0f | 0x80 // version 8
	u[8] = u[8]&0x3f | 0x80 // variant 10
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:36], u[10:16])
	return string(b[:])
}

// urlSafe reports whether a version can go into a URL path as it is (a
// verified catalog's versions are SemVer: letters, digits, ".", "-",
// "+").
func urlSafe(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '.' || c == '-' || c == '+') {
			return false
		}
	}
	return true
}

// formatTime writes t as the gallery does: RFC 3339 in UTC, with
// milliseconds.
func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
