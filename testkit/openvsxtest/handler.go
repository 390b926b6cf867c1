package openvsxtest

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"mime"
	"net"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/airvsx/airvsx/index"
)

// defaultSlowDelay is how long the Slow fault waits when
// Options.SlowDelay is zero.
const defaultSlowDelay = 2 * time.Second

// handler serves the fixtures.
type handler struct {
	byKey     map[string]*extension
	all       []*extension
	opts      Options
	onUnknown func(*http.Request)
	missing   map[string]bool
	// cdnBase is where stored files are served (Options.CDN); "" for
	// /cdn/ on the base the request came in on.
	cdnBase string
	st      state
	// inFlight counts the requests being answered, and peak the most
	// ever at once.
	inFlight, peak atomic.Int64
	// control is the list Server.SetControl set.
	control atomic.Pointer[[]byte]
}

// NewHandler returns the fixture server as an http.Handler, for serving
// outside a test (cmd/openvsx-fixture). onUnknown, if not nil, is called for
// every request the fixtures have no answer for; the request then gets a
// 404 with upstream's error shape. It fails if the fixtures are invalid
// (bad ID, version, platform or timestamp; a duplicate version).
func NewHandler(fixtures Fixtures, opts Options, onUnknown func(r *http.Request)) (http.Handler, error) {
	return newHandler(fixtures, opts, onUnknown)
}

func newHandler(fixtures Fixtures, opts Options, onUnknown func(r *http.Request)) (*handler, error) {
	byKey, all, err := buildExtensions(fixtures)
	if err != nil {
		return nil, err
	}
	h := &handler{byKey: byKey, all: all, opts: opts, onUnknown: onUnknown, missing: map[string]bool{}}
	if opts.EagerETags {
		for _, e := range all {
			for _, v := range e.versions {
				if v.VSIX != nil {
					v.vsixETag()
				}
			}
		}
	}
	for _, id := range opts.Missing {
		h.missing[strings.ToLower(id)] = true
	}
	return h, nil
}

// ServeHTTP answers one request: route it, inject a fault if one is due,
// honour If-None-Match, log, and write. The log entry is recorded before
// the client can see the answer, so Requests is complete as soon as a
// client call returns.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	entry := RequestLog{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}
	n := h.inFlight.Add(1)
	defer h.inFlight.Add(-1)
	for p := h.peak.Load(); n > p && !h.peak.CompareAndSwap(p, n); p = h.peak.Load() {
	}
	if !sleep(r, h.opts.Latency) {
		h.st.log.Add(entry)
		return
	}
	rep, ok := h.route(r)
	if !ok {
		if h.onUnknown != nil {
			h.onUnknown(r)
		}
		rep = errorReply(http.StatusNotFound, fmt.Sprintf("openvsxtest: no fixture for %s %s", r.Method, r.URL.Path))
		entry.Status = h.prepare(w, r, &rep)
		h.st.log.Add(entry)
		h.send(w, r, rep)
		return
	}
	entry.Fault = h.st.take(r.URL.Path, rep.kind)
	switch entry.Fault {
	case Slow:
		d := h.opts.SlowDelay
		if d == 0 {
			d = defaultSlowDelay
		}
		if !sleep(r, d) {
			h.st.log.Add(entry)
			return
		}
	case TooManyRequests:
		rep = reply{status: http.StatusTooManyRequests, body: []byte(RateLimitBody), kind: kindJSON, header: http.Header{
			"Content-Type":          {"application/json"},
			"Retry-After":           {"1"},
			"X-RateLimit-Limit":     {"3"},
			"X-RateLimit-Remaining": {"0"},
			"X-RateLimit-Reset":     {"1"},
		}}
	case Unavailable:
		rep = reply{status: http.StatusServiceUnavailable, body: []byte("503 Service Unavailable\n"),
			header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}}}
	case Reset:
		h.st.log.Add(entry) // Status 0: no response
		resetConn(w)
		return
	case Truncated:
		entry.Status = rep.status
		h.st.log.Add(entry)
		truncate(w, r, rep)
		return
	case WrongSHA256:
		rep.body = []byte(index.SHA256Hex(append([]byte("not the package: "), rep.v.VSIX...)))
	case BadSignature:
		rep.body = rep.v.badSigzip
	}
	entry.Status = h.prepare(w, r, &rep)
	h.st.log.Add(entry)
	h.send(w, r, rep)
}

