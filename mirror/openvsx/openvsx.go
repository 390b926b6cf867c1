package openvsx

// The Open VSX API: the JSON shapes a mirror reads and the calls that read
// them (the query endpoint's in query.go). Upstream sources: the endpoints
// are RegistryAPI.java and the shapes json/*.java (ExtensionJson,
// QueryResultJson) of the Open VSX server,
// https://github.com/eclipse-openvsx/openvsx/tree/main/server/src/main/java/org/eclipse/openvsx
// (the repository was github.com/eclipse/openvsx until 2026).

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/airvsx/airvsx/index"
)

// Limits on what the upstream may send.
const (
	// MaxJSONBytes is the largest API answer accepted.
	MaxJSONBytes = 16 << 20
	// MaxSitemapBytes is the largest /sitemap.xml accepted.
	MaxSitemapBytes = 64 << 20
	// MaxVersionReferences is the most versions (× platforms) of one
	// extension QueryVersions lists.
	MaxVersionReferences = 10_000
)

// Extension is Open VSX's ExtensionJson: one version of an extension for
// one target platform, as /api/{ns}/{name}[/{platform}][/{version}]
// answers, and as each entry of /api/-/query is (without Downloads, and
// with "latest" and "pre-release" computed among the page's entries).
// Fields upstream leaves out are zero.
type Extension struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Version   string `json:"version"`
	// TargetPlatform is e.g. "linux-x64" or "universal"; empty in
	// responses older than platform-specific extensions (= universal).
	TargetPlatform string `json:"targetPlatform,omitempty"`
	PreRelease     bool   `json:"preRelease"`
	DisplayName    string `json:"displayName,omitempty"`
	Description    string `json:"description,omitempty"`
	// Timestamp is the publish time, parsed from upstream's variable
	// precision (ParseTimestamp).
	Timestamp time.Time `json:"timestamp"`
	// Files maps a file type to its URL: download, sha256, signature,
	// publicKey, manifest, vsixmanifest, readme, changelog, license, icon
	// (only those that exist; possibly none).
	Files map[string]string `json:"files,omitempty"`
	// Downloads maps each target platform of this version to its download
	// URL (single-extension GETs only).
	Downloads map[string]string `json:"downloads,omitempty"`
	// Engines is package.json "engines", e.g. {"vscode": "^1.90.0"}.
	Engines       map[string]string `json:"engines,omitempty"`
	Categories    []string          `json:"categories,omitempty"`
	Tags          []string          `json:"tags,omitempty"`
	ExtensionKind []string          `json:"extensionKind,omitempty"`
	// Dependencies is extensionDependencies; BundledExtensions is
	// extensionPack.
	Dependencies      []ExtensionRef `json:"dependencies,omitempty"`
	BundledExtensions []ExtensionRef `json:"bundledExtensions,omitempty"`
	// AllVersions maps at most the 100 newest versions, plus the aliases
	// "latest" and "pre-release", to their API URLs. Client.QueryVersions
	// lists them all.
	AllVersions    map[string]string `json:"allVersions,omitempty"`
	AllVersionsURL string            `json:"allVersionsUrl,omitempty"`
	// VersionAlias lists the aliases ("latest", "pre-release") that point
	// at this version.
	VersionAlias []string `json:"versionAlias,omitempty"`
	// DownloadSize is the size of the .vsix in bytes; 0 when upstream does
	// not send it (servers before 2026).
	DownloadSize int64  `json:"downloadSize,omitempty"`
	License      string `json:"license,omitempty"`
	Repository   string `json:"repository,omitempty"`
	Homepage     string `json:"homepage,omitempty"`
	Bugs         string `json:"bugs,omitempty"`
	// Verified is upstream's verified-publisher flag.
	Verified   bool `json:"verified"`
	Deprecated bool `json:"deprecated"`

	// Raw is the JSON exactly as upstream sent it (set by UnmarshalJSON),
	// for storing as-is.
	Raw json.RawMessage `json:"-"`
}

// ExtensionRef is Open VSX's ExtensionReferenceJson, an entry of
// dependencies or bundledExtensions.
type ExtensionRef struct {
	URL       string `json:"url,omitempty"`
	Namespace string `json:"namespace"`
	Extension string `json:"extension"`
	// Version is never set by current upstreams.
	Version string `json:"version,omitempty"`
}

