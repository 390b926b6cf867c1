package vsix

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/airvsx/airvsx/index"
)

// VSIXManifestPath is the archive path of the VSIX package manifest.
const VSIXManifestPath = "extension.vsixmanifest"

// VSIXNamespace is the XML namespace of extension.vsixmanifest.
const VSIXNamespace = "http://schemas.microsoft.com/developer/vsx-schema/2011"

// Asset types and properties of extension.vsixmanifest that airvsx reads.
const (
	AssetManifest  = "Microsoft.VisualStudio.Code.Manifest"
	AssetReadme    = "Microsoft.VisualStudio.Services.Content.Details"
	AssetChangelog = "Microsoft.VisualStudio.Services.Content.Changelog"
	AssetLicense   = "Microsoft.VisualStudio.Services.Content.License"
	AssetIcon      = "Microsoft.VisualStudio.Services.Icons.Default"

	PropertyEngine                = "Microsoft.VisualStudio.Code.Engine"
	PropertyExtensionDependencies = "Microsoft.VisualStudio.Code.ExtensionDependencies"
	PropertyExtensionPack         = "Microsoft.VisualStudio.Code.ExtensionPack"
	PropertyPreRelease            = "Microsoft.VisualStudio.Code.PreRelease"
)

// Rules for extension.vsixmanifest.
const (
	// RuleXMLDirective: the XML has a DOCTYPE or another <!...> directive.
	// Entities are never expanded; a DOCTYPE is refused outright.
	RuleXMLDirective Rule = "xml-directive"
	// RuleXMLNamespace (warning): the root element is not in VSIXNamespace.
	RuleXMLNamespace Rule = "xml-namespace"
	// RuleUnknownPlatform: Identity TargetPlatform is not an index.Platform.
	RuleUnknownPlatform Rule = "unknown-platform"
	// RuleInvalidAsset: an Asset lacks a Type or a Path, or its Path is not
	// a valid archive path (io/fs.ValidPath).
	RuleInvalidAsset Rule = "invalid-asset"
	// RuleDuplicateAsset: two Assets of one Type name different paths.
	RuleDuplicateAsset Rule = "duplicate-asset"
)

// VSIXManifest is extension.vsixmanifest, the VSIX package manifest
// (namespace VSIXNamespace). Only the parts airvsx uses are kept;
// MarshalXML writes them back as a PackageManifest document.
type VSIXManifest struct {
	// Namespace is the root element's namespace: VSIXNamespace in every
	// package vsce makes.
	Namespace   string
	Identity    VSIXIdentity
	DisplayName string
	Description string
	Tags        string // comma-separated
	Categories  string // comma-separated
	// Properties in document order.
	Properties []Property
	License    string // Metadata/License: an archive path
	Icon       string // Metadata/Icon: an archive path
	Assets     []Asset
}

// VSIXIdentity is Metadata/Identity.
type VSIXIdentity struct {
	ID             string // the extension name (package.json name)
	Version        string
	Publisher      string
	TargetPlatform string // "" means universal
	Language       string
}

// Property is one Metadata/Properties/Property.
type Property struct {
	ID    string
	Value string
}

// Asset is one Assets/Asset.
type Asset struct {
	Type        string
	Path        string // archive path
	Addressable bool
}

// Assets are the archive paths of the files a catalog shows, "" when the
// package has none.
type Assets struct {
	Manifest  string
	Readme    string
	Changelog string
	License   string
	Icon      string
}

// vsixWire is the XML form of VSIXManifest.
type vsixWire struct {
	XMLName  xml.Name `xml:"PackageManifest"`
	Metadata struct {
		Identity struct {
			Language       string `xml:"Language,attr,omitempty"`
			ID             string `xml:"Id,attr,omitempty"`
			Version        string `xml:"Version,attr,omitempty"`
			Publisher      string `xml:"Publisher,attr,omitempty"`
			TargetPlatform string `xml:"TargetPlatform,attr,omitempty"`
		} `xml:"Identity"`
		DisplayName string `xml:"DisplayName,omitempty"`
		Description string `xml:"Description,omitempty"`
		Tags        string `xml:"Tags,omitempty"`
		Categories  string `xml:"Categories,omitempty"`
		Properties  []struct {
			ID    string `xml:"Id,attr"`
			Value string `xml:"Value,attr"`
		} `xml:"Properties>Property"`
		License string `xml:"License,omitempty"`
		Icon    string `xml:"Icon,omitempty"`
	} `xml:"Metadata"`
	Assets []struct {
		Type        string `xml:"Type,attr"`
		Path        string `xml:"Path,attr"`
		Addressable string `xml:"Addressable,attr,omitempty"`
	} `xml:"Assets>Asset"`
}

