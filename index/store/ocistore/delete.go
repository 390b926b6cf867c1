package ocistore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"slices"
	"strings"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
)

// What gc needs of an OCI registry (store.BlobDeleter), through the
// distribution API's DELETE of manifests and blobs. The registry unlinks
// them from the repository; its own garbage collection (registry
// garbage-collect) frees the bytes on its disk.

// ErrDeleteDisabled is wrapped when the registry refuses deletes
// (405 Method Not Allowed, UNSUPPORTED): a CNCF distribution registry
// does unless its storage allows them.
var ErrDeleteDisabled = errors.New("the registry does not allow deletes")

// deleteDisabled words a 405 to a DELETE for the operator.
func (s *ociStore) deleteDisabled(err error) error {
	if !hasStatus(err, http.StatusMethodNotAllowed) {
		return err
	}
	return fmt.Errorf("%w: %w (registry %s: enable deletes in its storage, for the CNCF distribution registry REGISTRY_STORAGE_DELETE_ENABLED=true or storage.delete.enabled: true in its configuration, restart it and run gc again; then run its own garbage-collect to free the disk)", ErrDeleteDisabled, err, s.base.Host)
}

// Blobs lists the blobs of repo the registry's API can find. It lists no
// blobs, so these are the manifests repo's tags point at (cosign's
// signature tags left out) and the config and layers each refers to:
// gc lists them before it removes a tag, and deletes a manifest last.
func (s *ociStore) Blobs(ctx context.Context, repo string) ([]store.BlobInfo, error) {
	if err := store.CheckRepoArgs(ctx, repo); err != nil {
		return nil, fmt.Errorf("blobs: %w", err)
	}
	rpath := s.repoPath(repo)
	tags, err := s.listTags(ctx, rpath)
	if err != nil {
		return nil, fmt.Errorf("blobs of %s: %w", repo, err)
	}
	sizes := map[string]int64{}
	for _, tag := range tags {
		if sigTag.MatchString(tag) {
			continue
		}
		b, _, err := s.getManifest(ctx, rpath, tag)
		if errors.Is(err, fs.ErrNotExist) {
			continue // untagged meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("blobs of %s: %w", repo, err)
		}
		var m struct {
			Config struct {
				Digest string `json:"digest"`
				Size   int64  `json:"size"`
			} `json:"config"`
			Layers []struct {
				Digest string `json:"digest"`
				Size   int64  `json:"size"`
			} `json:"layers"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("blobs of %s: tag %s: manifest: %w", repo, tag, err)
		}
		sizes[index.DigestBytes(b)] = int64(len(b))
		if m.Config.Digest != "" {
			sizes[m.Config.Digest] = m.Config.Size
		}
		for _, l := range m.Layers {
			sizes[l.Digest] = l.Size
		}
	}
	out := make([]store.BlobInfo, 0, len(sizes))
	for d, n := range sizes {
		if store.CheckDigest(d) == nil {
			out = append(out, store.BlobInfo{Digest: d, Size: n})
		}
	}
	slices.SortFunc(out, func(a, b store.BlobInfo) int { return strings.Compare(a.Digest, b.Digest) })
	return out, nil
}

// DeleteBlob deletes repo's blob digest: the blob, then, when it is a
// manifest, its cosign signature's tag and the manifest itself, which
// removes the tags pointing at it. A deletion killed half-way leaves
// the tags, which lead gc to it again. It returns the blob's size, 0
// when the registry had neither. Each DELETE follows a HEAD that found
// what it deletes (some registries answer a DELETE of what they lack
// with 500).
func (s *ociStore) DeleteBlob(ctx context.Context, repo, digest string) (int64, error) {
	if err := store.CheckBlobArgs(ctx, repo, digest); err != nil {
		return 0, fmt.Errorf("delete blob: %w", err)
	}
	if err := s.writable(); err != nil {
		return 0, fmt.Errorf("delete blob %s in %s: %w", digest, repo, err)
	}
	rpath := s.repoPath(repo)
	var size int64
	for _, ref := range []struct{ kind, ref string }{{"blobs", digest}, {"manifests", SignatureTag(digest)}, {"manifests", digest}} {
		n, err := s.statBlob(ctx, rpath, ref.ref, ref.kind)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("delete blob %s in %s: %w", digest, repo, err)
		}
		if _, err := s.deleteRef(ctx, rpath, ref.kind, ref.ref); err != nil {
			return 0, fmt.Errorf("delete blob %s in %s: %w", digest, repo, err)
		}
		if ref.ref == digest && size == 0 {
			size = n
		}
		if ref.kind == "manifests" && ref.ref == digest {
			if err := s.untagLeft(ctx, repo, digest); err != nil {
				return 0, fmt.Errorf("delete blob %s in %s: %w", digest, repo, err)
			}
		}
	}
	return size, nil
}

// untagLeft removes the tags of repo that still point at the manifest
// digest once it is deleted: a registry that keeps them (go-containerregistry's
// in-process one does; the CNCF registry does not) would leave them
// dangling.
func (s *ociStore) untagLeft(ctx context.Context, repo, digest string) error {
	rpath := s.repoPath(repo)
	tags, err := s.listTags(ctx, rpath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, tag := range tags {
		if sigTag.MatchString(tag) {
			continue
		}
		d, err := s.describe(ctx, rpath, tag)
		if errors.Is(err, fs.ErrNotExist) {
			continue // gone meanwhile
		}
		if err != nil {
			return err
		}
		if d.Digest == digest {
			if err := s.Untag(ctx, repo, tag); err != nil {
				return err
			}
		}
	}
	return nil
}

// DeleteRepo deletes what an emptied repository still holds: the
// untagged marker manifest (markRepo) and its config. The registry's
// catalog may go on listing the repository's name.
func (s *ociStore) DeleteRepo(ctx context.Context, repo string) error {
	if err := store.CheckRepoArgs(ctx, repo); err != nil {
		return fmt.Errorf("delete repository: %w", err)
	}
	if err := s.writable(); err != nil {
		return fmt.Errorf("delete repository %s: %w", repo, err)
	}
	tags, err := s.Tags(ctx, repo)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete repository %s: %w", repo, err)
	}
	if len(tags) > 0 {
		return fmt.Errorf("delete repository %s: it holds %d tags; only an empty one is removed", repo, len(tags))
	}
	rpath := s.repoPath(repo)
	for _, ref := range []struct{ kind, ref string }{{"manifests", index.DigestBytes(repoMarker)}, {"blobs", artifact.EmptyConfigDigest}} {
		if _, err := s.statBlob(ctx, rpath, ref.ref, ref.kind); errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return fmt.Errorf("delete repository %s: %w", repo, err)
		}
		if _, err := s.deleteRef(ctx, rpath, ref.kind, ref.ref); err != nil {
			return fmt.Errorf("delete repository %s: %w", repo, err)
		}
	}
	s.mu.Lock()
	delete(s.marked, rpath)
	s.mu.Unlock()
	return nil
}

// ExcludeReaders does not wait: a registry has no lock readers could
// hold. A reader of the previous catalog that reads a blob gc deleted
// fails on it (it never accepts other bytes).
func (s *ociStore) ExcludeReaders(ctx context.Context, _ func()) (func() error, error) {
	if err := s.writable(); err != nil {
		return nil, fmt.Errorf("exclude readers: %w", err)
	}
	return func() error { return nil }, ctx.Err()
}

// deleteRef sends DELETE /v2/<rpath>/<kind>/<ref> and reports whether
// the registry had it (202) or not (404); a 405 wraps ErrDeleteDisabled.
func (s *ociStore) deleteRef(ctx context.Context, rpath, kind, ref string) (bool, error) {
	resp, err := s.send(ctx, rpath, http.MethodDelete, s.endpoint("/v2/"+rpath+"/"+kind+"/"+ref, nil), nil, nil, 0,
		http.StatusAccepted, http.StatusOK, http.StatusNotFound)
	if err != nil {
		return false, s.deleteDisabled(err)
	}
	resp.Body.Close()
	return resp.StatusCode != http.StatusNotFound, nil
}

// writable refuses a read-only store's deletes.
func (s *ociStore) writable() error {
	if s.opts.ReadOnly {
		return store.ErrReadOnly
	}
	return nil
}
