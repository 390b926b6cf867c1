package openvsxtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/airvsx/airvsx/index"
)

// Cache-Control values upstream sends (RegistryAPI).
const (
	ccNoCache = "no-cache, public"
	ccTenMin  = "max-age=600, public"
	ccOneDay  = "max-age=86400, public"
	ccFiles   = "max-age=604800, public" // ovsx.storage.file-cache-duration P7D
)

// Defaults of upstream's paged endpoints.
const (
	defaultPageSize   = 18
	searchResultLimit = 10000 // Elasticsearch index.max_result_window
)

// kind classifies a reply for fault injection and caching.
type kind int

const (
	kindOther kind = iota
	kindJSON
	kindXML
	kindRedirect
	kindVSIX
	kindSHA256
	kindSigzip
	kindFile
)

// reply is a response before it is written.
type reply struct {
	status int
	header http.Header
	body   []byte
	kind   kind
	v      *version // the version a file reply belongs to
}

func jsonReply(status int, v any, cacheControl string) reply {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(errorJSON{Error: err.Error()})
		status = http.StatusInternalServerError
	}
	h := http.Header{"Content-Type": {"application/json"}}
	if cacheControl != "" && status == http.StatusOK {
		h.Set("Cache-Control", cacheControl)
	}
	return reply{status: status, header: h, body: b, kind: kindJSON}
}

func errorReply(status int, msg string) reply {
	return jsonReply(status, errorJSON{Error: msg}, "")
}

// urls builds absolute URLs on the base the request came in on; stored
// files are on cdnBase when it is set (Options.CDN).
type urls struct{ base, cdnBase string }

func baseURL(r *http.Request) urls {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return urls{base: scheme + "://" + r.Host}
}

// api joins segments under /api/.
func (u urls) api(segs ...string) string {
	return u.base + "/api/" + strings.Join(segs, "/")
}

// versionBase is createApiVersionBaseUrl: /api/ns/ext[/tp].
func (u urls) versionBase(e *extension, tp index.Platform) string {
	if tp == "" {
		return u.api(e.ns, e.name)
	}
	return u.api(e.ns, e.name, string(tp))
}

// file is the API URL of a stored file of v (universal omitted).
func (u urls) file(v *version, name string) string {
	if v.tp == index.Universal {
		return u.api(v.Namespace, v.Name, v.Version, "file", name)
	}
	return u.api(v.Namespace, v.Name, string(v.tp), v.Version, "file", name)
}

// cdn is where the API redirects a file: the storage object key
// {ns}/{ext}[/{tp}]/{version}/{name} under /cdn/.
func (u urls) cdn(v *version, name string) string {
	base := u.base
	if u.cdnBase != "" {
		base = u.cdnBase
	}
	segs := []string{base, "cdn", v.Namespace, v.Name}
	if v.tp != index.Universal {
		segs = append(segs, string(v.tp))
	}
	return strings.Join(append(segs, v.Version, name), "/")
}

// storedFile is one file upstream serves for a version.
type storedFile struct {
	typ  string
	name string
	data []byte
	kind kind
}

// storedFiles lists v's files in the order "files" lists them. A version
// with NoFiles has none.
func storedFiles(v *version) []storedFile {
	if v.NoFiles {
		return nil
	}
	var out []storedFile
	if v.VSIX != nil {
		out = append(out, storedFile{"download", v.FileBase() + ".vsix", v.VSIX, kindVSIX})
	}
	for _, r := range v.Resources {
		out = append(out, storedFile{r.Type, r.Name, r.Data, kindFile})
	}
	if v.VSIX != nil {
		out = append(out, storedFile{"sha256", v.FileBase() + ".sha256", []byte(v.sha), kindSHA256})
	}
	if v.sigzip != nil {
		out = append(out, storedFile{"signature", v.FileBase() + ".sigzip", v.sigzip, kindSigzip})
	}
	return out
}