// ID returns the referenced extension's ID, validated.
func (r ExtensionRef) ID() (index.ID, error) {
	id := index.ID{Namespace: r.Namespace, Name: r.Extension}
	if err := id.Validate(); err != nil {
		return index.ID{}, err
	}
	return id, nil
}

// UnmarshalJSON decodes ExtensionJson, parsing the timestamp in any of
// upstream's precisions and keeping a copy of the bytes in Raw.
func (e *Extension) UnmarshalJSON(b []byte) error {
	type plain Extension
	aux := struct {
		*plain
		Timestamp string `json:"timestamp"`
	}{plain: (*plain)(e)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	e.Timestamp = time.Time{}
	if aux.Timestamp != "" {
		t, err := ParseTimestamp(aux.Timestamp)
		if err != nil {
			return fmt.Errorf("extension %s.%s %s: field timestamp: %w", e.Namespace, e.Name, e.Version, err)
		}
		e.Timestamp = t
	}
	e.Raw = bytes.Clone(b)
	return nil
}

// timestampLayouts are the spellings of upstream's publish times: Java's
// LocalDateTime.toString plus "Z", which drops zero seconds and fractions
// ("…T03:29:07.108336Z", "…T03:29:07Z", "…T03:29Z"); the zone-less forms
// are read as UTC.
var timestampLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04",
}

// ParseTimestamp parses an Open VSX timestamp in any precision upstream
// prints, returning UTC.
func ParseTimestamp(s string) (time.Time, error) {
	for _, layout := range timestampLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("timestamp %q: want e.g. 2024-06-18T03:29:07.108336Z", s)
}

// ID returns the extension's ID, validated.
func (e *Extension) ID() (index.ID, error) {
	id := index.ID{Namespace: e.Namespace, Name: e.Name}
	if err := id.Validate(); err != nil {
		return index.ID{}, err
	}
	return id, nil
}

// Platform returns the target platform; an absent one is index.Universal.
func (e *Extension) Platform() (index.Platform, error) {
	return index.ParsePlatform(e.TargetPlatform)
}

// DependencyIDs returns the IDs in Dependencies (extensionDependencies).
// On a malformed reference it returns the valid IDs and an error naming
// every bad one.
func (e *Extension) DependencyIDs() ([]index.ID, error) {
	return refIDs(e.Dependencies, "dependencies")
}

// PackIDs returns the IDs in BundledExtensions (extensionPack). On a
// malformed reference it returns the valid IDs and an error naming every
// bad one.
func (e *Extension) PackIDs() ([]index.ID, error) {
	return refIDs(e.BundledExtensions, "bundledExtensions")
}

func refIDs(refs []ExtensionRef, field string) ([]index.ID, error) {
	var ids []index.ID
	var errs []error
	for i, r := range refs {
		id, err := r.ID()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s[%d]: %w", field, i, err))
			continue
		}
		ids = append(ids, id)
	}
	return ids, errors.Join(errs...)
}

// apiURL is the upstream URL /api/{segs...}, each segment escaped.
func (c *Client) apiURL(segs ...string) string {
	var b strings.Builder
	b.WriteString(c.baseURL)
	b.WriteString("/api")
	for _, s := range segs {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	return b.String()
}

// getJSON GETs an API URL (conditionally, from the ETag cache) and decodes
// it into v; it returns the body.
func (c *Client) getJSON(ctx context.Context, rawURL string, v any) ([]byte, error) {
	body, _, err := c.do(ctx, request{url: rawURL, kind: kindAPI, max: MaxJSONBytes, accept: "application/json", etag: true})
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return nil, fmt.Errorf("GET %s: decode: %w", rawURL, err)
	}
	return body, nil
}

// Extension returns the latest version of id (any platform, universal
// preferred), from GET /api/{ns}/{name}. A missing extension is an
// *HTTPError matching ErrNotFound.
func (c *Client) Extension(ctx context.Context, id index.ID) (*Extension, error) {
	if err := id.Validate(); err != nil {
		return nil, err
	}
	u := c.apiURL(id.Namespace, id.Name)
	var e Extension
	if _, err := c.getJSON(ctx, u, &e); err != nil {
		return nil, err
	}
	if err := e.check(u, id, "", ""); err != nil {
		return nil, err
	}
	return &e, nil
}

