package gallery

import (
	"strconv"
	"strings"

	"github.com/airvsx/airvsx/index"
)

// The asset types of every version's files, and the properties.
const (
	AssetVSIX      = "Microsoft.VisualStudio.Services.VSIXPackage"
	AssetManifest  = "Microsoft.VisualStudio.Code.Manifest"
	AssetDetails   = "Microsoft.VisualStudio.Services.Content.Details"
	AssetChangelog = "Microsoft.VisualStudio.Services.Content.Changelog"
	AssetLicense   = "Microsoft.VisualStudio.Services.Content.License"
	AssetIcon      = "Microsoft.VisualStudio.Services.Icons.Default"
	AssetSignature = "Microsoft.VisualStudio.Services.VsixSignature"
	// AssetSource is the repository link: a property (VS Code reads it
	// from the properties), not a file.
	AssetSource = "Microsoft.VisualStudio.Services.Links.Source"

	PropEngine        = "Microsoft.VisualStudio.Code.Engine"
	PropDependencies  = "Microsoft.VisualStudio.Code.ExtensionDependencies"
	PropExtensionPack = "Microsoft.VisualStudio.Code.ExtensionPack"
	PropPreRelease    = "Microsoft.VisualStudio.Code.PreRelease"
	PropWebExtension  = "Microsoft.VisualStudio.Code.WebExtension"
)

// fileTypes are the files every version has, in the order written.
var fileTypes = []string{AssetVSIX, AssetManifest, AssetDetails, AssetChangelog, AssetLicense, AssetIcon}

// vscodeTarget is the Target criterion VS Code always sends.
const vscodeTarget = "Microsoft.VisualStudio.Code"

// Query answers q: the whole response body,
// {"results":[{"extensions":[...],"pagingToken":null,"resultMetadata":[...]}]},
// one result per filter. base is the server's public base URL without a
// trailing slash; asset URLs start with it. The work is that of the page
// asked for plus, for a filter that narrows the catalog, of what matches.
func (ix *Index) Query(q *Query, base string) ([]byte, error) {
	base = strings.TrimRight(base, "/")
	flags := q.Flags
	b := make([]byte, 0, 4096)
	b = append(b, `{"results":[`...)
	for i := range q.Filters {
		if i > 0 {
			b = append(b, ',')
		}
		page, total := ix.run(&q.Filters[i])
		b = append(b, `{"extensions":[`...)
		for j, n := range page {
			if j > 0 {
				b = append(b, ',')
			}
			x := &ix.exts[n]
			b = x.appendJSON(b, x.selectVersions(flags, ""), flags, base)
		}
		b = append(b, `],"pagingToken":null,"resultMetadata":[{"metadataType":"ResultCount","metadataItems":[{"name":"TotalCount","count":`...)
		b = strconv.AppendInt(b, int64(total), 10)
		b = append(b, `}]}]}`...)
	}
	b = append(b, "]}"...)
	return b, nil
}

// latestFlags are what Latest includes: as VS Code's search asks (950).
const latestFlags = FlagIncludeFiles | FlagIncludeCategoryAndTags | FlagIncludeVersionProperties |
	FlagIncludeInstallTargets | FlagIncludeAssetURI | FlagIncludeStatistics | FlagLatestPreAndStableOnly

// Latest returns the gallery extension JSON of ns.name (any case), as
// Open VSX's /vscode/gallery/{ns}/{name}/latest answers and VS Code's
// extensionUrlTemplate expects. For a platform it lists the newest
// version built for it, or else the newest universal one; for platform
// "" (VS Code's URL names none, so a server passes "" when the request
// names no targetPlatform) the newest version of every platform, so that
// the client can pick its own. Where such a newest version is a
// pre-release, the newest stable one of the same platform follows it,
// so that a client that wants releases only need not ask again. It
// reports false when the catalog has no such extension or no build for
// platform.
func (ix *Index) Latest(ns, name string, platform index.Platform, base string) ([]byte, bool) {
	n, ok := ix.byKey[strings.ToLower(ns+"."+name)]
	if !ok {
		return nil, false
	}
	x := &ix.exts[n]
	want := platform
	if want != "" && !x.hasBuild(want) {
		want = index.Universal
	}
	vs := x.selectVersions(latestFlags, want)
	if len(vs) == 0 {
		return nil, false
	}
	return x.appendJSON(make([]byte, 0, 2048), vs, latestFlags, strings.TrimRight(base, "/")), true
}

