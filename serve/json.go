package serve

import (
	"bytes"
	"encoding/json"
	"net/url"

	"github.com/airvsx/airvsx/index"
)

// extensionJSON is Open VSX's ExtensionJson, the fields clients read.
type extensionJSON struct {
	URL               string            `json:"url"`
	Files             map[string]string `json:"files"`
	Name              string            `json:"name"`
	Namespace         string            `json:"namespace"`
	TargetPlatform    string            `json:"targetPlatform"`
	Version           string            `json:"version"`
	PreRelease        bool              `json:"preRelease"`
	Timestamp         string            `json:"timestamp"`
	DisplayName       string            `json:"displayName,omitempty"`
	Description       string            `json:"description,omitempty"`
	Categories        []string          `json:"categories"`
	Tags              []string          `json:"tags"`
	License           string            `json:"license,omitempty"`
	Repository        string            `json:"repository,omitempty"`
	Homepage          string            `json:"homepage,omitempty"`
	Engines           map[string]string `json:"engines,omitempty"`
	Dependencies      []refJSON         `json:"dependencies"`
	BundledExtensions []refJSON         `json:"bundledExtensions"`
	NamespaceURL      string            `json:"namespaceUrl"`
	AllVersionsURL    string            `json:"allVersionsUrl"`
	AllVersions       orderedMap        `json:"allVersions"`
	VersionAlias      []string          `json:"versionAlias"`
	Downloads         map[string]string `json:"downloads"`
	DownloadCount     int               `json:"downloadCount"`
	ReviewCount       int               `json:"reviewCount"`
	Verified          bool              `json:"verified"`
	Downloadable      bool              `json:"downloadable"`
	Deprecated        bool              `json:"deprecated"`
	Replacement       *replacementJSON  `json:"replacement,omitempty"`
}

// replacementJSON is Open VSX's ExtensionReplacementJson: the extension a
// deprecated one is replaced by.
type replacementJSON struct {
	URL         string `json:"url"`
	DisplayName string `json:"displayName"`
}

// refJSON names another extension (a dependency, a pack member).
type refJSON struct {
	Namespace string `json:"namespace"`
	Extension string `json:"extension"`
	URL       string `json:"url"`
}

func refs(base string, ids []index.ID) []refJSON {
	out := make([]refJSON, 0, len(ids))
	for _, id := range ids {
		out = append(out, refJSON{Namespace: id.Namespace, Extension: id.Name,
			URL: base + "/api/" + url.PathEscape(id.Namespace) + "/" + url.PathEscape(id.Name)})
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// kv is one member of an orderedMap.
type kv struct{ k, v string }

// orderedMap is a JSON object whose members keep their order (Open VSX
// lists allVersions newest first, and clients take the first match).
type orderedMap []kv

// MarshalJSON writes the members in order.
func (m orderedMap) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range m {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(p.k)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(p.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