// ParseVSIXManifest parses extension.vsixmanifest. The caller caps the size
// of data. A leading UTF-8 byte order mark is skipped. It returns an error
// when data is not a single well-formed XML document with a PackageManifest
// root, or has a DOCTYPE (or any other <!...> directive); every other
// problem is recorded in r with File "extension.vsixmanifest" and Field an
// XPath such as "Metadata/Identity/@Version".
func ParseVSIXManifest(data []byte, r *Report) (*VSIXManifest, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if rule, err := checkXML(data); err != nil {
		r.Errorf(VSIXManifestPath, "", rule, "%v", err)
		return nil, fmt.Errorf("%s: %w", VSIXManifestPath, err)
	}
	var w vsixWire
	if err := newXMLDecoder(data).Decode(&w); err != nil {
		r.Errorf(VSIXManifestPath, "", RuleManifestSyntax, "%v", err)
		return nil, fmt.Errorf("%s: %w", VSIXManifestPath, err)
	}
	v := w.manifest()
	v.check(r)
	return v, nil
}

// UnmarshalXML decodes a PackageManifest element without the checks of
// ParseVSIXManifest, so a VSIXManifest inside other XML decodes the way it
// encodes. Use ParseVSIXManifest for untrusted input.
func (v *VSIXManifest) UnmarshalXML(d *xml.Decoder, start xml.StartElement) error {
	var w vsixWire
	if err := d.DecodeElement(&w, &start); err != nil {
		return err
	}
	*v = *w.manifest()
	return nil
}

func (w *vsixWire) manifest() *VSIXManifest {
	md := &w.Metadata
	v := &VSIXManifest{
		Namespace: w.XMLName.Space,
		Identity: VSIXIdentity{
			ID:             md.Identity.ID,
			Version:        md.Identity.Version,
			Publisher:      md.Identity.Publisher,
			TargetPlatform: md.Identity.TargetPlatform,
			Language:       md.Identity.Language,
		},
		DisplayName: md.DisplayName,
		Description: md.Description,
		Tags:        md.Tags,
		Categories:  md.Categories,
		License:     md.License,
		Icon:        md.Icon,
	}
	for _, p := range md.Properties {
		v.Properties = append(v.Properties, Property{ID: p.ID, Value: p.Value})
	}
	for _, a := range w.Assets {
		v.Assets = append(v.Assets, Asset{Type: a.Type, Path: a.Path, Addressable: strings.EqualFold(a.Addressable, "true")})
	}
	return v
}

func (v *VSIXManifest) check(r *Report) {
	if v.Namespace != VSIXNamespace {
		r.Warnf(VSIXManifestPath, "PackageManifest", RuleXMLNamespace, "namespace %q, want %q", v.Namespace, VSIXNamespace)
	}
	for _, f := range []struct{ name, val string }{
		{"Id", v.Identity.ID}, {"Version", v.Identity.Version}, {"Publisher", v.Identity.Publisher},
	} {
		if f.val == "" {
			r.Errorf(VSIXManifestPath, "Metadata/Identity/@"+f.name, RuleRequiredField, "Identity %s is required", f.name)
		}
	}
	if _, err := index.ParsePlatform(v.Identity.TargetPlatform); err != nil {
		r.Errorf(VSIXManifestPath, "Metadata/Identity/@TargetPlatform", RuleUnknownPlatform, "%v", err)
	}
	paths := make(map[string]string)
	for i, a := range v.Assets {
		field := fmt.Sprintf("Assets/Asset[%d]", i+1)
		switch {
		case a.Type == "":
			r.Errorf(VSIXManifestPath, field+"/@Type", RuleInvalidAsset, "Type is required")
		case a.Path == "":
			r.Errorf(VSIXManifestPath, field+"/@Path", RuleInvalidAsset, "Path is required")
		case !fs.ValidPath(a.Path) || a.Path == ".":
			r.Errorf(VSIXManifestPath, field+"/@Path", RuleInvalidAsset, "%q is not a valid archive path", a.Path)
		}
		if p, ok := paths[a.Type]; ok && p != a.Path {
			r.Errorf(VSIXManifestPath, field, RuleDuplicateAsset, "a second %s asset: %q, and before it %q", a.Type, a.Path, p)
		} else if !ok {
			paths[a.Type] = a.Path
		}
	}
}