func (x *ext) hasBuild(p index.Platform) bool {
	for _, q := range x.platforms {
		if q == p {
			return true
		}
	}
	return false
}

// selectVersions returns the builds flags ask for, newest first (the
// order of x.builds), restricted to platform unless it is "".
func (x *ext) selectVersions(flags Flags, platform index.Platform) []*index.Entry {
	all := flags&FlagIncludeVersions != 0
	latest := flags&FlagLatestVersionOnly != 0
	preAndStable := flags&FlagLatestPreAndStableOnly != 0
	if latest || preAndStable {
		all = false
	}
	if !all && !latest && !preAndStable {
		if flags&(FlagIncludeFiles|FlagIncludeVersionProperties|FlagIncludeAssetURI) == 0 {
			return nil
		}
		latest = true
	}
	out := make([]*index.Entry, 0, len(x.platforms)*2)
	// state by platform: 1 newest seen (stable), 2 newest seen
	// (pre-release), 3 its stable seen too.
	var state [16]uint8
	for i := range x.builds {
		e := &x.builds[i]
		if platform != "" && e.Platform != platform {
			continue
		}
		if all {
			out = append(out, e)
			continue
		}
		k := x.platformSlot(e.Platform)
		switch {
		case state[k] == 0:
			state[k] = 1
			if e.PreRelease {
				state[k] = 2
			}
			out = append(out, e)
		case state[k] == 2 && preAndStable && !e.PreRelease:
			state[k] = 3
			out = append(out, e)
		}
	}
	return out
}

// platformSlot numbers a platform among x's (at most the 12 there are).
func (x *ext) platformSlot(p index.Platform) int {
	for i, q := range x.platforms {
		if q == p {
			return i & 15
		}
	}
	return 15
}

// appendJSON appends x as one gallery extension with the versions vs.
func (x *ext) appendJSON(b []byte, vs []*index.Entry, flags Flags, base string) []byte {
	l := x.latest
	b = append(b, `{"publisher":{"publisherId":"`...)
	b = append(b, x.pubUUID...)
	b = append(b, `","publisherName":`...)
	b = appendString(b, x.id.Namespace)
	b = append(b, `,"displayName":`...)
	b = appendString(b, x.id.Namespace)
	b = append(b, `,"flags":"","domain":null,"isDomainVerified":false},"extensionId":"`...)
	b = append(b, x.uuid...)
	b = append(b, `","extensionName":`...)
	b = appendString(b, x.id.Name)
	b = append(b, `,"displayName":`...)
	if l.DisplayName != "" {
		b = appendString(b, l.DisplayName)
	} else {
		b = appendString(b, x.id.Name)
	}
	b = append(b, `,"flags":"validated, public","lastUpdated":`...)
	b = appendTime(b, x.updated)
	b = append(b, `,"publishedDate":`...)
	b = appendTime(b, x.released)
	b = append(b, `,"releaseDate":`...)
	b = appendTime(b, x.released)
	b = append(b, `,"shortDescription":`...)
	b = appendString(b, l.Description)
	b = append(b, `,"versions":[`...)
	for i, e := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = x.appendVersion(b, e, flags, base)
	}
	b = append(b, ']')
	if flags&FlagIncludeCategoryAndTags != 0 {
		b = append(b, `,"categories":`...)
		b = appendStrings(b, l.Categories)
		b = append(b, `,"tags":`...)
		b = appendStrings(b, x.tags())
	}
	if flags&FlagIncludeStatistics != 0 {
		b = append(b, `,"statistics":[]`...)
	}
	if flags&FlagIncludeInstallTargets != 0 {
		b = append(b, `,"installationTargets":[{"target":"Microsoft.VisualStudio.Code","targetVersion":""}]`...)
	}
	return append(b, `,"deploymentType":0}`...)
}

