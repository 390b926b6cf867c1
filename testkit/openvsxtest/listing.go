package openvsxtest

// The listing endpoints: search, namespace and sitemap.

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/airvsx/airvsx/index"
)

// search is a small /api/-/search: substring match on ID, display name,
// description and tags; "publisher:NAME" (or "@publisher:NAME") filters by
// namespace; category and targetPlatform filter; sortBy relevance (by
// download count), timestamp, downloadCount or rating. Like upstream's
// Elasticsearch, nothing comes back when offset+size passes 10,000.
func (h *handler) search(u urls, q url.Values) reply {
	size, bad := intParam(q, "size", defaultPageSize)
	offset := 0
	if bad == nil {
		offset, bad = intParam(q, "offset", 0)
	}
	if bad != nil {
		return *bad
	}
	if size < 0 {
		return errorReply(http.StatusBadRequest, "The parameter 'size' must not be negative.")
	}
	if offset < 0 {
		return errorReply(http.StatusBadRequest, "The parameter 'offset' must not be negative.")
	}
	empty := searchJSON{Extensions: []searchEntryJSON{}}
	if size == 0 || offset+size > searchResultLimit {
		return jsonReply(http.StatusOK, empty, "no-cache")
	}
	var publisher string
	var terms []string
	for _, t := range strings.Fields(q.Get("query")) {
		if p, ok := strings.CutPrefix(strings.TrimPrefix(t, "@"), "publisher:"); ok {
			publisher = p
			continue
		}
		terms = append(terms, strings.ToLower(t))
	}
	tp := index.Platform(q.Get("targetPlatform"))
	if !tp.Valid() {
		tp = "" // an invalid targetPlatform is ignored upstream
	}
	category := q.Get("category")
	var hits []*extension
	for _, e := range h.all {
		l := e.stats()
		if publisher != "" && !strings.EqualFold(publisher, e.ns) {
			continue
		}
		if tp != "" && len(e.filter(tp)) == 0 {
			continue
		}
		if category != "" && !containsFold(l.Categories, category) {
			continue
		}
		hay := strings.ToLower(strings.Join(append([]string{e.id(), l.DisplayName, l.Description}, l.Tags...), "\n"))
		ok := true
		for _, t := range terms {
			ok = ok && strings.Contains(hay, t)
		}
		if ok {
			hits = append(hits, e)
		}
	}
	key := func(e *extension) float64 {
		l := e.stats()
		switch q.Get("sortBy") {
		case "timestamp":
			return float64(l.ts.UnixMicro())
		case "rating":
			if l.AverageRating != nil {
				return *l.AverageRating
			}
			return 0
		}
		return float64(l.DownloadCount)
	}
	asc := q.Get("sortOrder") == "asc"
	sort.SliceStable(hits, func(i, j int) bool {
		if asc {
			return key(hits[i]) < key(hits[j])
		}
		return key(hits[i]) > key(hits[j])
	})
	if offset >= len(hits) {
		return jsonReply(http.StatusOK, empty, "no-cache")
	}
	out := searchJSON{Offset: offset, TotalSize: len(hits), Extensions: []searchEntryJSON{}}
	for _, e := range hits[offset:min(offset+size, len(hits))] {
		l := e.stats()
		entry := searchEntryJSON{
			URL:           u.api(e.ns, e.name),
			Files:         u.filesJSON(l, "download", "icon", "sha256", "signature"),
			Name:          e.name,
			Namespace:     e.ns,
			Version:       l.Version,
			Timestamp:     l.Timestamp,
			Verified:      l.Verified,
			AverageRating: l.AverageRating,
			ReviewCount:   l.ReviewCount,
			DownloadCount: l.DownloadCount,
			DisplayName:   l.DisplayName,
			Description:   l.Description,
		}
		if q.Get("includeAllVersions") == "true" {
			entry.AllVersions = []versionRefJSON{}
			for i, v := range e.versions {
				if i == maxVersions {
					break
				}
				entry.AllVersions = append(entry.AllVersions, u.versionRef(v))
			}
			entry.AllVersionsURL = u.versionBase(e, tp) + "/version-references"
		}
		out.Extensions = append(out.Extensions, entry)
	}
	return jsonReply(http.StatusOK, out, "no-cache")
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// namespace is NamespaceJson for the extensions of ns; nil if there are none.
func (h *handler) namespace(u urls, ns string) *reply {
	out := namespaceJSON{Extensions: pairs{}}
	var names []*extension
	for _, e := range h.all {
		if strings.EqualFold(e.ns, ns) {
			names = append(names, e)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Slice(names, func(i, j int) bool { return names[i].name < names[j].name })
	out.Name = names[0].ns
	for _, e := range names {
		out.Extensions.add(e.name, u.api(e.ns, e.name))
		out.Verified = out.Verified || e.stats().Verified
	}
	if h.opts.Legacy {
		out.Access = "restricted"
	}
	r := jsonReply(http.StatusOK, out, ccTenMin)
	return &r
}

// sitemap is upstream's /sitemap.xml: every extension's web page
// ({base}/extension/{ns}/{ext}) and the date it was last updated, written
// as Java's Transformer writes it (indent 2, declaration without a line
// break after it).
func (h *handler) sitemap(u urls) reply {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for _, e := range h.all {
		fmt.Fprintf(&b, "  <url>\n    <loc>%s/extension/%s/%s</loc>\n    <lastmod>%s</lastmod>\n  </url>\n",
			u.base, e.ns, e.name, e.lastUpdated().UTC().Format("2006-01-02"))
	}
	b.WriteString("</urlset>\n")
	h2 := http.Header{"Content-Type": {"application/xml"}, "Cache-Control": {ccOneDay}}
	return reply{status: http.StatusOK, header: h2, body: b.Bytes(), kind: kindXML}
}
