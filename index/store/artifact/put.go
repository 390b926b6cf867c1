package artifact

import (
	"context"
	"errors"
	"fmt"

	"github.com/airvsx/airvsx/index/store"
)

// PutArtifact stores an entry manifest in s and tags it. It parses the
// manifest strictly, checks that every layer blob is already in the
// entry's repository with its size (reporting every missing one), puts the
// empty config blob and the manifest blob, and tags the manifest
// Tag(platform, version) last, so a tag never points at an incomplete
// entry. Put the layer blobs first.
func PutArtifact(ctx context.Context, s store.Store, manifest []byte) (*Manifest, error) {
	m, err := ParseManifest(manifest)
	if err != nil {
		return nil, err
	}
	repo, tag := m.Repo(), m.Tag()
	var missing []error
	for _, l := range m.Layers {
		size, err := s.StatBlob(ctx, repo, l.Digest)
		switch {
		case err != nil:
			missing = append(missing, fmt.Errorf("layer %s (%s): %w", l.Role, l.Title, err))
		case size != l.Size:
			missing = append(missing, fmt.Errorf("layer %s (%s): %w", l.Role, l.Title,
				&store.MismatchError{Repo: repo, Digest: l.Digest, Size: l.Size, GotSize: size}))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("put %s:%s: %w", repo, tag, errors.Join(missing...))
	}
	if err := s.PutBlob(ctx, repo, EmptyConfigDigest, int64(len(EmptyConfig)), store.BytesContent([]byte(EmptyConfig))); err != nil {
		return nil, fmt.Errorf("put %s:%s: config: %w", repo, tag, err)
	}
	if err := s.PutBlob(ctx, repo, m.Digest, m.Size, store.BytesContent(manifest)); err != nil {
		return nil, fmt.Errorf("put %s:%s: manifest: %w", repo, tag, err)
	}
	if err := s.Tag(ctx, repo, tag, m.Descriptor()); err != nil {
		return nil, fmt.Errorf("put %s:%s: %w", repo, tag, err)
	}
	return m, nil
}
