package artifact

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"slices"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/internal/strictjson"
	digest "github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// EncodeIndex returns the canonical index.json of an OCI image layout
// holding tags, as the directory store writes it: compact JSON, one descriptor per tag
// (its name in org.opencontainers.image.ref.name), sorted by tag. Stores
// that keep the directory store's tree (the git store) use it.
func EncodeIndex(tags []store.TagEntry) ([]byte, error) { return encodeIndex(tags) }

// DecodeIndex reads an index.json strictly, as the directory store does, and returns its
// tags sorted: every descriptor must carry a valid tag, no tag twice.
func DecodeIndex(data []byte) ([]store.TagEntry, error) { return decodeIndex(data) }

// IndexReader reads a repository's tags from its index.json (a missing
// one is an error wrapping fs.ErrNotExist): with IndexWriter, what a store
// that keeps the directory store's tree (the directory and git stores) builds its
// tag methods from (TagsFromIndex, TagIndex, UntagIndex).
type IndexReader func(repo string) ([]store.TagEntry, error)

// IndexWriter replaces a repository's index.json with one holding tags.
type IndexWriter func(ctx context.Context, repo string, tags []store.TagEntry) error

// TagsFromIndex is Tags for a store that keeps index.json files: the
// arguments checked (CheckRepoArgs), then read.
func TagsFromIndex(ctx context.Context, repo string, read IndexReader) ([]store.TagEntry, error) {
	if err := store.CheckRepoArgs(ctx, repo); err != nil {
		return nil, fmt.Errorf("tags: %w", err)
	}
	tags, err := read(repo)
	if err != nil {
		return nil, fmt.Errorf("tags of %s: %w", repo, err)
	}
	return tags, nil
}

// TagIndex points tag at m in repo's index.json, in place of what it
// pointed at before: m's annotations are copied, less the ref name (the
// tag itself). The caller has checked the arguments (CheckTagArgs,
// CheckTagTarget) and holds the lock that orders the index's writes.
func TagIndex(ctx context.Context, repo, tag string, m store.Descriptor, read IndexReader, write IndexWriter) error {
	tags, err := read(repo)
	if err != nil {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, err)
	}
	tags = slices.DeleteFunc(tags, func(t store.TagEntry) bool { return t.Tag == tag })
	m.Annotations = withoutRefName(m.Annotations)
	if err := write(ctx, repo, append(tags, store.TagEntry{Tag: tag, Manifest: m})); err != nil {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, err)
	}
	return nil
}

// UntagIndex removes tag from repo's index.json; an absent index.json or
// tag is no change. The caller has checked the arguments (CheckTagArgs)
// and holds the lock that orders the index's writes.
func UntagIndex(ctx context.Context, repo, tag string, read IndexReader, write IndexWriter) error {
	tags, err := read(repo)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("untag %s in %s: %w", tag, repo, err)
	}
	n := len(tags)
	tags = slices.DeleteFunc(tags, func(t store.TagEntry) bool { return t.Tag == tag })
	if len(tags) == n {
		return nil
	}
	if err := write(ctx, repo, tags); err != nil {
		return fmt.Errorf("untag %s in %s: %w", tag, repo, err)
	}
	return nil
}

// DirEntry is a name in one of the directories of a store that keeps
// its repositories as extensions/<namespace>/<name> (ReposFromDirs).
type DirEntry struct {
	Name  string
	IsDir bool
}

// ReposFromDirs is Repos for a store that keeps each repository in a
// directory extensions/<namespace>/<name> with an index.json: the
// repositories that list (the entries of a directory, by slash path from
// the store's root) finds and hasIndex says have one, sorted. A name that
// is not a directory, or not a valid repository (CheckRepo), is skipped
// with a warning on log; a missing extensions/ holds none.
func ReposFromDirs(ctx context.Context, log *slog.Logger, list func(dir string) ([]DirEntry, error), hasIndex func(repo string) bool) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("repos: %w", err)
	}
	namespaces, err := list(extensionsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return []string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("repos: %w", err)
	}
	repos := []string{}
	for _, ns := range namespaces {
		if !ns.IsDir {
			log.Warn("not a namespace directory; skipped", "path", extensionsDir+"/"+ns.Name)
			continue
		}
		names, err := list(extensionsDir + "/" + ns.Name)
		if err != nil {
			return nil, fmt.Errorf("repos: %w", err)
		}
		for _, n := range names {
			repo := ns.Name + "/" + n.Name
			if err := store.CheckRepo(repo); err != nil || !n.IsDir {
				log.Warn("not a repository; skipped", "path", repoDir(repo))
				continue
			}
			if hasIndex(repo) {
				repos = append(repos, repo)
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("repos: %w", err)
		}
	}
	slices.Sort(repos)
	return repos, nil
}

