package serve

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/artifact"
)

// Gallery is the VS Code gallery's query engine over one verified
// catalog (serve/gallery), built once per snapshot by Options.Gallery.
// base is the server's public base URL; the URLs it writes are served
// here: {base}/vscode/asset/{ns}/{name}/{version}/{assetType} and
// {base}/vscode/gallery/publishers/{ns}/vsextensions/{name}/{version}/vspackage.
type Gallery interface {
	// Query answers an extensionquery body (read bounded) with the JSON
	// response. An error wrapping ErrBadQuery is the client's: it is
	// answered 400 with its message.
	Query(body io.Reader, base string) ([]byte, error)
	// Latest returns the gallery extension JSON of the latest version of
	// ns.name for platform, and whether there is one.
	Latest(ns, name string, platform index.Platform, base string) ([]byte, bool)
}

// ErrBadQuery is wrapped by a Gallery's errors about the query itself.
var ErrBadQuery = errors.New("bad gallery query")

// assetRoles maps the gallery's asset types to the layers they name.
var assetRoles = map[string]artifact.Role{
	"Microsoft.VisualStudio.Services.VSIXPackage":       artifact.RoleVsix,
	"Microsoft.VisualStudio.Code.Manifest":              artifact.RoleManifest,
	"Microsoft.VisualStudio.Services.Content.Details":   artifact.RoleReadme,
	"Microsoft.VisualStudio.Services.Content.Changelog": artifact.RoleChangelog,
	"Microsoft.VisualStudio.Services.Content.License":   artifact.RoleLicense,
	"Microsoft.VisualStudio.Services.Icons.Default":     artifact.RoleIcon,
	"Microsoft.VisualStudio.Services.VsixSignature":     artifact.RoleUpstreamSignature,
}

// galleryAsset answers GET /vscode/asset/{ns}/{name}/{version}/{assetType}[/...]
// [?targetPlatform=]: a file of one build.
func (s *Server) galleryAsset(w http.ResponseWriter, r *http.Request) {
	asset, _, _ := strings.Cut(r.PathValue("asset"), "/")
	role, ok := assetRoles[asset]
	if !ok {
		httpError(w, http.StatusNotFound, "unknown asset type %q", asset)
		return
	}
	s.serveBuild(w, r, role)
}

// galleryPackage answers the vspackage route: the build's vsix.
func (s *Server) galleryPackage(w http.ResponseWriter, r *http.Request) {
	s.serveBuild(w, r, artifact.RoleVsix)
}

// serveBuild serves the layer role of the build the path's ns, name and
// version and the query's targetPlatform name.
func (s *Server) serveBuild(w http.ResponseWriter, r *http.Request, role artifact.Role) {
	ns, name, version := r.PathValue("ns"), r.PathValue("name"), r.PathValue("version")
	if !validID(ns, name) || !cleanSegment(version) {
		httpError(w, http.StatusBadRequest, "not an extension ID and version")
		return
	}
	var platform index.Platform
	if p := r.URL.Query().Get("targetPlatform"); p != "" {
		if platform = index.Platform(p); !platform.Valid() {
			httpError(w, http.StatusBadRequest, "unknown targetPlatform %q", p)
			return
		}
	}
	sn := s.acquire()
	defer sn.release()
	if s.malicious(w, r, sn, ns, name, http.StatusGone, false) {
		return
	}
	es := sn.extension(ns, name)
	var e *index.Entry
	if es != nil {
		e = pick(es, version, platform)
	}
	if e == nil || (version != "latest" && e.Version != version) {
		httpError(w, http.StatusNotFound, "no build %s.%s@%s for %q", ns, name, version, platform)
		return
	}
	m := s.answerManifest(w, r, sn, e, false)
	if m == nil {
		return
	}
	l, ok := m.Layer(role)
	if !ok || (role == artifact.RoleUpstreamSignature && !e.Upstream.Signed) {
		httpError(w, http.StatusNotFound, "%s has no %s", e, role)
		return
	}
	name = ""
	switch role {
	case artifact.RoleVsix:
		name = vsixName(e)
	case artifact.RoleUpstreamSignature:
		name = strings.TrimSuffix(vsixName(e), ".vsix") + ".sigzip"
	}
	s.serveBlob(w, r, sn, e, l, name)
}

