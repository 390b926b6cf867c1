package gallery

import (
	"fmt"
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
// asked for plus, for a filter that narrows the catalog, of what matches;
// the body is allocated once, at a bound on its size that New worked out.
// A response of several extensions that would be larger than
// MaxResponseBytes is refused with an error wrapping ErrBadQuery and
// ErrTooLarge: a page of a thousand extensions with every version of
// each could otherwise run to tens of megabytes. One extension is always
// answered whole, however many builds it has: VS Code asks for every
// version of one extension to find a compatible one.
func (ix *Index) Query(q *Query, base string) ([]byte, error) {
	esc := escapeBase(base)
	answers := ix.answer(q)
	size, many := ix.bound(q, answers, esc)
	if size > MaxResponseBytes && many {
		return nil, tooLarge(size)
	}
	return ix.render(make([]byte, 0, size), q, answers, esc), nil
}

func tooLarge(size int) error {
	return fmt.Errorf("%w: %w: the answer would be up to %d bytes, more than %d; ask for fewer extensions a page, or for the latest versions only (flag 0x200)",
		ErrBadQuery, ErrTooLarge, size, MaxResponseBytes)
}

// MaxResponseBytes bounds a Query response that lists more than one
// extension.
const MaxResponseBytes = 16 << 20

// bound returns a bound on the size of the response to q and whether it
// lists more than one extension.
func (ix *Index) bound(q *Query, answers []answer, esc string) (size int, many bool) {
	exts := 0
	escBase := len(esc)
	size = 64
	var sel []int32
	for _, a := range answers {
		size += 160
		exts += len(a.page)
		for _, n := range a.page {
			x := &ix.exts[n]
			size += int(x.hdrSize) + 1
			sel = x.selectVersions(sel[:0], q.Flags, "")
			for _, i := range sel {
				size += int(x.sizes[i]) + urlsPerBuild*escBase
			}
		}
	}
	return size, exts > 1
}

// AppendQuery appends Query's response to dst and returns it, for a
// server that keeps its own buffers; it refuses what Query refuses.
func (ix *Index) AppendQuery(dst []byte, q *Query, base string) ([]byte, error) {
	esc := escapeBase(base)
	answers := ix.answer(q)
	if size, many := ix.bound(q, answers, esc); size > MaxResponseBytes && many {
		return dst, tooLarge(size)
	}
	return ix.render(dst, q, answers, esc), nil
}

// escapeBase returns base without trailing slashes, escaped for the
// inside of a JSON string: what the URLs begin with.
func escapeBase(base string) string {
	return string(appendRaw(nil, strings.TrimRight(base, "/")))
}

// answer is one filter's page and how many extensions match it.
type answer struct {
	page  []int32
	total int
}

func (ix *Index) answer(q *Query) []answer {
	out := make([]answer, len(q.Filters))
	for i := range q.Filters {
		out[i].page, out[i].total = ix.run(&q.Filters[i])
	}
	return out
}

func (ix *Index) render(b []byte, q *Query, answers []answer, esc string) []byte {
	b = append(b, `{"results":[`...)
	var sel []int32
	for i, a := range answers {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"extensions":[`...)
		for j, n := range a.page {
			if j > 0 {
				b = append(b, ',')
			}
			x := &ix.exts[n]
			sel = x.selectVersions(sel[:0], q.Flags, "")
			b = x.appendJSON(b, sel, q.Flags, esc)
		}
		b = append(b, `],"pagingToken":null,"resultMetadata":[{"metadataType":"ResultCount","metadataItems":[{"name":"TotalCount","count":`...)
		b = strconv.AppendInt(b, int64(a.total), 10)
		b = append(b, `}]}]}`...)
	}
	return append(b, "]}"...)
}

// urlsPerBuild is how many times a version's JSON holds the base URL at
// most: assetUri, fallbackAssetUri and eight files.
const urlsPerBuild = 10

// allFlags asks for every part of an extension: what New measures.
const allFlags = FlagIncludeFiles | FlagIncludeCategoryAndTags | FlagIncludeVersionProperties |
	FlagIncludeInstallTargets | FlagIncludeAssetURI | FlagIncludeStatistics

// measure renders the parts of x's JSON that are the same in every
// response (head, catTags) and records the size of x's JSON without versions and of each
// build's version JSON, with every flag and an empty base: with the
// base's length per URL added, a bound on any response's size.
func (x *ext) measure(scratch []byte) []byte {
	x.head = string(x.appendHead(scratch[:0]))
	x.catTags = string(x.appendCatTags(scratch[:0]))
	scratch = x.appendJSON(scratch[:0], nil, allFlags, "")
	x.hdrSize = uint32(len(scratch))
	x.sizes = make([]uint32, len(x.builds))
	for i := range x.builds {
		scratch = x.appendVersion(scratch[:0], i, allFlags, "")
		x.sizes[i] = uint32(len(scratch)) + 1 // and a comma
	}
	return scratch
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
	vs := x.selectVersions(nil, latestFlags, want)
	if len(vs) == 0 {
		return nil, false
	}
	return x.appendJSON(make([]byte, 0, 2048), vs, latestFlags, escapeBase(base)), true
}

func (x *ext) hasBuild(p index.Platform) bool {
	for _, q := range x.platforms {
		if q == p {
			return true
		}
	}
	return false
}

// selectVersions appends to dst the indexes in x.builds of the builds
// flags ask for, newest first (the order of x.builds), restricted to
// platform unless it is "".
func (x *ext) selectVersions(dst []int32, flags Flags, platform index.Platform) []int32 {
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
	out := dst
	// state by platform: 1 newest seen (stable), 2 newest seen
	// (pre-release), 3 its stable seen too.
	var state [16]uint8
	for i := range x.builds {
		e := &x.builds[i]
		if platform != "" && e.Platform != platform {
			continue
		}
		if all {
			out = append(out, int32(i))
			continue
		}
		k := x.platformSlot(e.Platform)
		switch {
		case state[k] == 0:
			state[k] = 1
			if e.PreRelease {
				state[k] = 2
			}
			out = append(out, int32(i))
		case state[k] == 2 && preAndStable && !e.PreRelease:
			state[k] = 3
			out = append(out, int32(i))
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
// esc is the base URL, escaped (escapeBase).
func (x *ext) appendJSON(b []byte, vs []int32, flags Flags, esc string) []byte {
	b = append(b, x.head...)
	for i, n := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = x.appendVersion(b, int(n), flags, esc)
	}
	b = append(b, ']')
	if flags&FlagIncludeCategoryAndTags != 0 {
		b = append(b, x.catTags...)
	}
	if flags&FlagIncludeStatistics != 0 {
		b = append(b, `,"statistics":[]`...)
	}
	if flags&FlagIncludeInstallTargets != 0 {
		b = append(b, `,"installationTargets":[{"target":"Microsoft.VisualStudio.Code","targetVersion":""}]`...)
	}
	return append(b, `,"deploymentType":0}`...)
}

// appendHead appends the start of x's JSON, which no flag or base
// changes: up to the opening of its versions array.
func (x *ext) appendHead(b []byte) []byte {
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
	b = append(b, `,"flags":"validated, public","lastUpdated":"`...)
	b = append(b, x.updatedText...)
	b = append(b, `","publishedDate":"`...)
	b = append(b, x.releasedText...)
	b = append(b, `","releaseDate":"`...)
	b = append(b, x.releasedText...)
	b = append(b, `","shortDescription":`...)
	b = appendString(b, l.Description)
	return append(b, `,"versions":[`...)
}

