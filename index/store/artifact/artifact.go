package artifact

import (
	"errors"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// ArtifactType is the artifactType of every entry manifest.
const ArtifactType = "application/vnd.airvsx.extension.v1"

// Media types of the layers whose type does not depend on their content.
const (
	MediaTypeVsix              = "application/vnd.airvsx.vsix.v1+zip"
	MediaTypeUpstreamMetadata  = "application/vnd.airvsx.openvsx.extension.v1+json"
	MediaTypeUpstreamSignature = "application/vnd.airvsx.openvsx.sigzip.v1+zip"
)

// The OCI media types and the empty config every entry uses.
const (
	MediaTypeManifest = ocispec.MediaTypeImageManifest
	MediaTypeIndex    = ocispec.MediaTypeImageIndex
	MediaTypeEmpty    = ocispec.MediaTypeEmptyJSON
	// EmptyConfig is the content of the empty config blob.
	EmptyConfig = "{}"
	// EmptyConfigDigest is the digest of EmptyConfig.
	EmptyConfigDigest = "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
)

// Annotation keys of entry manifests and their layers.
const (
	AnnotationTitle          = ocispec.AnnotationTitle   // layer: the file name
	AnnotationCreated        = ocispec.AnnotationCreated // manifest: upstream publish time, RFC 3339 UTC
	AnnotationRole           = "vnd.airvsx.role"         // layer: its Role
	AnnotationID             = "vnd.airvsx.id"           // manifest: the extension ID in display case
	AnnotationVersion        = "vnd.airvsx.version"      // manifest: strict SemVer
	AnnotationPlatform       = "vnd.airvsx.platform"     // manifest: the target platform
	AnnotationPreRelease     = "vnd.airvsx.prerelease"   // manifest: "true" or "false"
	AnnotationUpstreamSHA256 = "vnd.airvsx.upstream.sha256"
)

// MaxManifestBytes caps the size of a manifest ParseManifest reads (OCI
// registries must accept manifests of at least 4 MiB).
const MaxManifestBytes = 4 << 20

// ErrInvalidManifest is wrapped by every error ParseManifest returns for
// bytes that are not an entry manifest.
var ErrInvalidManifest = errors.New("invalid entry manifest")

// Role says what a layer of an entry holds.
type Role string

// The layer roles, in the order layers appear in a manifest.
const (
	RoleVsix              Role = "vsix"               // the package exactly as downloaded
	RoleUpstreamMetadata  Role = "upstream-metadata"  // the Open VSX API JSON for this version
	RoleUpstreamSignature Role = "upstream-signature" // Open VSX's .sigzip, when upstream signs
	RoleManifest          Role = "manifest"           // extension/package.json
	RoleReadme            Role = "readme"
	RoleChangelog         Role = "changelog"
	RoleLicense           Role = "license"
	RoleIcon              Role = "icon"
)

// Roles is every role, in manifest order.
var Roles = []Role{
	RoleVsix, RoleUpstreamMetadata, RoleUpstreamSignature,
	RoleManifest, RoleReadme, RoleChangelog, RoleLicense, RoleIcon,
}

// Valid reports whether r is one of Roles.
func (r Role) Valid() bool { return slices.Contains(Roles, r) }

// MediaTypeFor returns the media type of a layer. The vsix and upstream
// roles have fixed vendor types. The others are typed by the extension of
// their title, case-insensitively: .json application/json; .md and
// .markdown text/markdown; .txt or no extension text/plain (LICENSE);
// .png image/png; .jpg and .jpeg image/jpeg; .svg image/svg+xml; anything
// else application/octet-stream. Content is never sniffed, so the type is
// a function of the manifest alone.
func MediaTypeFor(role Role, title string) string {
	switch role {
	case RoleVsix:
		return MediaTypeVsix
	case RoleUpstreamMetadata:
		return MediaTypeUpstreamMetadata
	case RoleUpstreamSignature:
		return MediaTypeUpstreamSignature
	}
	switch strings.ToLower(path.Ext(title)) {
	case ".json":
		return "application/json"
	case ".md", ".markdown":
		return "text/markdown"
	case ".txt", "":
		return "text/plain"
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".svg":
		return "image/svg+xml"
	}
	return "application/octet-stream"
}

// Layer is one file of an entry.
type Layer struct {
	Role      Role
	Title     string // the file name (org.opencontainers.image.title)
	MediaType string // MediaTypeFor(Role, Title); BuildManifest fills it when empty
	Digest    string // sha256:<hex>
	Size      int64
}

// ArtifactInfo is what an entry manifest says about its entry.
type ArtifactInfo struct {
	ID         index.ID
	Version    string // strict SemVer
	Platform   index.Platform
	PreRelease bool
	Created    time.Time // the upstream publish time; stored in UTC
	// UpstreamSHA256 is the lowercase hex sha256 upstream published for
	// the vsix, or empty when it published none. When set it equals the
	// vsix layer's digest.
	UpstreamSHA256 string
}

// Manifest is a parsed entry manifest.
type Manifest struct {
	Info   ArtifactInfo
	Layers []Layer // in the order of Roles
	Digest string  // sha256:<hex> of the manifest bytes
	Size   int64   // length of the manifest bytes
}

// Layer returns the layer with the given role.
func (m *Manifest) Layer(r Role) (Layer, bool) {
	for _, l := range m.Layers {
		if l.Role == r {
			return l, true
		}
	}
	return Layer{}, false
}

// Repo returns the repository the entry belongs in.
func (m *Manifest) Repo() string { return Repo(m.Info.ID) }

// Tag returns the entry's tag. Every valid manifest has one.
func (m *Manifest) Tag() string {
	tag, _ := Tag(m.Info.Platform, m.Info.Version)
	return tag
}

// Descriptor returns the descriptor that tags the manifest.
func (m *Manifest) Descriptor() store.Descriptor {
	return store.Descriptor{MediaType: MediaTypeManifest, Digest: m.Digest, Size: m.Size, ArtifactType: ArtifactType}
}
