package openvsxtest

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/airvsx/airvsx/index"
)

// SidecarName is the optional file in a fixtures directory that holds what
// upstream knows about a version but the package does not: its publish
// time, download counts, whether it is signed. See LoadFixtures.
const SidecarName = "openvsx-upstream.json"

// Fixture is one extension version for one target platform, as the upstream
// registry holds it: the metadata Open VSX extracts from the package when it
// is published, the package itself, and the server-side facts (publish time,
// counts, signing) that the package does not carry.
type Fixture struct {
	// File is the package's file name in the fixtures directory; empty for
	// fixtures built in code.
	File string

	Namespace string
	Name      string
	Version   string
	// Platform is the target platform; empty means index.Universal.
	Platform   index.Platform
	PreRelease bool
	Preview    bool

	DisplayName string
	Description string
	// Engines is package.json "engines" in file order.
	Engines            []Engine
	Categories         []string
	Tags               []string
	ExtensionKind      []string
	LocalizedLanguages []string
	// License is package.json "license"; empty means absent (omitted).
	License string
	// Homepage, Repository, Bugs, SponsorLink, GalleryColor and GalleryTheme
	// come from vsixmanifest properties; upstream emits "" when absent.
	Homepage     string
	Repository   string
	Bugs         string
	SponsorLink  string
	GalleryColor string
	GalleryTheme string
	// Markdown and QnA are package.json fields; empty means absent (omitted).
	Markdown string
	QnA      string
	// Dependencies and BundledExtensions are "namespace.name" IDs from the
	// vsixmanifest (extensionDependencies and extensionPack).
	Dependencies      []string
	BundledExtensions []string

	// Resources are the files upstream extracts from the package and serves
	// next to it (manifest, readme, changelog, license, icon, vsixmanifest).
	Resources []Resource
	// VSIX is the package. Nil means the version has nothing to download.
	VSIX []byte

	// Timestamp is the publish time exactly as upstream prints it (Java's
	// LocalDateTime.toString plus "Z", so its precision varies).
	Timestamp string
	// NoFiles makes the version's "files" an empty object and serves none of
	// its files, like upstream versions that lost their assets.
	NoFiles bool
	// Unsigned serves the version without a .sigzip (no "signature" and no
	// "publicKey" in files).
	Unsigned bool

	// Per-extension values. Upstream keeps these per extension, not per
	// version; the server takes them from the extension's latest version.
	DownloadCount int
	ReviewCount   int64
	AverageRating *float64
	Verified      bool
	// PublishedBy is the publishing user's login name; empty means the
	// namespace.
	PublishedBy string
}

// Engine is one entry of package.json "engines".
type Engine struct {
	Name  string
	Range string
}

// Resource is a file Open VSX extracts from a package. Type is the key it
// gets in "files" (manifest, readme, changelog, license, icon,
// vsixmanifest); Name is its stored file name.
type Resource struct {
	Type string
	Name string
	Data []byte
}

// Fixtures is the set of versions a server serves.
type Fixtures []Fixture

// ID returns "namespace.name".
func (f *Fixture) ID() string { return f.Namespace + "." + f.Name }

// TargetPlatform returns Platform, with empty meaning index.Universal.
func (f *Fixture) TargetPlatform() index.Platform {
	if f.Platform == "" {
		return index.Universal
	}
	return f.Platform
}

// FileBase returns upstream's stored file name without extension:
// "ns.name-version" plus "@platform" unless universal.
func (f *Fixture) FileBase() string {
	s := f.ID() + "-" + f.Version
	if tp := f.TargetPlatform(); tp != index.Universal {
		s += "@" + string(tp)
	}
	return s
}

// DefaultDir returns the repository's testdata/vsix, found relative to this
// package's source file.
func DefaultDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return filepath.Join("testdata", "vsix")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "vsix")
}

// sidecar is the format of SidecarName.
type sidecar struct {
	Extensions map[string]sidecarExtension `json:"extensions"`
	Files      map[string]sidecarFile      `json:"files"`
}

type sidecarExtension struct {
	PublishedBy   string   `json:"publishedBy"`
	Verified      bool     `json:"verified"`
	DownloadCount int      `json:"downloadCount"`
	ReviewCount   int64    `json:"reviewCount"`
	AverageRating *float64 `json:"averageRating"`
}

type sidecarFile struct {
	Timestamp string `json:"timestamp"`
	NoFiles   bool   `json:"noFiles"`
	Unsigned  bool   `json:"unsigned"`
}

