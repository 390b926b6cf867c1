package ocistore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
)

// maxManifest caps a manifest the store reads (distribution's own limit
// is 4 MiB).
const maxManifest = 4 << 20

// sigTag matches cosign's signature tags, which Tags leaves out: they are
// the store's own, not entries.
var sigTag = regexp.MustCompile(`^sha256-[0-9a-f]{64}\.sig$`)

// Tag points tag at a manifest: the manifest blob is read back (verified)
// and pushed through the manifest API under tag. With Options.Signer, an
// entry manifest is then signed (SignatureTag).
func (s *Store) Tag(ctx context.Context, repo, tag string, m store.Descriptor) error {
	if err := store.CheckTagArgs(ctx, repo, tag); err != nil {
		return fmt.Errorf("tag: %w", err)
	}
	if err := store.CheckManifestDescriptor(m); err != nil {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, err)
	}
	if err := s.writable(); err != nil {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, err)
	}
	if m.Size > maxManifest {
		return fmt.Errorf("tag %s in %s: manifest of %d bytes: %w", tag, repo, m.Size, store.ErrTooLarge)
	}
	size, err := s.StatBlob(ctx, repo, m.Digest)
	if err != nil {
		return fmt.Errorf("tag %s in %s: manifest: %w", tag, repo, err)
	}
	if size != m.Size {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, &store.MismatchError{Repo: repo, Digest: m.Digest, Size: m.Size, GotSize: size})
	}
	rc, err := s.OpenBlob(ctx, repo, m.Digest, m.Size)
	if err != nil {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, err)
	}
	b, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, err)
	}
	rpath := s.repoPath(repo)
	if err := s.putManifest(ctx, rpath, tag, m.MediaType, b); err != nil {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, err)
	}
	if s.opts.Signer != nil && m.ArtifactType == artifact.ArtifactType {
		if err := s.sign(ctx, rpath, m.Digest); err != nil {
			return fmt.Errorf("tag %s in %s: sign: %w", tag, repo, err)
		}
	}
	return nil
}

// putManifest pushes b (of mediaType) to ref, a tag or its digest.
func (s *Store) putManifest(ctx context.Context, rpath, ref, mediaType string, b []byte) error {
	resp, err := s.do(ctx, request{method: http.MethodPut, rpath: rpath, url: s.endpoint("/v2/"+rpath+"/manifests/"+ref, nil),
		header: http.Header{"Content-Type": {mediaType}},
		body:   func() (io.Reader, int64, error) { return strings.NewReader(string(b)), int64(len(b)), nil },
		ok:     []int{201}})
	if err != nil {
		return err
	}
	drain(resp)
	return nil
}

// getManifest reads the manifest ref (a tag or digest) points at: its
// bytes and media type; an error wrapping fs.ErrNotExist when absent.
func (s *Store) getManifest(ctx context.Context, rpath, ref string) ([]byte, string, error) {
	u := s.endpoint("/v2/"+rpath+"/manifests/"+ref, nil)
	resp, err := s.do(ctx, request{method: http.MethodGet, rpath: rpath, url: u,
		header: http.Header{"Accept": {manifestAccept}}, ok: []int{200, 404}})
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode == 404 {
		return nil, "", fmt.Errorf("manifest %s of %s: %w", ref, rpath, fs.ErrNotExist)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxManifest+1))
	if err != nil {
		return nil, "", fmt.Errorf("GET %s: %w", u.Redacted(), err)
	}
	if len(b) > maxManifest {
		return nil, "", fmt.Errorf("GET %s: manifest over %d bytes: %w", u.Redacted(), maxManifest, store.ErrTooLarge)
	}
	return b, resp.Header.Get("Content-Type"), nil
}