// checkXML reads every token of data and refuses directives (a DOCTYPE,
// with or without entity declarations), more than one root element, and
// text outside the root, before anything is decoded.
func checkXML(data []byte) (Rule, error) {
	d := newXMLDecoder(data)
	depth, roots := 0, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return RuleManifestSyntax, err
		}
		switch t := tok.(type) {
		case xml.Directive:
			word, _, _ := strings.Cut(strings.TrimSpace(string(t)), " ")
			return RuleXMLDirective, fmt.Errorf("<!%.40s> refused: no DOCTYPE or other directive is allowed", word)
		case xml.StartElement:
			if depth == 0 {
				if roots++; roots > 1 {
					return RuleManifestSyntax, fmt.Errorf("line %d: a second root element <%s>", lineOf(d), t.Name.Local)
				}
			}
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				return RuleManifestSyntax, fmt.Errorf("line %d: text outside the root element", lineOf(d))
			}
		}
	}
	if roots == 0 {
		return RuleManifestSyntax, errors.New("no root element")
	}
	return "", nil
}

func lineOf(d *xml.Decoder) int {
	line, _ := d.InputPos()
	return line
}

// MarshalXML writes the manifest as a PackageManifest document holding the
// fields of v (whatever start says).
func (v VSIXManifest) MarshalXML(e *xml.Encoder, _ xml.StartElement) error {
	var w vsixWire
	w.XMLName = xml.Name{Space: v.Namespace, Local: "PackageManifest"}
	md := &w.Metadata
	md.Identity.ID = v.Identity.ID
	md.Identity.Version = v.Identity.Version
	md.Identity.Publisher = v.Identity.Publisher
	md.Identity.TargetPlatform = v.Identity.TargetPlatform
	md.Identity.Language = v.Identity.Language
	md.DisplayName, md.Description = v.DisplayName, v.Description
	md.Tags, md.Categories = v.Tags, v.Categories
	md.License, md.Icon = v.License, v.Icon
	for _, p := range v.Properties {
		md.Properties = append(md.Properties, struct {
			ID    string `xml:"Id,attr"`
			Value string `xml:"Value,attr"`
		}{p.ID, p.Value})
	}
	for _, a := range v.Assets {
		addr := ""
		if a.Addressable {
			addr = "true"
		}
		w.Assets = append(w.Assets, struct {
			Type        string `xml:"Type,attr"`
			Path        string `xml:"Path,attr"`
			Addressable string `xml:"Addressable,attr,omitempty"`
		}{a.Type, a.Path, addr})
	}
	return e.EncodeElement(w, xml.StartElement{Name: w.XMLName})
}

// Property returns the value of the first property with the given Id.
func (v *VSIXManifest) Property(id string) (string, bool) {
	for _, p := range v.Properties {
		if p.ID == id {
			return p.Value, true
		}
	}
	return "", false
}

// PreRelease reports whether the package is a pre-release (property
// Microsoft.VisualStudio.Code.PreRelease is "true").
func (v *VSIXManifest) PreRelease() bool {
	s, _ := v.Property(PropertyPreRelease)
	return s == "true"
}

// TargetPlatform returns Identity TargetPlatform as a platform: Universal
// when it is empty, "" when it is not a known platform.
func (v *VSIXManifest) TargetPlatform() index.Platform {
	p, _ := index.ParsePlatform(v.Identity.TargetPlatform)
	return p
}

// AssetPath returns the path of the first asset of the given type, or "".
func (v *VSIXManifest) AssetPath(assetType string) string {
	for _, a := range v.Assets {
		if a.Type == assetType {
			return a.Path
		}
	}
	return ""
}

// AssetPaths returns the catalog files' paths: from the Assets, falling
// back to Metadata License and Icon, and to extension/package.json for the
// manifest.
func (v *VSIXManifest) AssetPaths() Assets {
	a := Assets{
		Manifest:  v.AssetPath(AssetManifest),
		Readme:    v.AssetPath(AssetReadme),
		Changelog: v.AssetPath(AssetChangelog),
		License:   v.AssetPath(AssetLicense),
		Icon:      v.AssetPath(AssetIcon),
	}
	if a.Manifest == "" {
		a.Manifest = PackageJSONPath
	}
	if a.License == "" {
		a.License = v.License
	}
	if a.Icon == "" {
		a.Icon = v.Icon
	}
	return a
}

// newXMLDecoder is an xml.Decoder for data that reads only UTF-8 (or its
// ASCII subset): a manifest declaring another encoding is refused with a
// reason a person can act on, not encoding/xml's "CharsetReader is nil".
func newXMLDecoder(data []byte) *xml.Decoder {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.CharsetReader = func(label string, input io.Reader) (io.Reader, error) {
		switch strings.ToLower(label) {
		case "utf-8", "utf8", "us-ascii", "ascii":
			return input, nil
		}
		return nil, fmt.Errorf("the manifest declares encoding %q; only UTF-8 is read (vsce writes UTF-8): re-save it as UTF-8 with encoding=\"utf-8\"", label)
	}
	return d
}
