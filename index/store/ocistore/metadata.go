package ocistore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
)

// The artifact types of the store's own manifests.
const (
	// MetadataArtifactType is the manifest listing the metadata files.
	MetadataArtifactType = "application/vnd.airvsx.metadata.v1"
	// QuarantineArtifactType is the manifest of one quarantine.
	QuarantineArtifactType = "application/vnd.airvsx.quarantine.v1"

	titleAnnotation = "org.opencontainers.image.title"
	fileMediaType   = "application/octet-stream"
	// nameAnnotation keeps a quarantine's own name when its tag is not it.
	nameAnnotation = "dev.airvsx.quarantine.name"
)

// fileSet is an OCI manifest whose layers are named files: the metadata
// and each quarantine.
type fileSet struct {
	SchemaVersion int               `json:"schemaVersion"`
	MediaType     string            `json:"mediaType"`
	ArtifactType  string            `json:"artifactType,omitempty"`
	Config        fileDesc          `json:"config"`
	Layers        []fileDesc        `json:"layers"`
	Annotations   map[string]string `json:"annotations,omitempty"`
}

type fileDesc struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

func (d fileDesc) title() string { return d.Annotations[titleAnnotation] }

func newFileSet(artifactType string) *fileSet {
	return &fileSet{SchemaVersion: 2, MediaType: artifact.MediaTypeManifest, ArtifactType: artifactType,
		Config: fileDesc{MediaType: artifact.MediaTypeEmpty, Digest: artifact.EmptyConfigDigest, Size: 2}, Layers: []fileDesc{}}
}

// readFileSet reads the file set tag points at in rpath; nil when absent.
func (s *ociStore) readFileSet(ctx context.Context, rpath, tag string) (*fileSet, error) {
	b, _, err := s.getManifest(ctx, rpath, tag)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m fileSet
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("manifest %s of %s: %w", tag, rpath, err)
	}
	for _, l := range m.Layers {
		if !store.ValidDigest(l.Digest) || l.Size < 0 {
			return nil, fmt.Errorf("manifest %s of %s: layer %q: bad digest or size", tag, rpath, l.title())
		}
	}
	return &m, nil
}

// writeFileSet uploads the empty config and pushes m under tag.
func (s *ociStore) writeFileSet(ctx context.Context, rpath, tag string, m *fileSet) error {
	if err := s.putBlob(ctx, rpath, artifact.EmptyConfigDigest, 2, store.BytesContent([]byte(artifact.EmptyConfig))); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	slices.SortFunc(m.Layers, func(a, b fileDesc) int { return cmp.Compare(a.title(), b.title()) })
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return s.putManifest(ctx, rpath, tag, artifact.MediaTypeManifest, b)
}

// ListMetadata lists the metadata files.
func (s *ociStore) ListMetadata(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list metadata: %w", err)
	}
	m, err := s.readFileSet(ctx, s.repoPath(metadataRepo), metadataTag)
	if err != nil {
		return nil, fmt.Errorf("list metadata: %w", err)
	}
	names := []string{}
	if m != nil {
		for _, l := range m.Layers {
			names = append(names, l.title())
		}
	}
	slices.Sort(names)
	return names, nil
}

// ReadMetadata reads a metadata file, verified against its digest.
func (s *ociStore) ReadMetadata(ctx context.Context, name string, maxSize int64) ([]byte, error) {
	rpath := s.repoPath(metadataRepo)
	m, err := s.readFileSet(ctx, rpath, metadataTag)
	if err != nil {
		return nil, fmt.Errorf("read metadata %s: %w", name, err)
	}
	var l *fileDesc
	if m != nil {
		if i := slices.IndexFunc(m.Layers, func(d fileDesc) bool { return d.title() == name }); i >= 0 {
			l = &m.Layers[i]
		}
	}
	if l == nil {
		return nil, fmt.Errorf("read metadata %s: %w", name, fs.ErrNotExist)
	}
	if l.Size > maxSize {
		return nil, fmt.Errorf("read metadata %s: %d bytes, more than %d: %w", name, l.Size, maxSize, store.ErrTooLarge)
	}
	body, stored, err := s.getBlob(ctx, rpath, l.Digest)
	if err != nil {
		return nil, fmt.Errorf("read metadata %s: %w", name, err)
	}
	if stored >= 0 && stored != l.Size {
		body.Close()
		return nil, fmt.Errorf("read metadata %s: %w", name, &store.MismatchError{Repo: metadataRepo, Digest: l.Digest, Size: l.Size, GotSize: stored})
	}
	rc := store.VerifyReader(ctx, body, metadataRepo, l.Digest, l.Size)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("read metadata %s: %w", name, err)
	}
	return b, nil
}

