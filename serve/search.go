package serve

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/airvsx/airvsx/index"
)

// Bounds of a search or query.
const (
	maxPageSize   = 100
	maxQueryText  = 200
	maxOffset     = 1 << 20
	defaultSearch = 18
)

// pageParams reads size and offset, bounded; ok is false (and the answer
// written) when they are malformed.
func pageParams(w http.ResponseWriter, r *http.Request, q url.Values, def int) (size, offset int, ok bool) {
	size, offset = def, 0
	for _, p := range []struct {
		name string
		v    *int
		max  int
	}{{"size", &size, maxPageSize}, {"offset", &offset, maxOffset}} {
		s := q.Get(p.name)
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || len(s) > 9 {
			jsonError(w, r, http.StatusBadRequest, "%s=%q is not a number from 0 to %d", p.name, s, p.max)
			return 0, 0, false
		}
		*p.v = min(n, p.max)
	}
	return size, offset, true
}

// searchEntry is one result of /api/-/search.
type searchEntry struct {
	URL           string            `json:"url"`
	Files         map[string]string `json:"files"`
	Name          string            `json:"name"`
	Namespace     string            `json:"namespace"`
	Version       string            `json:"version"`
	Timestamp     string            `json:"timestamp"`
	DisplayName   string            `json:"displayName,omitempty"`
	Description   string            `json:"description,omitempty"`
	DownloadCount int               `json:"downloadCount"`
	AllVersions   []struct{}        `json:"allVersions"`
}

// openVSXSearch answers /api/-/search: the extensions whose ID, display
// name, description or tags hold the query text (every word), in a
// category and for a target platform when given, by ID.
func (s *Server) openVSXSearch(w http.ResponseWriter, r *http.Request, sn *snapshot) {
	q := r.URL.Query()
	size, offset, ok := pageParams(w, r, q, defaultSearch)
	if !ok {
		return
	}
	text := q.Get("query")
	if len(text) > maxQueryText {
		jsonError(w, r, http.StatusBadRequest, "query is longer than %d bytes", maxQueryText)
		return
	}
	words := strings.Fields(strings.ToLower(text))
	category := strings.ToLower(q.Get("category"))
	var platform index.Platform
	if p := q.Get("targetPlatform"); p != "" {
		if platform = index.Platform(p); !platform.Valid() {
			jsonError(w, r, http.StatusBadRequest, "unknown targetPlatform %q", p)
			return
		}
	}
	base := s.base(r)
	total := 0
	out := []searchEntry{}
	for i, es := range sn.order {
		e := pick(es, "latest", platform)
		if e == nil {
			continue
		}
		hay := sn.hay[i]
		if platform != "" {
			hay = haystack(e)
		}
		if !matches(e, hay, words, category) {
			continue
		}
		total++
		if total <= offset || len(out) >= size {
			continue
		}
		api := base + "/api/" + url.PathEscape(e.ID.Namespace) + "/" + url.PathEscape(e.ID.Name)
		ver := api + "/" + url.PathEscape(e.Version)
		if e.Platform != index.Universal {
			ver = api + "/" + string(e.Platform) + "/" + url.PathEscape(e.Version)
		}
		out = append(out, searchEntry{URL: api, Files: map[string]string{"download": ver + "/file/" + url.PathEscape(vsixName(e))},
			Name: e.ID.Name, Namespace: e.ID.Namespace, Version: e.Version, Timestamp: e.Published.UTC().Format(time.RFC3339),
			DisplayName: e.DisplayName, Description: e.Description, AllVersions: []struct{}{}})
	}
	w.Header().Set("Cache-Control", "public, max-age=60")
	writeJSON(w, r, struct {
		Offset     int           `json:"offset"`
		TotalSize  int           `json:"totalSize"`
		Extensions []searchEntry `json:"extensions"`
	}{offset, total, out})
}

// haystack is the lower-cased text search looks in for e.
func haystack(e *index.Entry) string {
	return strings.ToLower(e.ID.String() + " " + e.DisplayName + " " + e.Description + " " + strings.Join(e.Tags, " "))
}