// appendCatTags appends x's categories and tags (flag 0x4).
func (x *ext) appendCatTags(b []byte) []byte {
	b = append(b, `,"categories":`...)
	b = appendStrings(b, x.latest.Categories)
	b = append(b, `,"tags":`...)
	return appendStrings(b, x.tags())
}

// appendVersion appends one build as a gallery version.
func (x *ext) appendVersion(b []byte, n int, flags Flags, esc string) []byte {
	e := &x.builds[n]
	specific := e.Platform != index.Universal && e.Platform != ""
	b = append(b, `{"version":`...)
	b = appendString(b, e.Version)
	if specific {
		b = append(b, `,"targetPlatform":`...)
		b = appendString(b, string(e.Platform))
	}
	b = append(b, `,"flags":"validated","lastUpdated":"`...)
	b = append(b, x.published[n]...)
	b = append(b, '"')
	if flags&(FlagIncludeFiles|FlagIncludeAssetURI) != 0 {
		mark := len(b)
		b = append(b, `,"assetUri":`...)
		b = x.appendAssetURI(b, esc, e.Version)
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
			b = x.appendFile(b, esc, e, t)
		}
		if e.Upstream.Signed {
			b = append(b, ',')
			b = x.appendFile(b, esc, e, AssetSignature)
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
func (x *ext) appendAssetURI(b []byte, esc string, version string) []byte {
	b = append(b, '"')
	b = append(b, esc...)
	b = append(b, x.assetPath...)
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
func (x *ext) appendFile(b []byte, esc string, e *index.Entry, assetType string) []byte {
	b = append(b, `{"assetType":"`...)
	b = append(b, assetType...)
	b = append(b, `","source":`...)
	b = x.appendAssetURI(b, esc, e.Version)
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
