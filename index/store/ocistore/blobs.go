package ocistore

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"net/http"
	"net/url"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
)

// manifestAccept is what a manifest request accepts.
const manifestAccept = artifact.MediaTypeManifest + ", " + artifact.MediaTypeIndex

// StatBlob returns the size of a blob (a HEAD; a manifest pushed only
// through the manifest API is found there too).
func (s *ociStore) StatBlob(ctx context.Context, repo, digest string) (int64, error) {
	size, err := s.statBlob(ctx, s.repoPath(repo), digest, "blobs", "manifests")
	if err != nil {
		return 0, fmt.Errorf("stat blob %s in %s: %w", digest, repo, err)
	}
	return size, nil
}

// statBlob returns the size of digest in rpath: a HEAD through each API
// of kinds ("blobs", "manifests") in turn until one has it.
//
// By hand, like getBlob: ggcr's remote.Layer HEADs a blob but reports a
// missing one as an error to parse, and its remote.Head of a manifest
// wants headers (Docker-Content-Digest) the store does not need.
func (s *ociStore) statBlob(ctx context.Context, rpath, digest string, kinds ...string) (int64, error) {
	for _, kind := range kinds {
		resp, err := s.blobRequest(ctx, http.MethodHead, rpath, kind, digest)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		if resp.StatusCode == 404 {
			continue
		}
		if resp.ContentLength < 0 {
			return 0, fmt.Errorf("HEAD %s: no Content-Length", resp.Request.URL.Redacted())
		}
		s.seen(rpath, digest)
		return resp.ContentLength, nil
	}
	return 0, fs.ErrNotExist
}

// blobRequest sends a GET or HEAD of digest through the API kind
// ("blobs" or "manifests") of rpath; its status is 200 or 404.
func (s *ociStore) blobRequest(ctx context.Context, method, rpath, kind, digest string) (*http.Response, error) {
	var h http.Header
	if kind == "manifests" {
		h = http.Header{"Accept": {manifestAccept}}
	}
	return s.send(ctx, rpath, method, s.endpoint("/v2/"+rpath+"/"+kind+"/"+digest, nil), h, nil, 0, 200, 404)
}

// OpenBlob opens a blob for verified reading (store.OpenVerified).
func (s *ociStore) OpenBlob(ctx context.Context, repo, digest string, size int64) (io.ReadCloser, error) {
	return store.OpenVerified(ctx, repo, digest, size, func() (io.ReadCloser, int64, error) {
		return s.getBlob(ctx, s.repoPath(repo), digest)
	})
}

// getBlob starts reading a blob; its stored size is the response's
// Content-Length (-1 when the registry does not say).
//
// By hand: ggcr's remote.Layer reader checks the digest itself and fails
// with its own error, where the store's verified reader (the caller's)
// must report a *store.MismatchError, and it follows redirects to any
// host that is not a private address, where the store follows them only
// to the hosts Options.AlsoDial names.
func (s *ociStore) getBlob(ctx context.Context, rpath, digest string) (io.ReadCloser, int64, error) {
	for _, kind := range []string{"blobs", "manifests"} {
		resp, err := s.blobRequest(ctx, http.MethodGet, rpath, kind, digest)
		if err != nil {
			return nil, 0, err
		}
		if resp.StatusCode == 404 {
			drain(resp)
			continue
		}
		return resp.Body, resp.ContentLength, nil
	}
	return nil, 0, fs.ErrNotExist
}

// PutBlob uploads a blob unless the repository has it with that size
// (see the package comment: mount, stream, commit only what checks).
func (s *ociStore) PutBlob(ctx context.Context, repo, digest string, size int64, c store.Content) error {
	rpath := s.repoPath(repo)
	if err := s.putBlob(ctx, rpath, digest, size, c); err != nil {
		if me, ok := err.(*store.MismatchError); ok {
			me.Repo = repo
		}
		return fmt.Errorf("put blob %s in %s: %w", digest, repo, err)
	}
	if err := s.markRepo(ctx, rpath); err != nil {
		return fmt.Errorf("put blob %s in %s: %w", digest, repo, err)
	}
	return nil
}