// galleryQuery answers POST …/extensionquery through the Gallery.
func (s *Server) galleryQuery(w http.ResponseWriter, r *http.Request) {
	sn := s.acquire()
	defer sn.release()
	if sn.gallery == nil {
		httpError(w, http.StatusNotImplemented, "this server has no gallery query engine")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxGalleryQuery))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		jsonError(w, r, http.StatusRequestEntityTooLarge, "the query is larger than %d bytes: ask for fewer extensions at a time", mbe.Limit)
		return
	}
	if err != nil {
		jsonError(w, r, http.StatusBadRequest, "read the query: %v", err)
		return
	}
	base := s.base(r)
	key, cacheable := sn.queries.key(base, body)
	if cacheable {
		if a := sn.queries.get(key); a != nil {
			w.Header().Set("Cache-Control", "no-cache")
			writeAnswer(w, r, a)
			return
		}
	}
	b, err := sn.gallery.Query(bytes.NewReader(body), base)
	switch {
	case errors.As(err, &mbe):
		jsonError(w, r, http.StatusRequestEntityTooLarge, "the query is larger than %d bytes: ask for fewer extensions at a time", mbe.Limit)
		return
	case errors.Is(err, ErrBadQuery):
		jsonError(w, r, http.StatusBadRequest, "%v", err)
		return
	case err != nil:
		s.log.Error("gallery query", "err", err)
		jsonError(w, r, http.StatusInternalServerError, "the query could not be answered")
		return
	}
	w.Header().Set("Cache-Control", "no-cache")
	if cacheable {
		writeAnswer(w, r, sn.queries.put(key, b))
		return
	}
	writeJSONBytes(w, r, http.StatusOK, b)
}

// galleryLatest answers …/{ns}/{name}/latest with one gallery extension.
func (s *Server) galleryLatest(w http.ResponseWriter, r *http.Request) {
	ns, name := r.PathValue("ns"), r.PathValue("name")
	if !validID(ns, name) {
		jsonError(w, r, http.StatusBadRequest, "%q is not an extension ID", ns+"."+name)
		return
	}
	var platform index.Platform
	if p := r.URL.Query().Get("targetPlatform"); p != "" {
		if platform = index.Platform(p); !platform.Valid() {
			jsonError(w, r, http.StatusBadRequest, "unknown targetPlatform %q", p)
			return
		}
	}
	sn := s.acquire()
	defer sn.release()
	if sn.gallery == nil {
		httpError(w, http.StatusNotImplemented, "this server has no gallery query engine")
		return
	}
	if s.malicious(w, r, sn, ns, name, http.StatusNotFound, true) {
		return
	}
	b, ok := sn.gallery.Latest(ns, name, platform, s.base(r))
	if !ok {
		jsonError(w, r, http.StatusNotFound, "Extension not found: %s.%s", ns, name)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=60")
	writeJSONBytes(w, r, http.StatusOK, b)
}

// galleryStats answers the editors' statistics POSTs: nothing is counted.
func (s *Server) galleryStats(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, http.MaxBytesReader(w, r.Body, maxQueryBody))
	w.WriteHeader(http.StatusOK)
}

// galleryItem answers GET /vscode/item?itemName=ns.name with a redirect
// to the extension's page of the static catalog.
func (s *Server) galleryItem(w http.ResponseWriter, r *http.Request) {
	ns, name, ok := strings.Cut(r.URL.Query().Get("itemName"), ".")
	if !ok || !validID(ns, name) {
		httpError(w, http.StatusBadRequest, "itemName must be namespace.name")
		return
	}
	sn := s.acquire()
	defer sn.release()
	if s.malicious(w, r, sn, ns, name, http.StatusNotFound, false) {
		return
	}
	if sn.extension(ns, name) == nil {
		httpError(w, http.StatusNotFound, "no extension %s.%s", ns, name)
		return
	}
	http.Redirect(w, r, s.base(r)+"/ext/"+url.PathEscape(sn.extension(ns, name)[0].ID.Key())+".html", http.StatusFound)
}