// appendVersion appends one build as a gallery version.
func (x *ext) appendVersion(b []byte, e *index.Entry, flags Flags, base string) []byte {
	specific := e.Platform != index.Universal && e.Platform != ""
	b = append(b, `{"version":`...)
	b = appendString(b, e.Version)
	if specific {
		b = append(b, `,"targetPlatform":`...)
		b = appendString(b, string(e.Platform))
	}
	b = append(b, `,"flags":"validated","lastUpdated":`...)
	b = appendTime(b, e.Published)
	if flags&(FlagIncludeFiles|FlagIncludeAssetURI) != 0 {
		mark := len(b)
		b = append(b, `,"assetUri":`...)
		b = appendAssetURI(b, base, x.id, e.Version)
		uri := b[mark+len(`,"assetUri":`):]
		b = append(b, `,"fallbackAssetUri":`...)
		b = append(b, uri...)
	}
	if flags&FlagIncludeFiles != 0 {
		b = append(b, `,"files":[`...)
		for i, t := range fileTypes {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendFile(b, base, x.id, e, t)
		}
		if e.Upstream.Signed {
			b = append(b, ',')
			b = appendFile(b, base, x.id, e, AssetSignature)
		}
		b = append(b, ']')
	}
	if flags&FlagIncludeVersionProperties != 0 {
		b = append(b, `,"properties":[`...)
		first := true
		prop := func(k, v string) {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, `{"key":"`...)
			b = append(b, k...)
			b = append(b, `","value":`...)
			b = appendString(b, v)
			b = append(b, '}')
		}
		if e.Engine != "" {
			prop(PropEngine, e.Engine)
		}
		prop(PropDependencies, joinIDs(e.Dependencies))
		prop(PropExtensionPack, joinIDs(e.ExtensionPack))
		if e.PreRelease {
			prop(PropPreRelease, "true")
		}
		if e.Platform == index.Web {
			prop(PropWebExtension, "true")
		}
		if e.Repository != "" {
			prop(AssetSource, e.Repository)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendAssetURI appends "{base}/vscode/asset/{ns}/{name}/{version}" as
// a JSON string. IDs and versions are made of characters a URL path
// takes as they are (index.ValidName, SemVer); New checks.
func appendAssetURI(b []byte, base string, id index.ID, version string) []byte {
	b = append(b, '"')
	b = appendRaw(b, base)
	b = append(b, "/vscode/asset/"...)
	b = append(b, id.Namespace...)
	b = append(b, '/')
	b = append(b, id.Name...)
	b = append(b, '/')
	b = append(b, version...)
	return append(b, '"')
}

// appendRaw appends s escaped for the inside of a JSON string.
func appendRaw(b []byte, s string) []byte {
	q := appendString(b, s)
	// drop the quotes appendString added around s
	copy(q[len(b):], q[len(b)+1:len(q)-1])
	return q[:len(q)-2]
}

// appendFile appends one files[] element: the asset's URL, with
// ?targetPlatform= for a platform-specific build.
func appendFile(b []byte, base string, id index.ID, e *index.Entry, assetType string) []byte {
	b = append(b, `{"assetType":"`...)
	b = append(b, assetType...)
	b = append(b, `","source":`...)
	b = appendAssetURI(b, base, id, e.Version)
	b = b[:len(b)-1] // reopen the string
	b = append(b, '/')
	b = append(b, assetType...)
	if e.Platform != index.Universal && e.Platform != "" {
		b = append(b, "?targetPlatform="...)
		b = append(b, e.Platform...)
	}
	return append(b, `"}`...)
}

func joinIDs(ids []index.ID) string {
	switch len(ids) {
	case 0:
		return ""
	case 1:
		return ids[0].String()
	}
	var sb strings.Builder
	for i, id := range ids {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(id.String())
	}
	return sb.String()
}