// repoMarker is the manifest markRepo pushes, untagged, into every
// extension repository: a registry's catalog API lists only repositories
// that hold a manifest, and Repos must list those that hold only blobs too.
var repoMarker = []byte(`{"schemaVersion":2,"mediaType":"` + artifact.MediaTypeManifest + `","artifactType":"application/vnd.airvsx.repository.v1",` +
	`"config":{"mediaType":"` + artifact.MediaTypeEmpty + `","digest":"` + artifact.EmptyConfigDigest + `","size":2},"layers":[]}`)

// markRepo pushes repoMarker by digest into rpath, once per store.
func (s *ociStore) markRepo(ctx context.Context, rpath string) error {
	s.mu.Lock()
	done := s.marked[rpath]
	s.mu.Unlock()
	if done {
		return nil
	}
	if err := s.putBlob(ctx, rpath, artifact.EmptyConfigDigest, 2, store.BytesContent([]byte(artifact.EmptyConfig))); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := s.putManifest(ctx, rpath, index.DigestBytes(repoMarker), artifact.MediaTypeManifest, repoMarker); err != nil {
		return fmt.Errorf("repository marker: %w", err)
	}
	s.mu.Lock()
	s.marked[rpath] = true
	s.mu.Unlock()
	return nil
}

func (s *ociStore) putBlob(ctx context.Context, rpath, digest string, size int64, c store.Content) error {
	// Only the blob API: a manifest something else pushed without its
	// blob is uploaded as one (a round trip less for every blob that is
	// missing, the usual case here).
	if got, err := s.statBlob(ctx, rpath, digest, "blobs"); err == nil && got == size {
		return nil
	}
	loc, err := s.startUpload(ctx, rpath, digest)
	if err != nil || loc == nil {
		return err // loc == nil: mounted
	}
	first := true
	for attempt := 0; ; attempt++ {
		if !first {
			if err := c.Rewind(); err != nil {
				return fmt.Errorf("rewind the content for a new upload: %w", err)
			}
			if loc, err = s.startUpload(ctx, rpath, ""); err != nil {
				return err
			}
		}
		first = false
		_, _, err := s.upload(ctx, rpath, loc, c, size, digest)
		if err == nil {
			s.seen(rpath, digest)
			return nil
		}
		if retry, ok := err.(*retryUpload); ok && attempt < 3 {
			s.log.Debug("upload failed; again from the first byte", "url", loc.Redacted(), "err", retry.err)
			continue
		} else if ok {
			return retry.err
		}
		return err
	}
}

// retryUpload is an upload that failed after its session began in a way
// a new session can fix (a network error or a 5xx midway).
type retryUpload struct{ err error }

func (e *retryUpload) Error() string { return e.err.Error() }

// startUpload opens an upload session and returns its location; nil when
// digest (if not "") was mounted from another repository instead.
//
// The upload (startUpload, upload, cancelUpload) is by hand: ggcr's
// remote.WriteLayer commits whatever it streamed and leaves checking the
// digest to the registry; the store hashes and counts while it streams,
// commits only bytes that are what the digest and size name, and cancels
// the session otherwise (see upload). Its mounts need the source
// repository to be named up front (remote.WithMount-less Layer), where the
// store remembers where it saw each digest.
func (s *ociStore) startUpload(ctx context.Context, rpath, digest string) (*url.URL, error) {
	q := url.Values{}
	if digest != "" {
		if from := s.mountSource(rpath, digest); from != "" {
			q.Set("mount", digest)
			q.Set("from", from)
		}
	}
	resp, err := s.send(ctx, rpath, http.MethodPost, s.endpoint("/v2/"+rpath+"/blobs/uploads/", q), nil, http.NoBody, 0, 201, 202)
	if err != nil {
		return nil, err
	}
	drain(resp)
	if resp.StatusCode == 201 {
		s.log.Debug("mounted", "sha256", digest, "from", q.Get("from"), "repo", rpath)
		s.seen(rpath, digest)
		return nil, nil
	}
	return s.location(resp)
}

