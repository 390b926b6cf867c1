package serve

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/artifact"
)

// openVSX answers GET /api/...: the Open VSX registry API that ovsx and
// Theia use (see the routes in the switch).
func (s *Server) openVSX(w http.ResponseWriter, r *http.Request) {
	seg, ok := segments(strings.TrimPrefix(r.URL.EscapedPath(), "/api/"))
	if !ok {
		jsonError(w, r, http.StatusBadRequest, "malformed path")
		return
	}
	sn := s.acquire()
	defer sn.release()
	switch {
	case len(seg) == 2 && seg[0] == "-" && seg[1] == "search":
		s.openVSXSearch(w, r, sn)
		return
	case len(seg) == 2 && seg[0] == "-" && seg[1] == "query",
		len(seg) == 3 && seg[0] == "v2" && seg[1] == "-" && seg[2] == "query":
		s.openVSXQuery(w, r, sn, r.URL.Query())
		return
	case len(seg) == 3 && seg[0] == "-" && seg[1] == "public-key":
		s.publicKey(w, r, sn, seg[2])
		return
	case len(seg) == 1 && seg[0] == "version":
		writeJSON(w, r, map[string]string{"version": "airvsx"})
		return
	case len(seg) < 2 || len(seg) > 6:
		jsonError(w, r, http.StatusNotFound, "no such API")
		return
	}
	ns, name, rest := seg[0], seg[1], seg[2:]
	if !validID(ns, name) {
		jsonError(w, r, http.StatusBadRequest, "%q is not an extension ID", ns+"."+name)
		return
	}
	if s.malicious(w, r, sn, ns, name, http.StatusNotFound, true) {
		return
	}
	es := sn.extension(ns, name)
	if es == nil {
		jsonError(w, r, http.StatusNotFound, "Extension not found: %s.%s", ns, name)
		return
	}
	var platform index.Platform
	if len(rest) > 0 && index.Platform(rest[0]).Valid() && !(len(rest) == 3 && rest[1] == "file") {
		platform, rest = index.Platform(rest[0]), rest[1:]
	}
	switch {
	case len(rest) == 0:
		s.extensionJSON(w, r, sn, es, "", platform)
	case len(rest) == 1 && rest[0] == "versions":
		s.versionsJSON(w, r, es, platform)
	case len(rest) == 1:
		s.extensionJSON(w, r, sn, es, rest[0], platform)
	case len(rest) == 3 && rest[1] == "file":
		s.openVSXFile(w, r, sn, es, rest[0], platform, rest[2])
	default:
		jsonError(w, r, http.StatusNotFound, "no such API")
	}
}