// CheckTagTarget checks the manifest Tag is to point at: a valid manifest
// descriptor (CheckManifestDescriptor) of a blob s holds in repo, of the
// size m gives (else a *MismatchError).
func CheckTagTarget(ctx context.Context, s BlobStatter, repo string, m store.Descriptor) error {
	if err := store.CheckManifestDescriptor(m); err != nil {
		return err
	}
	size, err := s.StatBlob(ctx, repo, m.Digest)
	if err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	if size != m.Size {
		return &store.MismatchError{Repo: repo, Digest: m.Digest, Size: m.Size, GotSize: size}
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

// decodeIndex reads an index.json strictly and returns its tags sorted.
// Every descriptor must carry a valid tag in org.opencontainers.image.ref.name.
func decodeIndex(data []byte) ([]store.TagEntry, error) {
	var ix ocispec.Index
	if err := strictjson.Unmarshal(data, &ix); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	var errs fieldErrors
	errs.checkHeader(ix.Versioned, ix.MediaType, MediaTypeIndex)
	bad := errs.add
	if ix.ArtifactType != "" || ix.Subject != nil || ix.Annotations != nil {
		bad("index", "artifactType, subject and annotations are not allowed")
	}
	tags := make([]store.TagEntry, 0, len(ix.Manifests))
	seen := make(map[string]int)
	for i, m := range ix.Manifests {
		field := fmt.Sprintf("manifests[%d]", i)
		tag := m.Annotations[ocispec.AnnotationRefName]
		if err := store.CheckTag(tag); err != nil {
			bad(field+".annotations[\"org.opencontainers.image.ref.name\"]", "%v", err)
		} else if j, ok := seen[tag]; ok {
			bad(field, "tag %q repeats manifests[%d]", tag, j)
		}
		seen[tag] = i
		if err := store.CheckManifestDescriptor(store.Descriptor{MediaType: m.MediaType, Digest: string(m.Digest), Size: m.Size}); err != nil {
			bad(field, "%v", err)
		}
		if m.URLs != nil || m.Data != nil || m.Platform != nil {
			bad(field, "urls, data and platform are not allowed")
		}
		tags = append(tags, store.TagEntry{Tag: tag, Manifest: store.Descriptor{
			MediaType: m.MediaType, Digest: string(m.Digest), Size: m.Size, ArtifactType: m.ArtifactType, Annotations: withoutRefName(m.Annotations),
		}})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	slices.SortFunc(tags, func(a, b store.TagEntry) int { return cmp.Compare(a.Tag, b.Tag) })
	return tags, nil
}

// encodeIndex returns the canonical index.json for tags: compact JSON,
// descriptors sorted by tag.
func encodeIndex(tags []store.TagEntry) ([]byte, error) {
	tags = slices.Clone(tags)
	slices.SortFunc(tags, func(a, b store.TagEntry) int { return cmp.Compare(a.Tag, b.Tag) })
	ix := ocispec.Index{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: MediaTypeIndex,
		Manifests: make([]ocispec.Descriptor, 0, len(tags)),
	}
	for _, t := range tags {
		ann := maps.Clone(t.Manifest.Annotations)
		if ann == nil {
			ann = make(map[string]string)
		}
		ann[ocispec.AnnotationRefName] = t.Tag
		ix.Manifests = append(ix.Manifests, ocispec.Descriptor{
			MediaType:    t.Manifest.MediaType,
			Digest:       digest.Digest(t.Manifest.Digest),
			Size:         t.Manifest.Size,
			Annotations:  ann,
			ArtifactType: t.Manifest.ArtifactType,
		})
	}
	return marshal(ix)
}