// location resolves an upload response's Location header: the session's
// next URL, on the registry or on a host Options.AlsoDial names (by the
// rules of a redirect there).
func (s *ociStore) location(resp *http.Response) (*url.URL, error) {
	l := resp.Header.Get("Location")
	if l == "" {
		return nil, fmt.Errorf("%s %s: no Location in the response", resp.Request.Method, resp.Request.URL.Redacted())
	}
	u, err := s.base.Parse(l)
	if err != nil {
		return nil, fmt.Errorf("%s %s: Location %q: %w", resp.Request.Method, resp.Request.URL.Redacted(), l, err)
	}
	if u.Host == s.base.Host {
		u.Scheme = s.base.Scheme
		return u, nil
	}
	next := &http.Request{Method: http.MethodGet, URL: u, Response: resp}
	if err := s.redirectable(next); err != nil {
		return nil, err
	}
	return u, nil
}

// upload streams content to the session at loc (one PATCH), hashing it,
// and commits it (the PUT with the digest) only when it is size bytes
// (size < 0: any) with digest (digest "": any); the committed digest and
// size are returned. On a mismatch the session is cancelled and the error
// is a *store.MismatchError.
func (s *ociStore) upload(ctx context.Context, rpath string, loc *url.URL, content io.Reader, size int64, digest string) (string, int64, error) {
	h := sha256.New()
	cr := &countingReader{h: h}
	src := store.ContextReader(ctx, content)
	if size >= 0 {
		src = io.LimitReader(src, size+1)
	}
	cr.r = src
	// The transport may still read the body after RoundTrip has returned
	// (a response before the whole body was sent); the content is not
	// rewound or reused before it closes the body.
	body := &closeSignal{r: cr, done: make(chan struct{})}
	resp, err := s.send(once(ctx), rpath, http.MethodPatch, loc, http.Header{"Content-Type": {"application/octet-stream"}}, body, -1, 202)
	<-body.done
	if cr.err != nil {
		s.cancelUpload(rpath, loc)
		return "", 0, cr.err
	}
	if err != nil {
		s.cancelUpload(rpath, loc)
		if hasStatus(err, 400, 404, 416) || ctx.Err() != nil {
			return "", 0, err
		}
		return "", 0, &retryUpload{err}
	}
	drain(resp)
	got := index.DigestOfSum(h.Sum(nil))
	if next, err := s.location(resp); err == nil {
		loc = next
	} else {
		s.cancelUpload(rpath, loc)
		return "", 0, err
	}
	if (size >= 0 && cr.n != size) || (digest != "" && got != digest) {
		s.cancelUpload(rpath, loc)
		me := &store.MismatchError{Digest: digest, Size: size, GotSize: cr.n, GotDigest: got}
		if cr.n > size {
			me.GotDigest = ""
		}
		return "", 0, me
	}
	q := loc.Query()
	q.Set("digest", got)
	put := *loc
	put.RawQuery = q.Encode()
	resp, err = s.send(ctx, rpath, http.MethodPut, &put, nil, http.NoBody, 0, 201)
	if err != nil {
		s.cancelUpload(rpath, loc)
		return "", 0, &retryUpload{err}
	}
	drain(resp)
	return got, cr.n, nil
}

// cancelUpload ends an upload session that will not be committed; an
// error is only logged (the registry expires sessions anyway).
func (s *ociStore) cancelUpload(rpath string, loc *url.URL) {
	ctx := context.Background()
	resp, err := s.send(once(ctx), rpath, http.MethodDelete, loc, nil, nil, 0, 200, 202, 204, 404)
	if err != nil {
		s.log.Debug("cancel upload", "url", loc.Redacted(), "err", err)
		return
	}
	drain(resp)
}

// countingReader hashes and counts what it reads and keeps the first error
// of its source (other than io.EOF), so an upload tells the content's
// failure from the network's.
type countingReader struct {
	r   io.Reader
	h   hash.Hash
	n   int64
	err error
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	if err != nil && err != io.EOF {
		c.err = err
		return n, &contentError{err}
	}
	return n, err
}