// LoadFixtures reads every *.vsix in dir. From each package it reads
// extension/package.json and extension.vsixmanifest (with archive/zip,
// without the safety checks of index/vsix: fixtures are trusted test data)
// and derives the metadata the way Open VSX's ExtensionProcessor does:
// identity, pre-release and platform from the vsixmanifest, engines,
// license, markdown and qna from package.json, tags de-duplicated
// case-insensitively and sorted, links from the Links.* properties.
//
// The optional SidecarName file in dir adds what upstream knows beyond the
// package: per extension (key "ns.name") publishedBy, verified,
// downloadCount, reviewCount, averageRating; per file (key: file name)
// timestamp, noFiles, unsigned. A file without an entry gets its zip entry
// time as timestamp, is signed and has files; an extension without an entry
// is verified, published by its namespace, with zero counts.
//
// Each file must be named as upstream names it,
// <ns>.<name>-<version>[@<platform>].vsix.
func LoadFixtures(dir string) (Fixtures, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.vsix"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("load fixtures: no *.vsix in %s", dir)
	}
	sort.Strings(names)
	var side sidecar
	if b, err := os.ReadFile(filepath.Join(dir, SidecarName)); err == nil {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&side); err != nil {
			return nil, fmt.Errorf("load fixtures: %s: %w", SidecarName, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("load fixtures: %w", err)
	}

	var fx Fixtures
	seen := map[string]bool{}
	var problems []error
	for _, name := range names {
		f, err := loadFixture(name)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		base := filepath.Base(name)
		if want := f.FileBase() + ".vsix"; base != want {
			problems = append(problems, fmt.Errorf("%s: package is %s, want file name %s", base, f.FileBase(), want))
			continue
		}
		if seen[strings.ToLower(f.FileBase())] {
			problems = append(problems, fmt.Errorf("%s: duplicate version", base))
			continue
		}
		seen[strings.ToLower(f.FileBase())] = true
		if sf, ok := side.Files[base]; ok {
			if sf.Timestamp != "" {
				if _, err := ParseTimestamp(sf.Timestamp); err != nil {
					problems = append(problems, fmt.Errorf("%s: %s: %w", SidecarName, base, err))
				}
				f.Timestamp = sf.Timestamp
			}
			f.NoFiles = sf.NoFiles
			f.Unsigned = sf.Unsigned
		}
		f.Verified = true
		if se, ok := side.Extensions[f.ID()]; ok {
			f.PublishedBy = se.PublishedBy
			f.Verified = se.Verified
			f.DownloadCount = se.DownloadCount
			f.ReviewCount = se.ReviewCount
			f.AverageRating = se.AverageRating
		}
		fx = append(fx, *f)
	}
	for file := range side.Files {
		if !seen[strings.ToLower(strings.TrimSuffix(file, ".vsix"))] {
			problems = append(problems, fmt.Errorf("%s: names %s, which is not a fixture", SidecarName, file))
		}
	}
	if err := errors.Join(problems...); err != nil {
		return nil, fmt.Errorf("load fixtures from %s: %w", dir, err)
	}
	return fx, nil
}

// vsixManifest is the part of extension.vsixmanifest Open VSX reads.
type vsixManifest struct {
	Metadata struct {
		Identity struct {
			ID             string `xml:"Id,attr"`
			Version        string `xml:"Version,attr"`
			Publisher      string `xml:"Publisher,attr"`
			TargetPlatform string `xml:"TargetPlatform,attr"`
		} `xml:"Identity"`
		DisplayName  string `xml:"DisplayName"`
		Description  string `xml:"Description"`
		Tags         string `xml:"Tags"`
		Categories   string `xml:"Categories"`
		GalleryFlags string `xml:"GalleryFlags"`
		Properties   []struct {
			ID    string `xml:"Id,attr"`
			Value string `xml:"Value,attr"`
		} `xml:"Properties>Property"`
		License string `xml:"License"`
		Icon    string `xml:"Icon"`
	} `xml:"Metadata"`
	Assets []struct {
		Type string `xml:"Type,attr"`
		Path string `xml:"Path,attr"`
	} `xml:"Assets>Asset"`
}

func (m *vsixManifest) property(id string) string {
	for _, p := range m.Metadata.Properties {
		if p.ID == id {
			return p.Value
		}
	}
	return ""
}

func (m *vsixManifest) asset(typ string) string {
	for _, a := range m.Assets {
		if a.Type == typ {
			return a.Path
		}
	}
	return ""
}