// ExtensionVersion returns one version of id for platform, from GET
// /api/{ns}/{name}/{platform}/{version}; platform "" asks for any platform
// (/api/{ns}/{name}/{version}, universal preferred). version is SemVer or
// an alias ("latest", "pre-release"). Extension.Raw holds the JSON as
// upstream sent it. The answer must be the extension, version and
// platform asked for.
func (c *Client) ExtensionVersion(ctx context.Context, id index.ID, platform index.Platform, version string) (*Extension, error) {
	if err := id.Validate(); err != nil {
		return nil, err
	}
	if version != "latest" && version != "pre-release" {
		if _, err := index.ParseVersion(version); err != nil {
			return nil, fmt.Errorf("extension %s: %w", id, err)
		}
	}
	segs := []string{id.Namespace, id.Name}
	if platform != "" {
		if !platform.Valid() {
			return nil, fmt.Errorf("extension %s %s: unknown target platform %q", id, version, platform)
		}
		segs = append(segs, string(platform))
	}
	u := c.apiURL(append(segs, version)...)
	var e Extension
	if _, err := c.getJSON(ctx, u, &e); err != nil {
		return nil, err
	}
	if version == "latest" || version == "pre-release" {
		version = ""
	}
	if err := e.check(u, id, platform, version); err != nil {
		return nil, err
	}
	return &e, nil
}

// check makes sure upstream answered for what was asked ("" = anything).
func (e *Extension) check(u string, id index.ID, platform index.Platform, version string) error {
	got, err := e.ID()
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	if !got.Equal(id) {
		return fmt.Errorf("GET %s: upstream answered extension %s, want %s", u, got, id)
	}
	if version != "" && e.Version != version {
		return fmt.Errorf("GET %s: upstream answered version %q, want %q", u, e.Version, version)
	}
	p, err := e.Platform()
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	if platform != "" && p != platform {
		return fmt.Errorf("GET %s: upstream answered platform %s, want %s", u, p, platform)
	}
	return nil
}

// Sitemap lists every extension upstream has, from the <loc> URLs
// ({base}/extension/{ns}/{name}) of GET /sitemap.xml, in document order
// without duplicates. Entries that are not extension pages or whose ID is
// invalid are skipped (logged at debug). The sitemap may not exceed
// MaxSitemapBytes.
func (c *Client) Sitemap(ctx context.Context) ([]index.ID, error) {
	u := c.baseURL + "/sitemap.xml"
	body, _, err := c.do(ctx, request{url: u, kind: kindAPI, max: MaxSitemapBytes, accept: "application/xml, text/xml"})
	if err != nil {
		return nil, err
	}
	ids, err := parseSitemap(body, func(loc string, err error) {
		c.log.Debug("sitemap: skipping entry", "url", loc, "err", err)
	})
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	return ids, nil
}

// parseSitemap returns the extension IDs of a sitemap's <loc> URLs;
// skip is told about every entry it leaves out.
func parseSitemap(body []byte, skip func(loc string, err error)) ([]index.ID, error) {
	var doc struct {
		XMLName xml.Name
		URLs    []struct {
			Loc string `xml:"loc"`
		} `xml:"url"`
	}
	if err := xml.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("sitemap: %w", err)
	}
	if doc.XMLName.Local != "urlset" {
		return nil, fmt.Errorf("sitemap: root element <%s>, want <urlset>", doc.XMLName.Local)
	}
	var ids []index.ID
	seen := map[string]bool{}
	for _, e := range doc.URLs {
		loc := strings.TrimSpace(e.Loc)
		id, err := sitemapID(loc)
		if err != nil {
			skip(loc, err)
			continue
		}
		if seen[id.Key()] {
			continue
		}
		seen[id.Key()] = true
		ids = append(ids, id)
	}
	return ids, nil
}

// sitemapID reads the ID from an extension page URL, .../extension/{ns}/{name}.
func sitemapID(loc string) (index.ID, error) {
	u, err := url.Parse(loc)
	if err != nil {
		return index.ID{}, err
	}
	segs := strings.Split(strings.TrimSuffix(u.EscapedPath(), "/"), "/")
	if len(segs) < 3 || segs[len(segs)-3] != "extension" {
		return index.ID{}, errors.New("not an extension page (want .../extension/{namespace}/{name})")
	}
	ns, err := url.PathUnescape(segs[len(segs)-2])
	if err != nil {
		return index.ID{}, err
	}
	name, err := url.PathUnescape(segs[len(segs)-1])
	if err != nil {
		return index.ID{}, err
	}
	id := index.ID{Namespace: ns, Name: name}
	if err := id.Validate(); err != nil {
		return index.ID{}, err
	}
	return id, nil
}