// matches reports whether hay (e's haystack) holds every word and e is
// in category.
func matches(e *index.Entry, hay string, words []string, category string) bool {
	if category != "" {
		in := false
		for _, c := range e.Categories {
			if strings.ToLower(c) == category {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	if len(words) == 0 {
		return true
	}
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// openVSXQueryPost answers POST /api/-/query, whose body is a JSON
// object of the GET form's parameters.
func (s *Server) openVSXQueryPost(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxQueryBody))
	if err := dec.Decode(&body); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			jsonError(w, r, http.StatusRequestEntityTooLarge, "the query is larger than %d bytes", maxQueryBody)
			return
		}
		jsonError(w, r, http.StatusBadRequest, "the query is not a JSON object: %v", err)
		return
	}
	if _, err := dec.Token(); err != io.EOF {
		jsonError(w, r, http.StatusBadRequest, "the query has more than one JSON value")
		return
	}
	q := url.Values{}
	for k, v := range body {
		switch v := v.(type) {
		case string:
			q.Set(k, v)
		case float64:
			q.Set(k, strconv.FormatFloat(v, 'f', -1, 64))
		case bool:
			q.Set(k, strconv.FormatBool(v))
		}
	}
	sn := s.acquire()
	defer sn.release()
	s.openVSXQuery(w, r, sn, q)
}

// openVSXQuery answers /api/-/query: the extension JSON of the builds
// that match namespaceName, extensionName, extensionId (ns.name),
// extensionVersion and targetPlatform; the latest of each extension
// unless includeAllVersions.
func (s *Server) openVSXQuery(w http.ResponseWriter, r *http.Request, sn *snapshot, q url.Values) {
	size, offset, ok := pageParams(w, r, q, maxPageSize)
	if !ok {
		return
	}
	ns, name := q.Get("namespaceName"), q.Get("extensionName")
	if id := q.Get("extensionId"); id != "" {
		n, x, found := strings.Cut(id, ".")
		if !found {
			jsonError(w, r, http.StatusBadRequest, "extensionId %q is not namespace.name", id)
			return
		}
		ns, name = n, x
	}
	if ns == "" && name == "" {
		jsonError(w, r, http.StatusBadRequest, "give extensionId, or namespaceName (and extensionName)")
		return
	}
	var platform index.Platform
	if p := q.Get("targetPlatform"); p != "" {
		if platform = index.Platform(p); !platform.Valid() {
			jsonError(w, r, http.StatusBadRequest, "unknown targetPlatform %q", p)
			return
		}
	}
	version, all := q.Get("extensionVersion"), q.Get("includeAllVersions") == "true"
	var cands [][]index.Entry
	if ns != "" && name != "" {
		if es := sn.extension(ns, name); es != nil {
			cands = append(cands, es)
		}
	} else {
		for _, es := range sn.order {
			if (ns == "" || strings.EqualFold(es[0].ID.Namespace, ns)) && (name == "" || strings.EqualFold(es[0].ID.Name, name)) {
				cands = append(cands, es)
			}
		}
	}
	var hits []*index.Entry
	var owner [][]index.Entry
	for _, es := range cands {
		if all && version == "" {
			for i := range es {
				if platform == "" || es[i].Platform == platform {
					hits, owner = append(hits, &es[i]), append(owner, es)
				}
			}
			continue
		}
		if e := pick(es, version, platform); e != nil {
			hits, owner = append(hits, e), append(owner, es)
		}
	}
	out := []*extensionJSON{}
	for i := offset; i < len(hits) && len(out) < size; i++ {
		m := s.answerManifest(w, r, sn, hits[i], true)
		if m == nil {
			return
		}
		out = append(out, s.extJSON(sn, r, owner[i], hits[i], m, platform))
	}
	writeJSON(w, r, struct {
		Offset     int              `json:"offset"`
		TotalSize  int              `json:"totalSize"`
		Extensions []*extensionJSON `json:"extensions"`
	}{offset, len(hits), out})
}
