package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/airvsx/airvsx/internal/strictjson"
	digest "github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// ociLayout is the content of every layout's oci-layout file.
const ociLayout = `{"imageLayoutVersion":"1.0.0"}`

// ensureLayout makes repo an OCI image layout if it is not one yet:
// oci-layout, then an empty index.json (whose presence makes the
// repository exist).
func (d *Dir) ensureLayout(ctx context.Context, repo string) error {
	defer d.repos.lock(repo)()
	dir := repoDir(repo)
	if _, err := d.root.Lstat(dir + "/" + ocispec.ImageIndexFile); err == nil {
		return nil
	}
	if err := d.root.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := d.writeBytes(ctx, dir, ocispec.ImageLayoutFile, []byte(ociLayout)); err != nil {
		return err
	}
	return d.writeIndex(ctx, repo, nil)
}

// decodeIndex reads an index.json strictly and returns its tags sorted.
// Every descriptor must carry a valid tag in org.opencontainers.image.ref.name.
func decodeIndex(data []byte) ([]TagEntry, error) {
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
	tags := make([]TagEntry, 0, len(ix.Manifests))
	seen := make(map[string]int)
	for i, m := range ix.Manifests {
		field := fmt.Sprintf("manifests[%d]", i)
		tag := m.Annotations[ocispec.AnnotationRefName]
		if err := CheckTag(tag); err != nil {
			bad(field+".annotations[\"org.opencontainers.image.ref.name\"]", "%v", err)
		} else if j, ok := seen[tag]; ok {
			bad(field, "tag %q repeats manifests[%d]", tag, j)
		}
		seen[tag] = i
		if err := checkManifestDescriptor(m.MediaType, string(m.Digest), m.Size); err != nil {
			bad(field, "%v", err)
		}
		if m.URLs != nil || m.Data != nil || m.Platform != nil {
			bad(field, "urls, data and platform are not allowed")
		}
		tags = append(tags, TagEntry{Tag: tag, Manifest: Descriptor{
			MediaType: m.MediaType, Digest: string(m.Digest), Size: m.Size, ArtifactType: m.ArtifactType, Annotations: withoutRefName(m.Annotations),
		}})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	slices.SortFunc(tags, func(a, b TagEntry) int { return cmp.Compare(a.Tag, b.Tag) })
	return tags, nil
}

// encodeIndex returns the canonical index.json for tags: compact JSON,
// descriptors sorted by tag.
func encodeIndex(tags []TagEntry) ([]byte, error) {
	tags = slices.Clone(tags)
	slices.SortFunc(tags, func(a, b TagEntry) int { return cmp.Compare(a.Tag, b.Tag) })
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

// CheckManifestDescriptor reports whether a tag may point at m: an OCI
// image manifest or index media type, a valid digest, a size that is not
// negative. Store.Tag checks it.
func CheckManifestDescriptor(m Descriptor) error {
	return checkManifestDescriptor(m.MediaType, m.Digest, m.Size)
}

func checkManifestDescriptor(mediaType, dgst string, size int64) error {
	if mediaType != MediaTypeManifest && mediaType != MediaTypeIndex {
		return fmt.Errorf("mediaType %q: want %s or %s", mediaType, MediaTypeManifest, MediaTypeIndex)
	}
	if err := CheckDigest(dgst); err != nil {
		return err
	}
	if size < 0 {
		return fmt.Errorf("size %d is negative", size)
	}
	return nil
}

// readIndex reads repo's index.json; fs.ErrNotExist when the repository
// does not exist.
func (d *Dir) readIndex(repo string) ([]TagEntry, error) {
	name := repoDir(repo) + "/" + ocispec.ImageIndexFile
	data, err := readRegular(d.root, name, MaxIndexBytes)
	if err != nil {
		return nil, err
	}
	tags, err := decodeIndex(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", name, ErrDamagedLayout, err)
	}
	return tags, nil
}

// CheckLayout checks repo's layout files as verify does: oci-layout holds
// {"imageLayoutVersion":"1.0.0"} and index.json decodes strictly. A
// damaged one is an error wrapping ErrDamagedLayout; a repository with
// neither file, one wrapping fs.ErrNotExist.
func (d *Dir) CheckLayout(ctx context.Context, repo string) error {
	if err := CheckRepo(repo); err != nil {
		return fmt.Errorf("check layout: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return d.checkLayout(repo)
}

func (d *Dir) checkLayout(repo string) error {
	dir := repoDir(repo)
	layout, lerr := readRegular(d.root, dir+"/"+ocispec.ImageLayoutFile, 4096)
	_, ierr := d.readIndex(repo)
	switch {
	case errors.Is(lerr, fs.ErrNotExist) && errors.Is(ierr, fs.ErrNotExist):
		return fmt.Errorf("layout of %s: %w", repo, fs.ErrNotExist)
	case lerr != nil:
		return fmt.Errorf("%s/%s: %w: %w", dir, ocispec.ImageLayoutFile, ErrDamagedLayout, lerr)
	case strings.TrimSpace(string(layout)) != ociLayout:
		return fmt.Errorf("%s/%s: %w: want %s", dir, ocispec.ImageLayoutFile, ErrDamagedLayout, ociLayout)
	case errors.Is(ierr, fs.ErrNotExist), errors.Is(ierr, ErrTooLarge):
		return fmt.Errorf("%s/%s: %w: %w", dir, ocispec.ImageIndexFile, ErrDamagedLayout, ierr)
	}
	return ierr
}

// ReplaceLayout replaces a repository's damaged layout files (airvsx copy
// --repair): both files are kept in the quarantine with reason (never
// deleted), then oci-layout and an empty index.json are written, durably.
// The caller tags the repository's manifests again. A layout that is
// intact or absent is an error: ReplaceLayout never touches a good one.
// It returns where the damaged files went
// ("quarantine/damaged-layout-<pub>.<name>[.N]").
func (d *Dir) ReplaceLayout(ctx context.Context, repo, reason string) (string, error) {
	if err := CheckRepo(repo); err != nil {
		return "", fmt.Errorf("replace layout: %w", err)
	}
	if err := d.writable(); err != nil {
		return "", fmt.Errorf("replace layout of %s: %w", repo, err)
	}
	defer d.repos.lock(repo)()
	damage := d.checkLayout(repo)
	if damage == nil {
		return "", fmt.Errorf("replace layout of %s: it is intact; nothing to replace", repo)
	}
	if !errors.Is(damage, ErrDamagedLayout) {
		return "", fmt.Errorf("replace layout of %s: %w", repo, damage)
	}
	dir := repoDir(repo)
	files := map[string]io.Reader{}
	for _, name := range []string{ocispec.ImageLayoutFile, ocispec.ImageIndexFile} {
		f, err := openRegular(d.root, dir+"/"+name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("replace layout of %s: keep %s: %w", repo, name, err)
		}
		defer f.Close()
		files[name] = f // whole: nothing is lost
	}
	qname := "damaged-layout-" + strings.ReplaceAll(repo, "/", ".")
	qname = qname[:min(len(qname), maxQuarantineName)]
	loc, err := d.Quarantine(ctx, qname, fmt.Sprintf("%s (%s): %v", reason, dir, damage), files)
	if err != nil {
		return "", fmt.Errorf("replace layout of %s: keep the damaged files: %w", repo, err)
	}
	if err := d.writeBytes(ctx, dir, ocispec.ImageLayoutFile, []byte(ociLayout)); err != nil {
		return loc, fmt.Errorf("replace layout of %s: %w", repo, err)
	}
	if err := d.writeIndex(ctx, repo, nil); err != nil {
		return loc, fmt.Errorf("replace layout of %s: %w", repo, err)
	}
	return loc, nil
}

// writeIndex replaces repo's index.json atomically. The caller holds
// repo's lock (d.repos).
func (d *Dir) writeIndex(ctx context.Context, repo string, tags []TagEntry) error {
	data, err := encodeIndex(tags)
	if err != nil {
		return err
	}
	return d.writeBytes(ctx, repoDir(repo), ocispec.ImageIndexFile, data)
}

// Tag points tag at a manifest already stored in repo, rewriting index.json
// atomically. The descriptor's annotations are kept in index.json.
func (d *Dir) Tag(ctx context.Context, repo, tag string, m Descriptor) error {
	if err := d.checkTagArgs(ctx, repo, tag); err != nil {
		return fmt.Errorf("tag: %w", err)
	}
	if err := CheckTagTarget(ctx, d, repo, m); err != nil {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, err)
	}
	// The blobs the manifest names are durable before the tag is.
	if err := d.syncDirty(repoDir(repo)); err != nil {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, err)
	}
	// A repository whose blobs are there but whose layout files are not
	// (lost since; the first blob makes them) gets them again.
	if err := d.ensureLayout(ctx, repo); err != nil {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, err)
	}
	defer d.repos.lock(repo)()
	return TagIndex(ctx, repo, tag, m, d.readIndex, d.writeIndex)
}

// Tags lists repo's tags from its index.json (read strictly, at most
// MaxIndexBytes).
func (d *Dir) Tags(ctx context.Context, repo string) ([]TagEntry, error) {
	return TagsFromIndex(ctx, repo, d.readIndex)
}

// Untag removes tag from repo's index.json atomically.
func (d *Dir) Untag(ctx context.Context, repo, tag string) error {
	if err := d.checkTagArgs(ctx, repo, tag); err != nil {
		return fmt.Errorf("untag: %w", err)
	}
	defer d.repos.lock(repo)()
	return UntagIndex(ctx, repo, tag, d.readIndex, d.writeIndex)
}

func (d *Dir) checkTagArgs(ctx context.Context, repo, tag string) error {
	if err := CheckTagArgs(ctx, repo, tag); err != nil {
		return err
	}
	return d.writable()
}

// Repos lists the repositories under extensions/ that have an index.json.
// Entries that are not valid repository names are skipped (temp files
// silently, anything else with a warning).
func (d *Dir) Repos(ctx context.Context) ([]string, error) {
	return ReposFromDirs(ctx, d.log, d.listDir, func(repo string) bool {
		fi, err := d.root.Lstat(repoDir(repo) + "/" + ocispec.ImageIndexFile)
		return err == nil && fi.Mode().IsRegular()
	})
}

// listDir lists dir for ReposFromDirs, leaving out temp files.
func (d *Dir) listDir(dir string) ([]DirEntry, error) {
	entries, err := fs.ReadDir(d.root.FS(), dir)
	if err != nil {
		return nil, err
	}
	var out []DirEntry
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), tempPrefix) {
			out = append(out, DirEntry{Name: e.Name(), IsDir: e.IsDir()})
		}
	}
	return out, nil
}