// WriteMetadata uploads the file and moves the metadata tag to a manifest
// that lists it with every other file: one atomic step for readers.
func (s *ociStore) WriteMetadata(ctx context.Context, name string, data []byte) error {
	rpath := s.repoPath(metadataRepo)
	d := index.DigestBytes(data)
	if err := s.putBlob(ctx, rpath, d, int64(len(data)), store.BytesContent(data)); err != nil {
		return fmt.Errorf("write metadata %s: %w", name, err)
	}
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	m, err := s.readFileSet(ctx, rpath, metadataTag)
	if err != nil {
		return fmt.Errorf("write metadata %s: %w", name, err)
	}
	if m == nil {
		m = newFileSet(MetadataArtifactType)
	}
	// A name that is a directory of another ("targets" beside
	// "targets/x") is refused, as a file system would.
	for _, l := range m.Layers {
		if strings.HasPrefix(l.title(), name+"/") || strings.HasPrefix(name, l.title()+"/") {
			return fmt.Errorf("write metadata %s: %s is there: %w", name, l.title(), store.ErrInvalidName)
		}
	}
	m.Layers = slices.DeleteFunc(m.Layers, func(l fileDesc) bool { return l.title() == name })
	m.Layers = append(m.Layers, fileDesc{MediaType: fileMediaType, Digest: d, Size: int64(len(data)),
		Annotations: map[string]string{titleAnnotation: name}})
	if err := s.writeFileSet(ctx, rpath, metadataTag, m); err != nil {
		return fmt.Errorf("write metadata %s: %w", name, err)
	}
	return nil
}

// Quarantine uploads the files, REASON and reason.json, and tags a
// manifest listing them with the quarantine's name (".N" after the
// first), which is also its location: "quarantine/<name>[.N]". A name too
// long for a tag is tagged with its start and a hash, its whole name in an
// annotation.
func (s *ociStore) Quarantine(ctx context.Context, name, reason string, files map[string]io.Reader) (string, error) {
	rpath := s.repoPath(quarantineRepo)
	rec := store.QuarantineRecord{Name: name, Reason: reason, Time: s.now().UTC(), Files: []store.QuarantineFile{}}
	m := newFileSet(QuarantineArtifactType)
	m.Annotations = map[string]string{nameAnnotation: name}
	for _, f := range slices.Sorted(maps.Keys(files)) {
		d, n, err := s.uploadStream(ctx, rpath, files[f])
		if err != nil {
			return "", fmt.Errorf("quarantine %s: %s: %w", name, f, err)
		}
		rec.Files = append(rec.Files, store.QuarantineFile{Name: f, Size: n, SHA256: d})
		m.Layers = append(m.Layers, fileDesc{MediaType: fileMediaType, Digest: d, Size: n, Annotations: map[string]string{titleAnnotation: f}})
	}
	text, record, err := rec.ReasonFiles()
	if err != nil {
		return "", fmt.Errorf("quarantine %s: %w", name, err)
	}
	for f, b := range map[string][]byte{store.ReasonFile: text, store.ReasonJSONFile: record} {
		d := index.DigestBytes(b)
		if err := s.putBlob(ctx, rpath, d, int64(len(b)), store.BytesContent(b)); err != nil {
			return "", fmt.Errorf("quarantine %s: %s: %w", name, f, err)
		}
		m.Layers = append(m.Layers, fileDesc{MediaType: fileMediaType, Digest: d, Size: int64(len(b)), Annotations: map[string]string{titleAnnotation: f}})
	}
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	for i := 1; ; i++ {
		loc := name
		if i > 1 {
			loc += "." + strconv.Itoa(i)
		}
		tag := quarantineTag(loc)
		old, err := s.readFileSet(ctx, rpath, tag)
		if err != nil {
			return "", fmt.Errorf("quarantine %s: %w", name, err)
		}
		if old != nil {
			continue
		}
		if err := s.writeFileSet(ctx, rpath, tag, m); err != nil {
			return "", fmt.Errorf("quarantine %s: %w", name, err)
		}
		return "quarantine/" + loc, nil
	}
}

// quarantineTag is the tag of a quarantine location: loc itself when it is
// a valid tag, else its first 100 bytes, "-" and 16 hex digits of its
// sha256.
func quarantineTag(loc string) string {
	if store.ValidTag(loc) {
		return loc
	}
	return loc[:min(len(loc), 100)] + "-" + index.SHA256Hex([]byte(loc))[:16]
}

// uploadStream uploads content of unknown size and digest, streaming it,
// and returns its digest and size.
func (s *ociStore) uploadStream(ctx context.Context, rpath string, r io.Reader) (string, int64, error) {
	loc, err := s.startUpload(ctx, rpath, "")
	if err != nil {
		return "", 0, err
	}
	d, n, err := s.upload(ctx, rpath, loc, r, -1, "")
	if ru, ok := err.(*retryUpload); ok {
		err = ru.err // a reader is read once; no second attempt
	}
	if err != nil {
		return "", 0, err
	}
	s.seen(rpath, d)
	return d, n, nil
}