// sleep waits d or until the client goes away; it reports whether to go on.
func sleep(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// prepare sets rep's headers on w and decides the status: 304 when
// If-None-Match names the ETag. JSON and XML replies get upstream's
// shallow ETag ("0" + MD5 hex, quoted); stored files a storage-style MD5
// ETag. A 304 drops the body.
func (h *handler) prepare(w http.ResponseWriter, r *http.Request, rep *reply) int {
	for k, vs := range rep.header {
		w.Header()[k] = vs
	}
	if rep.status == http.StatusOK {
		var etag string
		switch rep.kind {
		case kindJSON, kindXML:
			sum := md5.Sum(rep.body)
			etag = `"0` + hex.EncodeToString(sum[:]) + `"`
		case kindVSIX:
			etag = rep.v.vsixETag()
		case kindSHA256, kindSigzip, kindFile:
			sum := md5.Sum(rep.body)
			etag = `"` + hex.EncodeToString(sum[:]) + `"`
		}
		if etag != "" {
			w.Header().Set("ETag", etag)
			if etagMatch(r.Header.Get("If-None-Match"), etag) {
				rep.status, rep.body = http.StatusNotModified, nil
				w.Header().Del("Content-Type")
			}
		}
	}
	return rep.status
}

// send writes the prepared reply.
func (h *handler) send(w http.ResponseWriter, r *http.Request, rep reply) {
	if rep.status != http.StatusNotModified {
		w.Header().Set("Content-Length", strconv.Itoa(len(rep.body)))
	}
	w.WriteHeader(rep.status)
	if r.Method != http.MethodHead && len(rep.body) > 0 {
		w.Write(rep.body)
	}
}

func etagMatch(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

// resetConn closes the connection without a response, with SO_LINGER 0 so
// the peer gets an RST.
func resetConn(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("openvsxtest: Reset needs a hijackable connection (HTTP/1.x)")
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// truncate declares the whole body's length, sends half of it and closes
// the connection.
func truncate(w http.ResponseWriter, r *http.Request, rep reply) {
	for k, vs := range rep.header {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(rep.body)))
	w.WriteHeader(rep.status)
	if r.Method == http.MethodHead {
		return
	}
	w.Write(rep.body[:len(rep.body)/2])
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
		}
	}
}

// route finds the answer to r; ok is false when the fixtures have none.
func (h *handler) route(r *http.Request) (rep reply, ok bool) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return reply{}, false
	}
	u := baseURL(r)
	u.cdnBase = h.cdnBase
	p := r.URL.Path
	switch {
	case p == "/sitemap.xml":
		return h.sitemap(u), true
	case p == ControlPath:
		return h.controlList()
	case strings.HasPrefix(p, "/cdn/"):
		return h.cdn(strings.Split(strings.TrimPrefix(p, "/cdn/"), "/"))
	case strings.HasPrefix(p, "/api/"):
		return h.api(r, u, strings.Split(strings.TrimPrefix(p, "/api/"), "/"))
	}
	return reply{}, false
}

