package openvsxtest

// GET /api/-/query (v1): LocalRegistryService.query and
// ExtensionVersionJooqRepository.findActiveVersions of the Open VSX
// server, answered from the fixtures.

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/airvsx/airvsx/index"
)

// defaultQuerySize is /api/-/query's default page size.
const defaultQuerySize = 100

// queryJSON is QueryResultJson.
type queryJSON struct {
	Offset     int             `json:"offset"`
	TotalSize  int             `json:"totalSize"`
	Extensions []extensionJSON `json:"extensions"`
}

// boolParam parses a boolean query parameter as Spring does (true, false,
// on, off, yes, no, 1, 0, any case; empty is the default); a non-nil
// reply is upstream's 400.
func boolParam(q url.Values, name string, def bool) (bool, *reply) {
	switch strings.ToLower(q.Get(name)) {
	case "":
		return def, nil
	case "true", "on", "yes", "1":
		return true, nil
	case "false", "off", "no", "0":
		return false, nil
	}
	r := errorReply(http.StatusBadRequest,
		"Failed to convert value of type 'java.lang.String' to required type 'boolean'; Invalid boolean value ["+q.Get(name)+"]")
	return false, &r
}

// query answers GET /api/-/query: one ExtensionJson per (extension,
// platform), its latest version, or with includeAllVersions=true one per
// (version, platform), ordered by extension, then SemVer descending,
// universal first, platform, newest first. The page starts at the exact
// offset but reports it rounded down to a multiple of size, as upstream's
// PageRequest does. ok is false for an extension the fixtures do not know
// (and Options.Missing does not name), which fails the test.
func (h *handler) query(u urls, q url.Values) (rep reply, ok bool) {
	size, bad := intParam(q, "size", defaultQuerySize)
	offset := 0
	if bad == nil {
		offset, bad = intParam(q, "offset", 0)
	}
	allVersions := false
	if bad == nil {
		allVersions, bad = boolParam(q, "includeAllVersions", false)
	}
	if bad != nil {
		return *bad, true
	}
	if size < 0 {
		return errorReply(http.StatusBadRequest, "The parameter 'size' must not be negative."), true
	}
	if offset < 0 {
		return errorReply(http.StatusBadRequest, "The parameter 'offset' must not be negative."), true
	}
	ns, name := q.Get("namespaceName"), q.Get("extensionName")
	if id := q.Get("extensionId"); id != "" {
		parts := strings.Split(id, ".")
		if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
			return errorReply(http.StatusBadRequest, "The 'extensionId' parameter must have the format 'namespace.extension'."), true
		}
		if ns != "" && ns != parts[0] {
			return errorReply(http.StatusBadRequest, "Conflicting parameters 'extensionId' and 'namespaceName'"), true
		}
		if name != "" && name != parts[1] {
			return errorReply(http.StatusBadRequest, "Conflicting parameters 'extensionId' and 'extensionName'"), true
		}
		ns, name = parts[0], parts[1]
	}
	if size == 0 {
		// PageRequest.of(offset / size, size) divides by zero upstream.
		return errorReply(http.StatusInternalServerError, "/ by zero"), true
	}
	if ns != "" && name != "" && h.byKey[strings.ToLower(ns+"."+name)] == nil && !h.missing[strings.ToLower(ns+"."+name)] {
		return reply{}, false
	}
	tp := index.Platform(q.Get("targetPlatform"))
	if !tp.Valid() {
		tp = "" // an invalid targetPlatform is ignored upstream
	}
	wantVersion := q.Get("extensionVersion")
	// The fixtures have no UUIDs: asking for one matches nothing.
	uuid := q.Get("extensionUuid") != "" || q.Get("namespaceUuid") != ""

	var rows []*version
	for _, e := range h.all {
		if uuid || ns != "" && !strings.EqualFold(ns, e.ns) || name != "" && !strings.EqualFold(name, e.name) {
			continue
		}
		seen := map[index.Platform]bool{}
		for _, v := range e.filter(tp) {
			if wantVersion != "" && v.Version != wantVersion {
				continue
			}
			if !allVersions {
				// DISTINCT ON (extension, platform): the first in
				// upstream's order is the platform's latest.
				if seen[v.tp] {
					continue
				}
				seen[v.tp] = true
			}
			rows = append(rows, v)
		}
		if !allVersions {
			sortUniversalFirst(rows[len(rows)-len(seen):])
		}
	}
	start, end := min(offset, len(rows)), min(offset+size, len(rows))
	out := queryJSON{Offset: offset / size * size, TotalSize: len(rows), Extensions: []extensionJSON{}}
	page := rows[start:end]
	for _, v := range page {
		e := h.byKey[strings.ToLower(v.Namespace+"."+v.Name)]
		out.Extensions = append(out.Extensions, h.queryEntryJSON(u, e, v, tp, page))
	}
	return jsonReply(http.StatusOK, out, ccTenMin), true
}

// sortUniversalFirst orders the latest versions of one extension as
// upstream's DISTINCT ON query does: universal first, then by platform.
func sortUniversalFirst(vs []*version) {
	for i := 1; i < len(vs); i++ {
		for j := i; j > 0 && platformLess(vs[j].tp, vs[j-1].tp); j-- {
			vs[j], vs[j-1] = vs[j-1], vs[j]
		}
	}
}

func platformLess(a, b index.Platform) bool {
	if (a == index.Universal) != (b == index.Universal) {
		return a == index.Universal
	}
	return a < b
}

// queryEntryJSON is toExtensionVersionJson as the query builds it: no
// "downloads" map, and "latest" and "pre-release" are computed among the
// page's rows of the same extension and platform (upstream's
// getLatestVersions over the page), so a later page can name another
// version latest.
func (h *handler) queryEntryJSON(u urls, e *extension, v *version, tp index.Platform, page []*version) extensionJSON {
	j := h.extensionJSON(u, e, v, tp)
	j.Downloads = nil
	var latest, latestPre *version
	for _, o := range page {
		if o.Namespace != v.Namespace || o.Name != v.Name || o.tp != v.tp {
			continue
		}
		if latest == nil {
			latest = o // the page is in upstream's order
		}
		if latestPre == nil && o.PreRelease {
			latestPre = o
		}
	}
	u.setAliases(&j, e, v, tp, latest, latestPre)
	latestAny := e.latest("", false)
	j.Preview = latestAny != nil && latestAny.Preview
	return j
}
