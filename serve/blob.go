package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/internal/copybuf"
)

// Bounds of the caches, which keep memory flat on a large catalog.
const (
	maxCachedManifests = 8192
	maxVerifiedFiles   = 65536
)

// manifestCache keeps parsed entry manifests by digest: a manifest is
// the same bytes in every snapshot that names its digest.
type manifestCache struct {
	mu  sync.Mutex
	max int
	m   map[string]*artifact.Manifest
}

func newManifestCache(max int) *manifestCache {
	return &manifestCache{max: max, m: make(map[string]*artifact.Manifest)}
}

// answerManifest returns e's manifest; when it cannot be read it logs
// why, answers 502 (as JSON for asJSON, else plain text) and returns nil.
func (s *Server) answerManifest(w http.ResponseWriter, r *http.Request, sn *snapshot, e *index.Entry, asJSON bool) *artifact.Manifest {
	m, err := s.manifest(r.Context(), sn, e)
	if err == nil {
		return m
	}
	s.log.Error("an entry's manifest cannot be read (run airvsx verify)", "ext", e.String(), "err", err)
	const msg = "the manifest of %s cannot be read from the registry"
	if asJSON {
		jsonError(w, r, http.StatusBadGateway, msg, e)
	} else {
		httpError(w, http.StatusBadGateway, msg, e)
	}
	return nil
}

// manifest returns e's manifest, read from sn's store (verified and
// checked against e) on a miss.
func (s *Server) manifest(ctx context.Context, sn *snapshot, e *index.Entry) (*artifact.Manifest, error) {
	c := s.manifests
	c.mu.Lock()
	m, ok := c.m[e.ManifestDigest]
	c.mu.Unlock()
	if ok {
		if err := artifact.CheckEntry(m, e); err != nil {
			return nil, err
		}
		return m, nil
	}
	st, done, err := s.use(ctx, sn)
	if err != nil {
		return nil, err
	}
	m, err = artifact.EntryManifest(ctx, st, e)
	done()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[e.ManifestDigest] = m
	c.mu.Unlock()
	return m, nil
}

// fileID is what identifies a file's content without reading it.
type fileID struct {
	dev, ino uint64
	size     int64
	mtime    time.Time
}

func identify(fi fs.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino), size: fi.Size(), mtime: fi.ModTime()}, true
}

// verifiedFiles remembers the blob files whose content was hashed and
// found to be what their digest names.
type verifiedFiles struct {
	mu  sync.Mutex
	max int
	m   map[string]fileID // digest -> the file found good
}

func newVerifiedFiles(max int) *verifiedFiles {
	return &verifiedFiles{max: max, m: make(map[string]fileID)}
}

func (v *verifiedFiles) ok(digest string, id fileID) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	got, ok := v.m[digest]
	return ok && got == id
}

func (v *verifiedFiles) add(digest string, id fileID) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.m) >= v.max {
		clear(v.m)
	}
	v.m[digest] = id
}

func (v *verifiedFiles) forget(digest string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.m, digest)
}

// openVerified opens the blob digest of repo, size bytes, as a file whose
// content was checked against the digest. The caller closes it.
func (s *Server) openVerified(ctx context.Context, sn *snapshot, repo, digest string, size int64) (*os.File, error) {
	st, done, err := s.use(ctx, sn)
	if err != nil {
		return nil, err
	}
	defer done() // the file outlives the store
	bf, ok := store.As[store.BlobFiler](st)
	if !ok {
		// Spooled through the verifying reader into a temporary file
		// that is already removed.
		return store.OpenBlobAt(ctx, st, repo, digest, size, nil, "")
	}
	f, err := bf.OpenBlobFile(ctx, repo, digest)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() != size {
		f.Close()
		s.verified.forget(digest)
		return nil, &store.MismatchError{Repo: repo, Digest: digest, Size: size, GotSize: fi.Size()}
	}
	id, known := identify(fi)
	if known && s.verified.ok(digest, id) {
		return f, nil
	}
	if _, err := copybuf.Copy(io.Discard, store.VerifyReader(ctx, io.NopCloser(io.NewSectionReader(f, 0, size+1)), repo, digest, size)); err != nil {
		f.Close()
		s.verified.forget(digest)
		return nil, err
	}
	if known {
		s.verified.add(digest, id)
	}
	return f, nil
}

