package ocistore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"

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
func (s *ociStore) Tag(ctx context.Context, repo, tag string, m store.Descriptor) error {
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

// putManifest pushes b (of mediaType) to ref, a tag or its digest
// (remote.Put: one PUT).
func (s *ociStore) putManifest(ctx context.Context, rpath, ref, mediaType string, b []byte) error {
	opts, err := s.remote(ctx, rpath)
	if err != nil {
		return err
	}
	r, err := s.reference(rpath, ref)
	if err != nil {
		return err
	}
	return s.statusOf(remote.Put(r, rawManifest{b, types.MediaType(mediaType)}, opts...))
}

// rawManifest is a manifest's bytes and media type, what remote.Put
// pushes.
type rawManifest struct {
	b  []byte
	mt types.MediaType
}

func (m rawManifest) RawManifest() ([]byte, error)        { return m.b, nil }
func (m rawManifest) MediaType() (types.MediaType, error) { return m.mt, nil }

// reference is the go-containerregistry name of ref (a tag or a digest)
// in rpath; an error wrapping store.ErrInvalidName when ref is neither
// (a name from a registry's tag list is checked before it goes into a
// URL).
func (s *ociStore) reference(rpath, ref string) (name.Reference, error) {
	if store.ValidDigest(ref) {
		return s.repo(rpath).Digest(ref), nil
	}
	if !store.ValidTag(ref) {
		return nil, fmt.Errorf("manifest %s of %s: %w", ref, rpath, store.ErrInvalidName)
	}
	return s.repo(rpath).Tag(ref), nil
}

// getManifest reads the manifest ref (a tag or digest) points at: its
// bytes and media type; an error wrapping fs.ErrNotExist when absent.
//
// By hand rather than go-containerregistry's remote.Get: that reads up
// to 100 MiB of a manifest (the store's cap is maxManifest), and its
// client refuses a redirect to a private address even where
// Options.AlsoDial names it; send follows the redirects the store allows
// (Store.redirectable) and no other.
func (s *ociStore) getManifest(ctx context.Context, rpath, ref string) ([]byte, string, error) {
	if _, err := s.reference(rpath, ref); err != nil {
		return nil, "", err
	}
	u := s.endpoint("/v2/"+rpath+"/manifests/"+ref, nil)
	resp, err := s.send(ctx, rpath, http.MethodGet, u, http.Header{"Accept": {manifestAccept}}, nil, 0, http.StatusOK, http.StatusNotFound)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
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
func (s *ociStore) Tags(ctx context.Context, repo string) ([]store.TagEntry, error) {
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
func (s *ociStore) describe(ctx context.Context, rpath, tag string) (store.Descriptor, error) {
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

// listTags lists the tags of a registry repository (remote.List, page
// by page); an error wrapping fs.ErrNotExist when the registry knows no
// such name.
func (s *ociStore) listTags(ctx context.Context, rpath string) ([]string, error) {
	opts, err := s.remote(ctx, rpath)
	if err != nil {
		return nil, err
	}
	tags, err := remote.List(s.repo(rpath), opts...)
	if err != nil {
		if err = s.statusOf(err); hasStatus(err, http.StatusNotFound) {
			return nil, fs.ErrNotExist
		}
		return nil, err
	}
	return tags, nil
}

// Untag deletes a tag (DELETE of the manifest by tag, which removes the
// tag alone; the registry must allow deletes).
func (s *ociStore) Untag(ctx context.Context, repo, tag string) error {
	rpath := s.repoPath(repo)
	opts, err := s.remote(ctx, rpath)
	if err == nil {
		err = s.statusOf(remote.Delete(s.repo(rpath).Tag(tag), opts...))
	}
	if err != nil && !hasStatus(err, http.StatusNotFound) {
		return fmt.Errorf("untag %s in %s: %w", tag, repo, err)
	}
	return nil
}

// Repos lists the extension repositories under the prefix, from the
// registry's catalog API (remote.Catalog, page by page).
func (s *ociStore) Repos(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("repositories: %w", err)
	}
	opts, err := s.remote(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("repositories: %w", err)
	}
	all, err := remote.Catalog(ctx, s.reg, opts...)
	if err != nil {
		return nil, fmt.Errorf("repositories: %w", s.statusOf(err))
	}
	var out []string
	prefix := s.place.Prefix + "/"
	for _, r := range all {
		rest, ok := strings.CutPrefix(r, prefix)
		if ok && store.CheckRepo(rest) == nil {
			out = append(out, rest)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