func loadFixture(name string) (*Fixture, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	base := filepath.Base(name)
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", base, err)
	}
	read := func(entry string) ([]byte, error) {
		for _, zf := range zr.File {
			if zf.Name == entry {
				rc, err := zf.Open()
				if err != nil {
					return nil, err
				}
				defer rc.Close()
				return io.ReadAll(rc)
			}
		}
		return nil, fmt.Errorf("%s: no entry %s", base, entry)
	}
	pkgBytes, err := read("extension/package.json")
	if err != nil {
		return nil, err
	}
	manBytes, err := read("extension.vsixmanifest")
	if err != nil {
		return nil, err
	}
	var man vsixManifest
	if err := xml.Unmarshal(manBytes, &man); err != nil {
		return nil, fmt.Errorf("%s: extension.vsixmanifest: %w", base, err)
	}
	var pkg struct {
		License  any             `json:"license"`
		Markdown any             `json:"markdown"`
		QnA      any             `json:"qna"`
		Icon     any             `json:"icon"`
		Engines  json.RawMessage `json:"engines"`
	}
	if err := json.Unmarshal(pkgBytes, &pkg); err != nil {
		return nil, fmt.Errorf("%s: extension/package.json: %w", base, err)
	}
	engines, err := orderedStrings(pkg.Engines)
	if err != nil {
		return nil, fmt.Errorf("%s: extension/package.json: engines: %w", base, err)
	}

	id := man.Metadata.Identity
	f := &Fixture{
		File:               base,
		Namespace:          id.Publisher,
		Name:               id.ID,
		Version:            id.Version,
		PreRelease:         man.property("Microsoft.VisualStudio.Code.PreRelease") == "true",
		Preview:            containsField(man.Metadata.GalleryFlags, "Preview"),
		DisplayName:        strings.TrimSpace(man.Metadata.DisplayName),
		Description:        man.Metadata.Description,
		Engines:            engines,
		Categories:         splitList(man.Metadata.Categories),
		Tags:               tagList(man.Metadata.Tags),
		ExtensionKind:      splitList(man.property("Microsoft.VisualStudio.Code.ExtensionKind")),
		LocalizedLanguages: splitList(man.property("Microsoft.VisualStudio.Code.LocalizedLanguages")),
		License:            textValue(pkg.License),
		Homepage:           man.property("Microsoft.VisualStudio.Services.Links.Learn"),
		Repository:         man.property("Microsoft.VisualStudio.Services.Links.Source"),
		Bugs:               man.property("Microsoft.VisualStudio.Services.Links.Support"),
		SponsorLink:        man.property("Microsoft.VisualStudio.Code.SponsorLink"),
		GalleryColor:       man.property("Microsoft.VisualStudio.Services.Branding.Color"),
		GalleryTheme:       man.property("Microsoft.VisualStudio.Services.Branding.Theme"),
		Markdown:           textValue(pkg.Markdown),
		QnA:                textValue(pkg.QnA),
		Dependencies:       splitList(man.property("Microsoft.VisualStudio.Code.ExtensionDependencies")),
		BundledExtensions:  splitList(man.property("Microsoft.VisualStudio.Code.ExtensionPack")),
		VSIX:               data,
	}
	if tp := id.TargetPlatform; tp != "" {
		p, err := index.ParsePlatform(tp)
		if err != nil {
			return nil, fmt.Errorf("%s: extension.vsixmanifest: %w", base, err)
		}
		f.Platform = p
	} else {
		f.Platform = index.Universal
	}
	if _, err := index.ParseVersion(f.Version); err != nil {
		return nil, fmt.Errorf("%s: extension.vsixmanifest: %w", base, err)
	}
	if len(zr.File) > 0 {
		f.Timestamp = FormatTimestamp(zr.File[0].Modified)
	}

	// Resources, named and found as ExtensionProcessor finds them.
	add := func(typ, entry string) error {
		if entry == "" {
			return nil
		}
		b, err := read(entry)
		if err != nil {
			return err
		}
		f.Resources = append(f.Resources, Resource{Type: typ, Name: path.Base(entry), Data: b})
		return nil
	}
	licensePath := man.Metadata.License
	if licensePath == "" {
		licensePath = man.asset("Microsoft.VisualStudio.Services.Content.License")
	}
	iconPath := man.asset("Microsoft.VisualStudio.Services.Icons.Default")
	if s := textValue(pkg.Icon); iconPath == "" && s != "" {
		iconPath = "extension/" + strings.ReplaceAll(s, `\`, "/")
	}
	f.Resources = append(f.Resources, Resource{Type: "manifest", Name: "package.json", Data: pkgBytes})
	for _, r := range []struct{ typ, entry string }{
		{"readme", man.asset("Microsoft.VisualStudio.Services.Content.Details")},
		{"changelog", man.asset("Microsoft.VisualStudio.Services.Content.Changelog")},
		{"license", licensePath},
		{"icon", iconPath},
	} {
		if err := add(r.typ, r.entry); err != nil {
			return nil, err
		}
	}
	f.Resources = append(f.Resources, Resource{Type: "vsixmanifest", Name: "extension.vsixmanifest", Data: manBytes})
	return f, nil
}

// orderedStrings decodes a JSON object of strings keeping the key order.
func orderedStrings(raw json.RawMessage) ([]Engine, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("want an object")
	}
	var out []Engine
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		s, _ := v.(string)
		out = append(out, Engine{Name: k.(string), Range: s})
	}
	return out, nil
}

// splitList splits a comma-separated vsixmanifest value; "" gives an empty,
// non-nil list, as upstream's asStringList does.
func splitList(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}

// tagList applies upstream's getTags: split, group case-insensitively, sort
// by the lower-cased tag, keep the first spelling of each.
func tagList(s string) []string {
	seen := map[string]string{}
	var keys []string
	for _, t := range splitList(s) {
		k := strings.ToLower(t)
		if _, ok := seen[k]; !ok {
			seen[k] = t
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, seen[k])
	}
	return out
}

func containsField(s, want string) bool {
	for _, f := range strings.Fields(s) {
		if f == want {
			return true
		}
	}
	return false
}

// textValue is Jackson's JsonNode.textValue: the string, or "" (absent)
// for anything else.
func textValue(v any) string {
	s, _ := v.(string)
	return s
}