// serveBlob answers with the blob of layer l of e: Range and conditional
// requests honoured, the ETag its digest. name is the file name offered
// to save it as ("" for none).
func (s *Server) serveBlob(w http.ResponseWriter, r *http.Request, sn *snapshot, e *index.Entry, l artifact.Layer, name string) {
	etag := `"` + l.Digest + `"`
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatch(inm, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if !sn.files && r.Header.Get("Range") == "" {
		s.streamBlob(w, r, sn, e, l, name)
		return
	}
	f, err := s.openVerified(r.Context(), sn, artifact.Repo(e.ID), l.Digest, l.Size)
	if err != nil {
		s.blobError(w, e, l, err)
		return
	}
	defer f.Close()
	blobHeaders(h, l, name)
	http.ServeContent(w, r, "", time.Time{}, io.NewSectionReader(f, 0, l.Size))
}

// blobHeaders sets the headers of a blob's answer.
func blobHeaders(h http.Header, l artifact.Layer, name string) {
	h.Set("Content-Type", contentType(l))
	// An SVG icon or an HTML README opened as a page runs nothing.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	if name != "" {
		h.Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name))
	}
}

// streamBlob sends a blob of a store without files (an OCI registry, a
// git repository) as it is read, without spooling it: through the
// verifying reader, with its Content-Length. When the bytes turn out not
// to be the digest's at the end, the connection is cut before the last
// of them is sent, so no client ever holds a complete wrong file (it
// sees a body shorter than its length), and the damage is logged.
func (s *Server) streamBlob(w http.ResponseWriter, r *http.Request, sn *snapshot, e *index.Entry, l artifact.Layer, name string) {
	st, done, err := s.use(r.Context(), sn)
	if err != nil {
		s.blobError(w, e, l, err)
		return
	}
	defer done()
	rc, err := st.OpenBlob(r.Context(), artifact.Repo(e.ID), l.Digest, l.Size)
	if err != nil {
		s.blobError(w, e, l, err)
		return
	}
	defer rc.Close()
	h := w.Header()
	blobHeaders(h, l, name)
	h.Set("Content-Length", strconv.FormatInt(l.Size, 10))
	h.Set("Accept-Ranges", "none")
	if r.Method == http.MethodHead {
		return
	}
	// Hold back the last byte until the reader has said the content is
	// the digest's (its io.EOF).
	buf := make([]byte, 64<<10)
	var held []byte
	for {
		n, rerr := rc.Read(buf)
		if n > 0 {
			chunk := append(held, buf[:n]...)
			held = append(held[:0:0], chunk[len(chunk)-1])
			if _, werr := w.Write(chunk[:len(chunk)-1]); werr != nil {
				return
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			if !errors.Is(rerr, context.Canceled) {
				s.log.Error("a stored file is damaged or unreadable; the answer was cut off (run airvsx verify)", "ext", e.String(), "role", l.Role, "sha256", l.Digest, "err", rerr)
			}
			panic(http.ErrAbortHandler)
		}
	}
	w.Write(held)
}

// blobError answers a blob that cannot be served: missing or damaged
// bytes are the registry's fault, never sent.
func (s *Server) blobError(w http.ResponseWriter, e *index.Entry, l artifact.Layer, err error) {
	w.Header().Del("ETag")
	w.Header().Del("Cache-Control")
	switch {
	case errors.Is(err, store.ErrMismatch):
		s.log.Error("a stored file does not match the catalog; not served: verify the registry and repair it from a good copy", "ext", e.String(), "role", l.Role, "sha256", l.Digest, "err", err)
		httpError(w, http.StatusBadGateway, "%s of %s is damaged in the registry and is not served", l.Role, e)
	case errors.Is(err, fs.ErrNotExist):
		s.log.Error("a stored file the catalog names is missing (run airvsx verify)", "ext", e.String(), "role", l.Role, "sha256", l.Digest)
		httpError(w, http.StatusBadGateway, "%s of %s is missing from the registry", l.Role, e)
	case errors.Is(err, context.Canceled):
		httpError(w, http.StatusServiceUnavailable, "request canceled")
	default:
		s.log.Error("read a stored file", "ext", e.String(), "role", l.Role, "err", err)
		httpError(w, http.StatusInternalServerError, "%s of %s cannot be read", l.Role, e)
	}
}

// contentType is the media type a layer is served with.
func contentType(l artifact.Layer) string {
	switch l.Role {
	case artifact.RoleVsix:
		return "application/vsix"
	case artifact.RoleManifest, artifact.RoleUpstreamMetadata:
		return "application/json"
	case artifact.RoleUpstreamSignature:
		return "application/zip"
	case artifact.RoleReadme, artifact.RoleChangelog:
		return "text/markdown; charset=utf-8"
	case artifact.RoleLicense:
		return "text/plain; charset=utf-8"
	}
	return artifact.MediaTypeFor(l.Role, l.Title)
}

// etagMatch reports whether an If-None-Match list names etag.
func etagMatch(list, etag string) bool {
	for list != "" {
		var v string
		v, list, _ = strings.Cut(list, ",")
		v = strings.TrimSpace(v)
		if v == "*" || v == etag || v == "W/"+etag {
			return true
		}
	}
	return false
}
