package openvsxtest

import (
	"bytes"
	"encoding/json"
)

// The JSON shapes below follow Open VSX's json/*.java: fields in
// declaration order (Jackson's order), null fields omitted
// (@JsonInclude(NON_NULL)), primitives always present, empty strings and
// empty lists kept.

// pairs is a JSON object whose key order is kept (Java's LinkedHashMap).
// A nil or empty pairs encodes as {}.
type pairs []pair

type pair struct{ k, v string }

func (p *pairs) add(k, v string) { *p = append(*p, pair{k, v}) }

func (p pairs) get(k string) (string, bool) {
	for _, e := range p {
		if e.k == k {
			return e.v, true
		}
	}
	return "", false
}

// MarshalJSON encodes the pairs as an object in order.
func (p pairs) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.k)
		v, _ := json.Marshal(e.v)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// extensionJSON is ExtensionJson (current upstream field set; legacy
// fields are pointers so they can be left out).
type extensionJSON struct {
	NamespaceURL                   string    `json:"namespaceUrl"`
	ReviewsURL                     string    `json:"reviewsUrl"`
	Files                          pairs     `json:"files"`
	DownloadSize                   *int64    `json:"downloadSize,omitempty"`
	Name                           string    `json:"name"`
	Namespace                      string    `json:"namespace"`
	TargetPlatform                 string    `json:"targetPlatform"`
	Version                        string    `json:"version"`
	PreRelease                     bool      `json:"preRelease"`
	PublishedBy                    *userJSON `json:"publishedBy,omitempty"`
	PublishedWithTrustedPublishing *bool     `json:"publishedWithTrustedPublishing,omitempty"`
	Verified                       bool      `json:"verified"`
	UnrelatedPublisher             *bool     `json:"unrelatedPublisher,omitempty"`
	NamespaceAccess                string    `json:"namespaceAccess,omitempty"`
	AllVersions                    pairs     `json:"allVersions"`
	AllVersionsURL                 string    `json:"allVersionsUrl"`
	AverageRating                  *float64  `json:"averageRating,omitempty"`
	DownloadCount                  int       `json:"downloadCount"`
	ReviewCount                    int64     `json:"reviewCount"`
	VersionAlias                   []string  `json:"versionAlias"`
	Timestamp                      string    `json:"timestamp"`
	Preview                        bool      `json:"preview"`
	DisplayName                    string    `json:"displayName,omitempty"`
	NamespaceDisplayName           string    `json:"namespaceDisplayName"`
	Description                    string    `json:"description"`
	Engines                        *pairs    `json:"engines,omitempty"`
	Categories                     []string  `json:"categories"`
	ExtensionKind                  []string  `json:"extensionKind"`
	Tags                           []string  `json:"tags"`
	License                        string    `json:"license,omitempty"`
	Homepage                       string    `json:"homepage"`
	Repository                     string    `json:"repository"`
	SponsorLink                    string    `json:"sponsorLink"`
	Bugs                           string    `json:"bugs"`
	Markdown                       string    `json:"markdown,omitempty"`
	GalleryColor                   string    `json:"galleryColor"`
	GalleryTheme                   string    `json:"galleryTheme"`
	LocalizedLanguages             []string  `json:"localizedLanguages"`
	QnA                            string    `json:"qna,omitempty"`
	Dependencies                   []refJSON `json:"dependencies"`
	BundledExtensions              []refJSON `json:"bundledExtensions"`
	Downloads                      *pairs    `json:"downloads,omitempty"`
	Deprecated                     bool      `json:"deprecated"`
	Downloadable                   bool      `json:"downloadable"`
}

// userJSON is UserJson.
type userJSON struct {
	LoginName string `json:"loginName"`
	Provider  string `json:"provider,omitempty"`
}

// refJSON is ExtensionReferenceJson.
type refJSON struct {
	URL       string `json:"url"`
	Namespace string `json:"namespace"`
	Extension string `json:"extension"`
}

// versionRefJSON is VersionReferenceJson.
type versionRefJSON struct {
	URL            string `json:"url"`
	Files          pairs  `json:"files"`
	Version        string `json:"version"`
	TargetPlatform string `json:"targetPlatform"`
	Engines        *pairs `json:"engines,omitempty"`
}

// versionRefsJSON is VersionReferencesJson.
type versionRefsJSON struct {
	Offset    int              `json:"offset"`
	TotalSize int              `json:"totalSize"`
	Versions  []versionRefJSON `json:"versions"`
}

// versionsJSON is VersionsJson.
type versionsJSON struct {
	Offset    int   `json:"offset"`
	TotalSize int   `json:"totalSize"`
	Versions  pairs `json:"versions"`
}

// searchJSON is SearchResultJson.
type searchJSON struct {
	Offset     int               `json:"offset"`
	TotalSize  int               `json:"totalSize"`
	Extensions []searchEntryJSON `json:"extensions"`
}

// searchEntryJSON is SearchEntryJson.
type searchEntryJSON struct {
	URL            string           `json:"url"`
	Files          pairs            `json:"files"`
	Name           string           `json:"name"`
	Namespace      string           `json:"namespace"`
	Version        string           `json:"version"`
	Timestamp      string           `json:"timestamp"`
	Verified       bool             `json:"verified"`
	AverageRating  *float64         `json:"averageRating,omitempty"`
	ReviewCount    int64            `json:"reviewCount"`
	DownloadCount  int              `json:"downloadCount"`
	DisplayName    string           `json:"displayName,omitempty"`
	Description    string           `json:"description,omitempty"`
	Deprecated     bool             `json:"deprecated"`
	AllVersions    []versionRefJSON `json:"allVersions,omitempty"`
	AllVersionsURL string           `json:"allVersionsUrl,omitempty"`
}

// namespaceJSON is NamespaceJson.
type namespaceJSON struct {
	Name       string `json:"name"`
	Extensions pairs  `json:"extensions"`
	Verified   bool   `json:"verified"`
	Access     string `json:"access,omitempty"`
}

// errorJSON is ResultJson with only "error" set.
type errorJSON struct {
	Error string `json:"error"`
}
