package artifact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/internal/strictjson"
	digest "github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// BuildManifest returns the canonical manifest bytes of an entry: the same
// info and layers, in any order, always give the same bytes. It fails if
// ParseManifest would reject the result.
func BuildManifest(info ArtifactInfo, layers []Layer) ([]byte, error) {
	ann := info.annotations()
	_, errs := infoFromAnnotations(ann)
	ls := slices.Clone(layers)
	descs := make([]ocispec.Descriptor, len(ls))
	for i := range ls {
		if ls[i].MediaType == "" {
			ls[i].MediaType = MediaTypeFor(ls[i].Role, ls[i].Title)
		}
		descs[i] = ls[i].descriptor()
		_, lerrs := layerFromDescriptor(i, descs[i])
		errs = append(errs, lerrs...)
	}
	errs = append(errs, checkLayerSet(info, ls)...)
	if len(errs) > 0 {
		return nil, fmt.Errorf("build manifest for %s@%s@%s: %w", info.ID, info.Version, info.Platform, errors.Join(errs...))
	}
	return encodeSorted(descs, ann)
}

// buildChecked is BuildManifest for info and layers ParseManifest has
// just checked (the same checks BuildManifest makes), which it does not
// make again.
func buildChecked(info ArtifactInfo, layers []Layer) ([]byte, error) {
	descs := make([]ocispec.Descriptor, len(layers))
	for i, l := range layers {
		if l.MediaType == "" {
			l.MediaType = MediaTypeFor(l.Role, l.Title)
		}
		descs[i] = l.descriptor()
	}
	return encodeSorted(descs, info.annotations())
}

// encodeSorted encodes a manifest of the layers descs, in the order of
// their roles, and the annotations ann.
func encodeSorted(descs []ocispec.Descriptor, ann map[string]string) ([]byte, error) {
	slices.SortStableFunc(descs, func(a, b ocispec.Descriptor) int {
		return slices.Index(Roles, Role(a.Annotations[AnnotationRole])) - slices.Index(Roles, Role(b.Annotations[AnnotationRole]))
	})
	return encodeManifest(descs, ann)
}

func encodeManifest(layers []ocispec.Descriptor, ann map[string]string) ([]byte, error) {
	m := ocispec.Manifest{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    MediaTypeManifest,
		ArtifactType: ArtifactType,
		Config:       emptyConfig(),
		Layers:       layers,
		Annotations:  ann,
	}
	return marshal(m)
}

// marshal returns compact JSON without HTML escaping or a final newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func emptyConfig() ocispec.Descriptor {
	return ocispec.Descriptor{MediaType: MediaTypeEmpty, Digest: EmptyConfigDigest, Size: 2, Data: []byte(EmptyConfig)}
}

func (info ArtifactInfo) annotations() map[string]string {
	ann := map[string]string{
		AnnotationCreated:    info.Created.UTC().Format(time.RFC3339Nano),
		AnnotationID:         info.ID.String(),
		AnnotationVersion:    info.Version,
		AnnotationPlatform:   string(info.Platform),
		AnnotationPreRelease: fmt.Sprint(info.PreRelease),
	}
	if info.UpstreamSHA256 != "" {
		ann[AnnotationUpstreamSHA256] = info.UpstreamSHA256
	}
	return ann
}

// infoFromAnnotations reads and checks the manifest annotations. It is the
// one place the rules on them live: BuildManifest renders its input to
// annotations and checks them here too.
func infoFromAnnotations(ann map[string]string) (ArtifactInfo, []error) {
	var info ArtifactInfo
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("annotations[%q]: %s", key, fmt.Sprintf(format, args...)))
	}
	for _, key := range slices.Sorted(maps.Keys(ann)) {
		switch key {
		case AnnotationCreated, AnnotationID, AnnotationVersion, AnnotationPlatform, AnnotationPreRelease, AnnotationUpstreamSHA256:
		default:
			bad(key, "unknown annotation")
		}
	}
	get := func(key string) (string, bool) {
		v, ok := ann[key]
		if !ok {
			bad(key, "missing")
		}
		return v, ok
	}
	if v, ok := get(AnnotationCreated); ok {
		t, err := time.Parse(time.RFC3339Nano, v)
		switch {
		case err != nil:
			bad(AnnotationCreated, "%q is not an RFC 3339 time", v)
		case t.IsZero():
			bad(AnnotationCreated, "zero time (want the upstream publish time)")
		case t.UTC().Format(time.RFC3339Nano) != v:
			bad(AnnotationCreated, "%q is not in canonical UTC form %q", v, t.UTC().Format(time.RFC3339Nano))
		default:
			info.Created = t.UTC()
		}
	}
	if v, ok := get(AnnotationID); ok {
		ns, name, _ := strings.Cut(v, ".")
		info.ID = index.ID{Namespace: ns, Name: name}
		if err := info.ID.Validate(); err != nil {
			bad(AnnotationID, "%v", err)
		} else if err := store.CheckRepo(Repo(info.ID)); err != nil {
			bad(AnnotationID, "%v", err)
		}
	}
	version, vok := get(AnnotationVersion)
	platform, pok := get(AnnotationPlatform)
	info.Version, info.Platform = version, index.Platform(platform)
	if vok {
		if _, err := index.ParseVersion(version); err != nil {
			bad(AnnotationVersion, "%v", err)
			vok = false
		}
	}
	if pok && !info.Platform.Valid() {
		bad(AnnotationPlatform, "unknown target platform %q", platform)
		pok = false
	}
	if vok && pok {
		if _, err := Tag(info.Platform, version); err != nil {
			bad(AnnotationVersion, "%v", err)
		}
	}
	if v, ok := get(AnnotationPreRelease); ok {
		switch v {
		case "true":
			info.PreRelease = true
		case "false":
		default:
			bad(AnnotationPreRelease, "%q: want true or false", v)
		}
	}
	if v, ok := ann[AnnotationUpstreamSHA256]; ok {
		if !store.ValidDigest(index.SHA256Digest(v)) {
			bad(AnnotationUpstreamSHA256, "%q: want 64 lowercase hex (empty means: omit the annotation)", v)
		} else {
			info.UpstreamSHA256 = v
		}
	}
	return info, errs
}

