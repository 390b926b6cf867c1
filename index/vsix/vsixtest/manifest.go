package vsixtest

import (
	"fmt"
	"strings"
)

// Asset is one asset an extension.vsixmanifest lists beside the manifest.
type Asset struct {
	Type string // e.g. "Microsoft.VisualStudio.Services.Content.Details"
	Path string // e.g. "extension/README.md"
}

// Asset types test packages use.
const (
	AssetReadme  = "Microsoft.VisualStudio.Services.Content.Details"
	AssetLicense = "Microsoft.VisualStudio.Services.Content.License"
)

// VSIXManifest returns an extension.vsixmanifest for a universal package
// the way vsce writes it: the identity, engine ^1.80.0, and the
// extension/package.json manifest asset followed by assets. A license
// asset is also named in Metadata, as vsce does.
func VSIXManifest(publisher, name, version string, assets ...Asset) string {
	var meta, list strings.Builder
	for _, a := range assets {
		if a.Type == AssetLicense {
			fmt.Fprintf(&meta, "    <License>%s</License>\n", a.Path)
		}
		fmt.Fprintf(&list, "    <Asset Type=%q Path=%q Addressable=\"true\" />\n", a.Type, a.Path)
	}
	return fmt.Sprintf(`<?xml version="1.0" encoding="utf-8"?>
<PackageManifest Version="2.0.0" xmlns="http://schemas.microsoft.com/developer/vsx-schema/2011" xmlns:d="http://schemas.microsoft.com/developer/vsx-schema-design/2011">
  <Metadata>
    <Identity Language="en-US" Id="%[2]s" Version="%[3]s" Publisher="%[1]s" />
    <DisplayName>%[2]s</DisplayName>
    <Description xml:space="preserve">A test extension built by vsixtest.</Description>
    <Tags></Tags>
    <Categories>Other</Categories>
    <GalleryFlags>Public</GalleryFlags>
    <Properties>
      <Property Id="Microsoft.VisualStudio.Code.Engine" Value="^1.80.0" />
      <Property Id="Microsoft.VisualStudio.Code.ExtensionKind" Value="workspace" />
    </Properties>
%[4]s  </Metadata>
  <Installation>
    <InstallationTarget Id="Microsoft.VisualStudio.Code"/>
  </Installation>
  <Dependencies/>
  <Assets>
    <Asset Type="Microsoft.VisualStudio.Code.Manifest" Path="extension/package.json" Addressable="true" />
%[5]s  </Assets>
</PackageManifest>
`, publisher, name, version, meta.String(), list.String())
}