// Tags lists a repository's tags (cosign's signature tags left out), each
// with its manifest's media type, digest, size and artifact type, read
// from the manifest itself.
func (s *Store) Tags(ctx context.Context, repo string) ([]store.TagEntry, error) {
	if err := store.CheckRepo(repo); err != nil {
		return nil, fmt.Errorf("tags: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tags of %s: %w", repo, err)
	}
	rpath := s.repoPath(repo)
	names, err := s.listTags(ctx, rpath)
	if errors.Is(err, fs.ErrNotExist) {
		// A repository with blobs and no tag yet exists all the same.
		repos, rerr := s.Repos(ctx)
		if rerr != nil {
			return nil, fmt.Errorf("tags of %s: %w", repo, rerr)
		}
		if slices.Contains(repos, repo) {
			return []store.TagEntry{}, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("tags of %s: %w", repo, err)
	}
	names = slices.DeleteFunc(names, sigTag.MatchString)
	slices.Sort(names)
	out := make([]store.TagEntry, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, tag := range names {
		wg.Go(func() {
			d, err := s.describe(ctx, rpath, tag)
			out[i], errs[i] = store.TagEntry{Tag: tag, Manifest: d}, err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("tags of %s: %w", repo, err)
	}
	return out, nil
}

// describe reads the manifest tag points at and describes it.
func (s *Store) describe(ctx context.Context, rpath, tag string) (store.Descriptor, error) {
	b, ct, err := s.getManifest(ctx, rpath, tag)
	if err != nil {
		return store.Descriptor{}, fmt.Errorf("tag %s: %w", tag, err)
	}
	var m struct {
		MediaType    string `json:"mediaType"`
		ArtifactType string `json:"artifactType"`
		Config       struct {
			MediaType string `json:"mediaType"`
		} `json:"config"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return store.Descriptor{}, fmt.Errorf("tag %s: manifest: %w", tag, err)
	}
	mt := m.MediaType
	if mt == "" {
		mt = ct
	}
	return store.Descriptor{MediaType: mt, Digest: index.DigestBytes(b), Size: int64(len(b)), ArtifactType: m.ArtifactType}, nil
}

// listTags lists the tags of a registry repository, page by page; an
// error wrapping fs.ErrNotExist when the registry knows no such name.
func (s *Store) listTags(ctx context.Context, rpath string) ([]string, error) {
	var all []string
	req := request{method: http.MethodGet, rpath: rpath, url: s.endpoint("/v2/"+rpath+"/tags/list", url.Values{"n": {"1000"}}), ok: []int{200, 404}}
	err := getPages(ctx, s, req, 16<<20, func(page tagList) {
		all = append(all, page.Tags...)
	})
	if err != nil {
		return nil, err
	}
	return all, nil
}

// tagList is a page of the tags API (/v2/<name>/tags/list).
type tagList struct {
	Tags []string `json:"tags"`
}

// repoList is a page of the catalog API (/v2/_catalog).
type repoList struct {
	Repositories []string `json:"repositories"`
}

// getPages sends req, a GET of a paginated list, and GETs each next page
// the answers link to, decoding at most limit bytes of each page's JSON
// into a P for add. A 404 answer, where req.ok allows one, ends it with
// fs.ErrNotExist.
func getPages[P any](ctx context.Context, s *Store, req request, limit int64, add func(P)) error {
	for req.url != nil {
		resp, err := s.do(ctx, req)
		if err != nil {
			return err
		}
		if resp.StatusCode == 404 {
			drain(resp)
			return fs.ErrNotExist
		}
		var page P
		err = json.NewDecoder(io.LimitReader(resp.Body, limit)).Decode(&page)
		next, lerr := s.nextPage(resp)
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("GET %s: %w", req.url.Redacted(), err)
		}
		if lerr != nil {
			return lerr
		}
		add(page)
		req.url = next
	}
	return nil
}

// nextPage returns the URL of a paginated response's next page (the Link
// header, rel="next"), or nil.
func (s *Store) nextPage(resp *http.Response) (*url.URL, error) {
	link := resp.Header.Get("Link")
	if link == "" {
		return nil, nil
	}
	start, end := strings.IndexByte(link, '<'), strings.IndexByte(link, '>')
	if start < 0 || end < start || !strings.Contains(link[end:], `rel="next"`) {
		return nil, nil
	}
	u, err := s.base.Parse(link[start+1 : end])
	if err != nil || u.Host != s.base.Host {
		return nil, fmt.Errorf("%s: Link header %q: not a page of this registry", resp.Request.URL.Redacted(), link)
	}
	u.Scheme = s.base.Scheme
	return u, nil
}

// Untag deletes a tag (DELETE of the manifest by tag, which removes the
// tag alone; the registry must allow deletes).
func (s *Store) Untag(ctx context.Context, repo, tag string) error {
	if err := store.CheckTagArgs(ctx, repo, tag); err != nil {
		return fmt.Errorf("untag: %w", err)
	}
	if err := s.writable(); err != nil {
		return fmt.Errorf("untag %s in %s: %w", tag, repo, err)
	}
	rpath := s.repoPath(repo)
	resp, err := s.do(ctx, request{method: http.MethodDelete, rpath: rpath, url: s.endpoint("/v2/"+rpath+"/manifests/"+tag, nil), ok: []int{200, 202, 204, 404}})
	if err != nil {
		return fmt.Errorf("untag %s in %s: %w", tag, repo, err)
	}
	drain(resp)
	return nil
}

// Repos lists the extension repositories under the prefix, from the
// registry's catalog API.
func (s *Store) Repos(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("repositories: %w", err)
	}
	var out []string
	prefix := s.place.Prefix + "/"
	req := request{method: http.MethodGet, rpath: "", url: s.endpoint("/v2/_catalog", url.Values{"n": {"1000"}}), ok: []int{200}}
	err := getPages(ctx, s, req, 64<<20, func(page repoList) {
		for _, r := range page.Repositories {
			rest, ok := strings.CutPrefix(r, prefix)
			if ok && store.CheckRepo(rest) == nil {
				out = append(out, rest)
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("repositories: %w", err)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