// filesJSON is the "files" map restricted to the given types (none: all),
// with publicKey added when signature is present, as upstream does.
func (u urls) filesJSON(v *version, types ...string) pairs {
	p := pairs{}
	for _, f := range storedFiles(v) {
		if len(types) > 0 && !contains(types, f.typ) {
			continue
		}
		p.add(f.typ, u.file(v, f.name))
	}
	if _, ok := p.get("signature"); ok {
		p.add("publicKey", u.api("-", "public-key", KeyID))
	}
	return p
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func enginesJSON(v *version) *pairs {
	if len(v.Engines) == 0 {
		return nil
	}
	p := pairs{}
	for _, e := range v.Engines {
		p.add(e.Name, e.Range)
	}
	return &p
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// extensionJSON is toExtensionVersionJson plus the "downloads" map of the
// single-extension GETs; tp is the platform path parameter ("" = none).
func (h *handler) extensionJSON(u urls, e *extension, v *version, tp index.Platform) extensionJSON {
	latest, latestPre := e.latest(tp, false), e.latest(tp, true)
	st := e.stats()
	j := extensionJSON{
		NamespaceURL:         u.api(e.ns),
		ReviewsURL:           u.api(e.ns, e.name, "reviews"),
		Files:                u.filesJSON(v),
		Name:                 e.name,
		Namespace:            e.ns,
		TargetPlatform:       string(v.tp),
		Version:              v.Version,
		PreRelease:           v.PreRelease,
		PublishedBy:          &userJSON{LoginName: cmpOr(st.PublishedBy, e.ns), Provider: "github"},
		Verified:             st.Verified,
		AllVersions:          pairs{},
		AllVersionsURL:       u.versionBase(e, tp) + "/versions",
		AverageRating:        st.AverageRating,
		DownloadCount:        st.DownloadCount,
		ReviewCount:          st.ReviewCount,
		VersionAlias:         []string{},
		Timestamp:            v.Timestamp,
		Preview:              latest != nil && latest.Preview,
		DisplayName:          v.DisplayName,
		NamespaceDisplayName: e.ns,
		Description:          v.Description,
		Engines:              enginesJSON(v),
		Categories:           orEmpty(v.Categories),
		ExtensionKind:        orEmpty(v.ExtensionKind),
		Tags:                 orEmpty(v.Tags),
		License:              v.License,
		Homepage:             v.Homepage,
		Repository:           v.Repository,
		SponsorLink:          v.SponsorLink,
		Bugs:                 v.Bugs,
		Markdown:             v.Markdown,
		GalleryColor:         v.GalleryColor,
		GalleryTheme:         v.GalleryTheme,
		LocalizedLanguages:   orEmpty(v.LocalizedLanguages),
		QnA:                  v.QnA,
		Dependencies:         u.refs(v.Dependencies),
		BundledExtensions:    u.refs(v.BundledExtensions),
		Downloadable:         true,
	}
	if h.opts.Legacy {
		unrelated := !st.Verified
		j.UnrelatedPublisher = &unrelated
		j.NamespaceAccess = "restricted"
	} else {
		f := false
		j.PublishedWithTrustedPublishing = &f
		if v.VSIX != nil && !v.NoFiles {
			n := int64(len(v.VSIX))
			j.DownloadSize = &n
		}
	}
	u.setAliases(&j, e, v, tp, latest, latestPre)
	downloads := pairs{}
	for _, o := range e.versions {
		if o.Version != v.Version || (tp != "" && o.tp != tp) {
			continue
		}
		if d, ok := u.filesJSON(o, "download").get("download"); ok {
			downloads.add(string(o.tp), d)
		}
	}
	j.Downloads = &downloads
	return j
}

// setAliases sets j's versionAlias (which of latest and latestPre, the
// latest versions as the answer counts them, v is) and allVersions (the
// aliases, then e's newest versions for tp, each with its URL).
func (u urls) setAliases(j *extensionJSON, e *extension, v *version, tp index.Platform, latest, latestPre *version) {
	j.VersionAlias = []string{}
	if latest != nil && latest.Version == v.Version {
		j.VersionAlias = append(j.VersionAlias, "latest")
	}
	if latestPre != nil && latestPre.Version == v.Version {
		j.VersionAlias = append(j.VersionAlias, "pre-release")
	}
	vb := u.versionBase(e, tp)
	j.AllVersions = pairs{}
	if latest != nil {
		j.AllVersions.add("latest", vb+"/latest")
	}
	if latestPre != nil {
		j.AllVersions.add("pre-release", vb+"/pre-release")
	}
	for _, s := range e.versionStrings(tp, maxVersions) {
		j.AllVersions.add(s, vb+"/"+s)
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// refs turns "ns.ext" IDs into ExtensionReferenceJson, dropping malformed
// ones as upstream does.
func (u urls) refs(ids []string) []refJSON {
	out := []refJSON{}
	for _, id := range ids {
		ns, name, ok := strings.Cut(id, ".")
		if !ok || ns == "" || name == "" || strings.Contains(name, ".") {
			continue
		}
		out = append(out, refJSON{URL: u.api(ns, name), Namespace: ns, Extension: name})
	}
	return out
}

// versionRef is VersionReferenceJson for v: url always names the platform
// (universal included), files are download, sha256, signature, publicKey.
func (u urls) versionRef(v *version) versionRefJSON {
	return versionRefJSON{
		URL:            u.api(v.Namespace, v.Name, string(v.tp), v.Version),
		Files:          u.filesJSON(v, "download", "sha256", "signature"),
		Version:        v.Version,
		TargetPlatform: string(v.tp),
		Engines:        enginesJSON(v),
	}
}

// intParam parses an int query parameter with a default; a non-nil reply
// is upstream's 400 for a value that is not an int.
func intParam(q url.Values, name string, def int) (int, *reply) {
	s := q.Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		r := errorReply(http.StatusBadRequest, fmt.Sprintf(
			"Failed to convert value of type 'java.lang.String' to required type 'int'; For input string: %q", s))
		return 0, &r
	}
	return n, nil
}

// page reads size and offset as upstream's paged endpoints do; a non-nil
// reply is the error answer.
func page(q url.Values) (size, offset int, errRep *reply) {
	size, bad := intParam(q, "size", defaultPageSize)
	if bad == nil {
		offset, bad = intParam(q, "offset", 0)
	}
	if bad != nil {
		return 0, 0, bad
	}
	if size < 0 {
		r := errorReply(http.StatusBadRequest, "The parameter 'size' must not be negative.")
		return 0, 0, &r
	}
	if offset < 0 {
		r := errorReply(http.StatusBadRequest, "The parameter 'offset' must not be negative.")
		return 0, 0, &r
	}
	if size == 0 {
		// PageRequest.of(offset / size, size) divides by zero upstream.
		r := errorReply(http.StatusInternalServerError, "/ by zero")
		return 0, 0, &r
	}
	return size, offset, nil
}

// window returns the page of n items starting at offset rounded down to a
// multiple of size, as PageRequest.of(offset/size, size) does.
func window(n, size, offset int) (start, end int) {
	start = offset / size * size
	if start > n {
		start = n
	}
	end = min(start+size, n)
	return start, end
}

func (h *handler) versionReferences(u urls, e *extension, tp index.Platform, q url.Values) reply {
	size, offset, bad := page(q)
	if bad != nil {
		return *bad
	}
	list := []*version{}
	if e != nil {
		list = e.filter(tp)
	}
	start, end := window(len(list), size, offset)
	out := versionRefsJSON{Offset: offset / size * size, TotalSize: len(list), Versions: []versionRefJSON{}}
	for _, v := range list[start:end] {
		out.Versions = append(out.Versions, u.versionRef(v))
	}
	return jsonReply(http.StatusOK, out, ccTenMin)
}

func (h *handler) versions(u urls, e *extension, tp index.Platform, q url.Values) reply {
	size, offset, bad := page(q)
	if bad != nil {
		return *bad
	}
	var list []string
	if e != nil {
		list = e.versionStrings(tp, -1)
	}
	start, end := window(len(list), size, offset)
	out := versionsJSON{Offset: offset / size * size, TotalSize: len(list), Versions: pairs{}}
	for _, s := range list[start:end] {
		segs := []string{strings.ToLower(e.ns), strings.ToLower(e.name)}
		if tp != "" {
			segs = append(segs, string(tp))
		}
		out.Versions.add(s, u.api(append(segs, s)...))
	}
	return jsonReply(http.StatusOK, out, ccTenMin)
}