func (l Layer) descriptor() ocispec.Descriptor {
	return ocispec.Descriptor{
		MediaType:   l.MediaType,
		Digest:      digest.Digest(l.Digest),
		Size:        l.Size,
		Annotations: map[string]string{AnnotationTitle: l.Title, AnnotationRole: string(l.Role)},
	}
}

// layerFromDescriptor reads and checks layer i. It is the one place the
// rules on one layer live.
func layerFromDescriptor(i int, d ocispec.Descriptor) (Layer, []error) {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("layers[%d].%s: %s", i, field, fmt.Sprintf(format, args...)))
	}
	l := Layer{
		Role:      Role(d.Annotations[AnnotationRole]),
		Title:     d.Annotations[AnnotationTitle],
		MediaType: d.MediaType,
		Digest:    string(d.Digest),
		Size:      d.Size,
	}
	for _, key := range slices.Sorted(maps.Keys(d.Annotations)) {
		if key != AnnotationRole && key != AnnotationTitle {
			bad(fmt.Sprintf("annotations[%q]", key), "unknown annotation")
		}
	}
	roleOK := l.Role.Valid()
	if !roleOK {
		bad(fmt.Sprintf("annotations[%q]", AnnotationRole), "%q is not a known role %v", l.Role, Roles)
	}
	titleOK := true
	if err := checkTitle(l.Title); err != nil {
		bad(fmt.Sprintf("annotations[%q]", AnnotationTitle), "%v", err)
		titleOK = false
	}
	if roleOK && titleOK {
		if want := MediaTypeFor(l.Role, l.Title); l.MediaType != want {
			bad("mediaType", "%q; want %q for role %s and title %q", l.MediaType, want, l.Role, l.Title)
		}
	}
	if !store.ValidDigest(l.Digest) {
		bad("digest", "%q: want sha256:<64 lowercase hex>", l.Digest)
	}
	if l.Size < 0 {
		bad("size", "%d is negative", l.Size)
	}
	if len(d.URLs) > 0 {
		bad("urls", "not allowed")
	}
	if d.Data != nil {
		bad("data", "not allowed")
	}
	if d.Platform != nil {
		bad("platform", "not allowed")
	}
	if d.ArtifactType != "" {
		bad("artifactType", "not allowed")
	}
	return l, errs
}

// maxElementLen is the longest file name (most filesystems' limit).
const maxElementLen = 255

// checkTitle checks a layer's file name: a tool that pulls the artifact
// (oras pull) writes files by these names.
func checkTitle(t string) error {
	switch {
	case t == "":
		return errors.New("missing")
	case len(t) > maxElementLen:
		return fmt.Errorf("%q is longer than %d bytes", t, maxElementLen)
	case !utf8.ValidString(t):
		return fmt.Errorf("%q is not valid UTF-8", t)
	case t == "." || t == ".." || strings.ContainsAny(t, `/\:`):
		return fmt.Errorf("%q is not a plain file name", t)
	case strings.IndexFunc(t, func(r rune) bool { return unicode.IsControl(r) }) >= 0:
		return fmt.Errorf("%q holds a control character", t)
	case index.WindowsReserved(t):
		return fmt.Errorf("%q is a Windows reserved device name", t)
	}
	return nil
}