// extensionJSON answers one build of an extension as Open VSX's
// extension JSON.
func (s *Server) extensionJSON(w http.ResponseWriter, r *http.Request, sn *snapshot, es []index.Entry, version string, platform index.Platform) {
	if a := sn.answers.get(s.base(r) + "\x00" + r.URL.EscapedPath()); a != nil {
		w.Header().Set("Cache-Control", "public, max-age=60")
		writeAnswer(w, r, a)
		return
	}
	e := pick(es, version, platform)
	if e == nil {
		jsonError(w, r, http.StatusNotFound, "Extension not found: %s (version %q, platform %q)", es[0].ID, version, platform)
		return
	}
	m := s.answerManifest(w, r, sn, e, true)
	if m == nil {
		return
	}
	b, err := json.Marshal(s.extJSON(sn, r, es, e, m, platform))
	if err != nil {
		httpError(w, http.StatusInternalServerError, "encode the answer: %v", err)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=60")
	writeAnswer(w, r, sn.answers.put(s.base(r)+"\x00"+r.URL.EscapedPath(), b))
}

// extJSON is Open VSX's ExtensionJson for e, its files those stored.
func (s *Server) extJSON(sn *snapshot, r *http.Request, es []index.Entry, e *index.Entry, m *artifact.Manifest, platform index.Platform) *extensionJSON {
	base := s.base(r)
	api := base + "/api/" + url.PathEscape(e.ID.Namespace) + "/" + url.PathEscape(e.ID.Name)
	apiT := api
	if platform != "" {
		apiT += "/" + string(platform)
	}
	ver := api + "/" + url.PathEscape(e.Version)
	if e.Platform != index.Universal {
		ver = api + "/" + string(e.Platform) + "/" + url.PathEscape(e.Version)
	}
	files := map[string]string{
		"download": ver + "/file/" + url.PathEscape(vsixName(e)),
		"sha256":   ver + "/file/" + url.PathEscape(strings.TrimSuffix(vsixName(e), ".vsix")+".sha256"),
	}
	for _, f := range []struct {
		key  string
		role artifact.Role
	}{{"manifest", artifact.RoleManifest}, {"readme", artifact.RoleReadme}, {"changelog", artifact.RoleChangelog},
		{"license", artifact.RoleLicense}, {"icon", artifact.RoleIcon}} {
		if l, ok := m.Layer(f.role); ok {
			title := l.Title
			if f.role == artifact.RoleManifest {
				title = "package.json"
			}
			files[f.key] = ver + "/file/" + url.PathEscape(title)
		}
	}
	if _, ok := m.Layer(artifact.RoleUpstreamSignature); ok && e.Upstream.Signed {
		files["signature"] = ver + "/file/" + url.PathEscape(strings.TrimSuffix(vsixName(e), ".vsix")+".sigzip")
		if e.Upstream.KeyID != "" && upstreamKey(sn.cat, e.Upstream.KeyID) != "" {
			files["publicKey"] = base + "/api/-/public-key/" + url.PathEscape(e.Upstream.KeyID)
		}
	}
	x := &extensionJSON{
		URL: ver, Files: files, Namespace: e.ID.Namespace, Name: e.ID.Name, Version: e.Version,
		TargetPlatform: string(e.Platform), PreRelease: e.PreRelease, Timestamp: e.Published.UTC().Format(time.RFC3339),
		DisplayName: e.DisplayName, Description: e.Description, Categories: nonNil(e.Categories), Tags: nonNil(e.Tags),
		License: e.License, Repository: e.Repository, Homepage: e.Homepage,
		NamespaceURL: base + "/api/" + url.PathEscape(e.ID.Namespace), AllVersionsURL: apiT + "/versions",
		Downloadable: true, Verified: false, Dependencies: refs(base, e.Dependencies), BundledExtensions: refs(base, e.ExtensionPack),
		Downloads: map[string]string{}, VersionAlias: []string{},
	}
	if v := sn.control.Verdict(e.ID); v.Deprecated != nil {
		x.Deprecated = true
		if rp := v.Deprecated.Extension; rp != nil {
			x.Replacement = &replacementJSON{URL: replacementURL(base, rp.ID), DisplayName: rp.DisplayName}
		}
	}
	if e.Engine != "" {
		x.Engines = map[string]string{"vscode": e.Engine}
	}
	// allVersions: the aliases, then every version newest first, each
	// once, for the platform asked for (any, without one).
	seen := make(map[string]bool)
	if l := pick(es, "latest", platform); l != nil {
		x.AllVersions = append(x.AllVersions, kv{"latest", apiT + "/latest"})
		if l.Version == e.Version {
			x.VersionAlias = append(x.VersionAlias, "latest")
		}
	}
	if p := pick(es, "pre-release", platform); p != nil {
		x.AllVersions = append(x.AllVersions, kv{"pre-release", apiT + "/pre-release"})
		if p.Version == e.Version {
			x.VersionAlias = append(x.VersionAlias, "pre-release")
		}
	}
	for i := range es {
		o := &es[i]
		if platform != "" && o.Platform != platform {
			continue
		}
		if !seen[o.Version] {
			seen[o.Version] = true
			x.AllVersions = append(x.AllVersions, kv{o.Version, apiT + "/" + url.PathEscape(o.Version)})
		}
		if o.Version == e.Version {
			x.Downloads[string(o.Platform)] = api + "/" + string(o.Platform) + "/" + url.PathEscape(o.Version) + "/file/" + url.PathEscape(vsixName(o))
		}
	}
	return x
}

// versionsJSON answers /versions: every version, newest first, with the
// URL of its extension JSON.
func (s *Server) versionsJSON(w http.ResponseWriter, r *http.Request, es []index.Entry, platform index.Platform) {
	api := s.base(r) + "/api/" + url.PathEscape(es[0].ID.Namespace) + "/" + url.PathEscape(es[0].ID.Name)
	if platform != "" {
		api += "/" + string(platform)
	}
	var vs orderedMap
	seen := make(map[string]bool)
	for i := range es {
		if e := &es[i]; (platform == "" || e.Platform == platform) && !seen[e.Version] {
			seen[e.Version] = true
			vs = append(vs, kv{e.Version, api + "/" + url.PathEscape(e.Version)})
		}
	}
	w.Header().Set("Cache-Control", "public, max-age=60")
	writeJSON(w, r, struct {
		Offset    int        `json:"offset"`
		TotalSize int        `json:"totalSize"`
		Versions  orderedMap `json:"versions"`
	}{0, len(vs), vs})
}

// openVSXFile answers a file URL: /api/{ns}/{name}[/{platform}]/{version}/file/{name}.
func (s *Server) openVSXFile(w http.ResponseWriter, r *http.Request, sn *snapshot, es []index.Entry, version string, platform index.Platform, file string) {
	if platform == "" {
		platform = index.Universal
	}
	e := pick(es, version, platform)
	if e == nil || e.Version != version {
		httpError(w, http.StatusNotFound, "%s has no version %q for %s", es[0].ID, version, platform)
		return
	}
	if file == strings.TrimSuffix(vsixName(e), ".vsix")+".sha256" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("ETag", `"`+artifact.VsixDigest(e)+`"`)
		w.Write([]byte(e.VsixSHA256))
		return
	}
	m := s.answerManifest(w, r, sn, e, false)
	if m == nil {
		return
	}
	l, ok := fileRole(m, e, file)
	if !ok || (l.Role == artifact.RoleUpstreamSignature && !e.Upstream.Signed) {
		httpError(w, http.StatusNotFound, "%s has no file %q", e, file)
		return
	}
	name := ""
	if l.Role == artifact.RoleVsix || l.Role == artifact.RoleUpstreamSignature {
		name = file
	}
	s.serveBlob(w, r, sn, e, l, name)
}

// publicKey answers an upstream signing key the catalog pins, as PEM.
func (s *Server) publicKey(w http.ResponseWriter, r *http.Request, sn *snapshot, id string) {
	pem := upstreamKey(sn.cat, id)
	if pem == "" {
		httpError(w, http.StatusNotFound, "no public key %q", id)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte(pem))
}

// upstreamKey is the PEM of the catalog's upstream key id, or "".
func upstreamKey(cat *index.Catalog, id string) string {
	for _, k := range cat.UpstreamKeys {
		if k.ID == id {
			return k.PEM
		}
	}
	return ""
}

// replacementURL is the URL of the extension JSON of id, the replacement
// a control list names ("publisher.name"); the URL of the API's root
// when id does not split into a namespace and a name.
func replacementURL(base, id string) string {
	ns, name, ok := strings.Cut(id, ".")
	if !ok || !validID(ns, name) {
		return base + "/api/"
	}
	return base + "/api/" + url.PathEscape(ns) + "/" + url.PathEscape(name)
}
