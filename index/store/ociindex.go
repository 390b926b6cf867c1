package store

import (
	"context"
	"fmt"
	"maps"
	"slices"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// EncodeIndex returns the canonical index.json of an OCI image layout
// holding tags, as Dir writes it: compact JSON, one descriptor per tag
// (its name in org.opencontainers.image.ref.name), sorted by tag. Stores
// that keep the directory store's tree (the git store) use it.
func EncodeIndex(tags []TagEntry) ([]byte, error) { return encodeIndex(tags) }

// DecodeIndex reads an index.json strictly, as Dir does, and returns its
// tags sorted: every descriptor must carry a valid tag, no tag twice.
func DecodeIndex(data []byte) ([]TagEntry, error) { return decodeIndex(data) }

// SetTag returns tags with tag pointing at m, in place of what it pointed
// at before, as Tag keeps it in index.json: m's annotations are copied,
// less the ref name (the tag itself).
func SetTag(tags []TagEntry, tag string, m Descriptor) []TagEntry {
	tags = slices.DeleteFunc(tags, func(t TagEntry) bool { return t.Tag == tag })
	m.Annotations = withoutRefName(m.Annotations)
	return append(tags, TagEntry{Tag: tag, Manifest: m})
}

// RemoveTag returns tags without tag, and whether tag was among them.
func RemoveTag(tags []TagEntry, tag string) ([]TagEntry, bool) {
	n := len(tags)
	tags = slices.DeleteFunc(tags, func(t TagEntry) bool { return t.Tag == tag })
	return tags, len(tags) != n
}

// CheckTagTarget checks the manifest Tag is to point at: a valid manifest
// descriptor (CheckManifestDescriptor) of a blob s holds in repo, of the
// size m gives (else a *MismatchError).
func CheckTagTarget(ctx context.Context, s BlobStatter, repo string, m Descriptor) error {
	if err := CheckManifestDescriptor(m); err != nil {
		return err
	}
	size, err := s.StatBlob(ctx, repo, m.Digest)
	if err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	if size != m.Size {
		return &MismatchError{Repo: repo, Digest: m.Digest, Size: m.Size, GotSize: size}
	}
	return nil
}

// BlobStatter is the part of a Store that CheckTagTarget needs.
type BlobStatter interface {
	StatBlob(ctx context.Context, repo, digest string) (int64, error)
}

// withoutRefName returns a copy of ann without the ref-name annotation;
// nil when nothing else is left.
func withoutRefName(ann map[string]string) map[string]string {
	ann = maps.Clone(ann)
	delete(ann, ocispec.AnnotationRefName)
	if len(ann) == 0 {
		return nil
	}
	return ann
}