// checkLayerSet checks the rules across layers: exactly one vsix, at most
// one layer per role, the vsix digest equal to the upstream sha256.
func checkLayerSet(info ArtifactInfo, layers []Layer) []error {
	var errs []error
	seen := make(map[Role]int)
	for i, l := range layers {
		if j, ok := seen[l.Role]; ok && l.Role.Valid() {
			errs = append(errs, fmt.Errorf("layers[%d]: role %s repeats layers[%d]", i, l.Role, j))
		}
		seen[l.Role] = i
	}
	if _, ok := seen[RoleVsix]; !ok {
		errs = append(errs, errors.New("layers: no vsix layer"))
	} else if info.UpstreamSHA256 != "" {
		v := layers[seen[RoleVsix]]
		if v.Digest != index.SHA256Digest(info.UpstreamSHA256) {
			errs = append(errs, fmt.Errorf("layers[%d].digest: %s differs from annotations[%q] %s", seen[RoleVsix], v.Digest, AnnotationUpstreamSHA256, info.UpstreamSHA256))
		}
	}
	return errs
}

// fieldErrors collects the problems of a document, each naming its field.
type fieldErrors []error

// add records a problem of field, described as fmt.Sprintf would.
func (e *fieldErrors) add(field, format string, args ...any) {
	*e = append(*e, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
}

// checkHeader records the problems of an OCI document's header: a
// schemaVersion other than 2, a mediaType other than want.
func (e *fieldErrors) checkHeader(v specs.Versioned, mediaType, want string) {
	if v.SchemaVersion != 2 {
		e.add("schemaVersion", "%d; want 2", v.SchemaVersion)
	}
	if mediaType != want {
		e.add("mediaType", "%q; want %q", mediaType, want)
	}
}

// ParseManifest reads an entry manifest strictly (see the package comment
// for every rule) and reports every problem, each with its field path.
// Errors wrap ErrInvalidManifest.
func ParseManifest(data []byte) (*Manifest, error) {
	// A manifest must be in canonical form, what BuildManifest writes,
	// which has no field a Manifest does not know and nothing after the
	// value: so when the plain decoder's result passes every check, the
	// strict decoder would have decoded the same, and only a manifest
	// that fails is decoded again, strictly, for the problems to report.
	// The plain decoder is the faster, and verify parses every manifest.
	// The canonical bytes to compare with are built without checking the
	// info and layers again: parseManifest has just checked them (and
	// FuzzParseManifest holds that what it accepts is what BuildManifest,
	// checks and all, writes).
	if len(data) <= MaxManifestBytes {
		if m, err := parseManifest(data, json.Unmarshal, buildChecked); err == nil {
			return m, nil
		}
	}
	return parseManifest(data, strictjson.Unmarshal, BuildManifest)
}

// parseManifest is ParseManifest with unmarshal as the JSON decoder and
// build as what writes the canonical form.
func parseManifest(data []byte, unmarshal func([]byte, any) error, build func(ArtifactInfo, []Layer) ([]byte, error)) (*Manifest, error) {
	fail := func(errs ...error) (*Manifest, error) {
		return nil, fmt.Errorf("%w: %w", ErrInvalidManifest, errors.Join(errs...))
	}
	if len(data) > MaxManifestBytes {
		return fail(fmt.Errorf("larger than %d bytes", MaxManifestBytes))
	}
	var m ocispec.Manifest
	if err := unmarshal(data, &m); err != nil {
		return fail(fmt.Errorf("decode: %w", err))
	}
	var errs fieldErrors
	errs.checkHeader(m.Versioned, m.MediaType, MediaTypeManifest)
	bad := errs.add
	if m.ArtifactType != ArtifactType {
		bad("artifactType", "%q; want %q", m.ArtifactType, ArtifactType)
	}
	if c := m.Config; c.MediaType != MediaTypeEmpty || c.Digest != EmptyConfigDigest || c.Size != 2 ||
		string(c.Data) != EmptyConfig || c.URLs != nil || c.Annotations != nil || c.Platform != nil || c.ArtifactType != "" {
		bad("config", "not the empty descriptor {mediaType %s, digest %s, size 2, data e30=}", MediaTypeEmpty, EmptyConfigDigest)
	}
	if m.Subject != nil {
		bad("subject", "not allowed")
	}
	info, ierrs := infoFromAnnotations(m.Annotations)
	errs = append(errs, ierrs...)
	layers := make([]Layer, len(m.Layers))
	for i, d := range m.Layers {
		l, lerrs := layerFromDescriptor(i, d)
		layers[i] = l
		errs = append(errs, lerrs...)
	}
	errs = append(errs, checkLayerSet(info, layers)...)
	for i := 1; i < len(layers); i++ {
		if slices.Index(Roles, layers[i].Role) < slices.Index(Roles, layers[i-1].Role) {
			bad(fmt.Sprintf("layers[%d]", i), "role %s comes after %s; want the order %v", layers[i].Role, layers[i-1].Role, Roles)
		}
	}
	if len(errs) > 0 {
		return fail(errs...)
	}
	canon, err := build(info, layers)
	if err != nil {
		return fail(err)
	}
	if !bytes.Equal(canon, data) {
		return fail(errors.New("not in canonical form (compact JSON, fixed field order, as BuildManifest writes)"))
	}
	return &Manifest{Info: info, Layers: layers, Digest: index.DigestBytes(data), Size: int64(len(data))}, nil
}