func (h *handler) api(r *http.Request, u urls, s []string) (reply, bool) {
	q := r.URL.Query()
	if s[0] == "-" {
		switch {
		case len(s) == 2 && s[1] == "search":
			return h.search(u, q), true
		case len(s) == 2 && s[1] == "query":
			return h.query(u, q)
		case len(s) == 3 && s[1] == "public-key" && s[2] == KeyID:
			return reply{status: http.StatusOK, body: PublicKeyPEM(), kind: kindOther, header: http.Header{
				"Content-Type":  {"text/plain"},
				"Cache-Control": {ccOneDay},
			}}, true
		}
		return reply{}, false
	}
	for _, seg := range s {
		if seg == "" {
			return reply{}, false
		}
	}
	if len(s) == 1 {
		if rep := h.namespace(u, s[0]); rep != nil {
			return *rep, true
		}
		if h.missing[strings.ToLower(s[0])] {
			return errorReply(http.StatusNotFound, "Namespace not found: "+s[0]), true
		}
		return reply{}, false
	}
	ns, name := s[0], s[1]
	e := h.byKey[strings.ToLower(ns+"."+name)]
	known := e != nil || h.missing[strings.ToLower(ns+"."+name)]
	notFound := func(tp index.Platform, ver string) (reply, bool) {
		msg := "Extension not found: " + ns + "." + name
		if ver != "" {
			msg += " " + ver
		}
		if tp != "" && tp != index.Universal {
			msg += " (" + string(tp) + ")"
		}
		return errorReply(http.StatusNotFound, msg), known
	}
	// ext answers an ExtensionJson GET; tp "" means no platform segment.
	ext := func(tp index.Platform, ver string) (reply, bool) {
		if e == nil {
			return notFound(tp, verIfSet(ver))
		}
		v := e.find(tp, ver)
		if v == nil {
			return notFound(tp, verIfSet(ver))
		}
		cc := ccNoCache
		if tp != "" {
			cc = ccTenMin
		}
		return jsonReply(http.StatusOK, h.extensionJSON(u, e, v, tp), cc), true
	}
	paged := func(tp index.Platform, what string) (reply, bool) {
		if e == nil && !known {
			return reply{}, false
		}
		if what == "versions" {
			return h.versions(u, e, tp, q), true
		}
		return h.versionReferences(u, e, tp, q), true
	}
	switch {
	case len(s) == 2:
		return ext("", "latest")
	case len(s) == 3 && (s[2] == "versions" || s[2] == "version-references"):
		return paged("", s[2])
	case len(s) == 3 && isPlatformSegment(s[2]):
		return ext(index.Platform(s[2]), "latest")
	case len(s) == 3 && isVersionSegment(s[2]):
		return ext("", s[2])
	case len(s) == 4 && isPlatformSegment(s[2]) && (s[3] == "versions" || s[3] == "version-references"):
		return paged(index.Platform(s[2]), s[3])
	case len(s) == 4 && isPlatformSegment(s[2]) && isVersionSegment(s[3]):
		return ext(index.Platform(s[2]), s[3])
	case len(s) >= 5 && s[3] == "file" && isVersionSegment(s[2]):
		return h.file(u, e, index.Universal, s[2], strings.Join(s[4:], "/"))
	case len(s) >= 6 && s[4] == "file" && isPlatformSegment(s[2]) && isVersionSegment(s[3]):
		return h.file(u, e, index.Platform(s[2]), s[3], strings.Join(s[5:], "/"))
	}
	return reply{}, false
}

func verIfSet(ver string) string {
	if ver == "latest" {
		return ""
	}
	return ver
}

// file answers /api/…/file/{name}: a 302 to the file's storage location.
// name is a stored file name or a type keyword (download, manifest,
// readme, license, icon, changelog, vsixmanifest, sha256, signature),
// case-insensitive.
func (h *handler) file(u urls, e *extension, tp index.Platform, ver, name string) (reply, bool) {
	if e == nil {
		return reply{}, false
	}
	v := e.find(tp, ver)
	if v == nil {
		return reply{}, false
	}
	for _, f := range storedFiles(v) {
		if strings.EqualFold(name, f.typ) || name == f.name {
			return reply{status: http.StatusFound, kind: kindRedirect, header: http.Header{
				"Location":      {u.cdn(v, f.name)},
				"Cache-Control": {ccFiles},
			}}, true
		}
	}
	return reply{}, false
}

// cdn serves a stored file at {ns}/{ext}[/{tp}]/{version}/{name}.
func (h *handler) cdn(s []string) (reply, bool) {
	if len(s) != 4 && len(s) != 5 {
		return reply{}, false
	}
	e := h.byKey[strings.ToLower(s[0]+"."+s[1])]
	if e == nil {
		return reply{}, false
	}
	tp, ver, name := index.Universal, s[2], s[3]
	if len(s) == 5 {
		tp, ver, name = index.Platform(s[2]), s[3], s[4]
	}
	for _, v := range e.filter(tp) {
		if v.Version != ver {
			continue
		}
		for _, f := range storedFiles(v) {
			if f.name != name {
				continue
			}
			ct := mime.TypeByExtension(path.Ext(name))
			switch path.Ext(name) {
			case ".vsix", ".sha256", "":
				ct = "application/octet-stream"
			case ".sigzip":
				ct = "application/zip"
			case ".json":
				ct = "application/json"
			}
			if ct == "" {
				ct = "application/octet-stream"
			}
			return reply{status: http.StatusOK, body: f.data, kind: f.kind, v: v, header: http.Header{
				"Content-Type":  {ct},
				"Cache-Control": {ccFiles},
			}}, true
		}
	}
	return reply{}, false
}
