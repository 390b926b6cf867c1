// Package gallery answers the VS Code extension gallery API that VS Code
// with a custom product.json, VSCodium and code-server speak:
// POST {serviceUrl}/extensionquery and the latest-version route. It is a
// pure library over one verified catalog; package serve owns the HTTP
// side and serves the URLs written here.
//
// # Building and querying
//
// New builds every index once per catalog snapshot (by ID, by UUID, by
// lower-cased publisher, by category and tag, a search-token index and
// the precomputed sort orders); the Index is immutable afterwards and
// safe for concurrent use. ParseQuery reads a request body strictly and
// within fixed bounds (MaxQueryBytes, MaxFilters, MaxCriteria,
// MaxPageSize, MaxPageNumber, MaxSearchText, MaxAssetTypes): anything
// outside them is an error that says what was wrong, never a clamp.
// Index.Query writes the whole response body, refusing one of several
// extensions larger than MaxResponseBytes; Index.Latest one extension
// as Open VSX's /vscode/gallery/{ns}/{name}/latest does.
//
// # Filters
//
// Within one filter, criteria of the same type are alternatives and
// criteria of different types must all hold. ExtensionId (4) and
// ExtensionName (7) name extensions directly (their union, in the
// order asked, unknown ones skipped). Category (5) and Tag (1) compare
// case-insensitively. SearchText (10) is split into words that must all
// match, each as a prefix of a word of the extension's ID, name,
// display name, tags or description; publisher:NAME or publisher:"NAME"
// inside it keeps the extensions of that publisher. Target (8) is
// "Microsoft.VisualStudio.Code" (no restriction) or a target platform
// (extensions with a build for it or a universal one); any other target
// matches nothing. ExcludeWithFlags (12) must be a number and excludes
// nothing: a catalog holds no unpublished or unvalidated extension.
// Featured (9) matches nothing: a registry features nothing. Other
// filter types are ignored, so that a newer client still gets answers.
//
// # Versions
//
// Flag 0x200 (IncludeLatestVersionOnly) lists, for each target platform,
// the newest version (pre-releases included); 0x10000 adds, for each
// platform whose newest version is a pre-release, its newest stable
// version too; 0x1 (IncludeVersions) lists every version. Without any of
// these, a query that asks for files (0x2), version properties (0x10) or
// asset URIs (0x80) gets the 0x200 list and any other none. Versions are
// newest first (SemVer), builds of one version in platform order, as
// VS Code expects. Every version carries the property
// Microsoft.VisualStudio.Code.Engine when the catalog knows the engine,
// so that VS Code does not fetch every manifest to learn it.
//
// # Sort orders
//
// Title (2) and PublisherName (3) sort ascending by default, the dates
// (LastUpdatedDate 1, PublishedDate 5 and 10) newest first; SortOrder 1
// and 2 force ascending and descending. Relevance (0) with search text
// ranks matches in the ID, name, display name and tags above matches in
// the description, whole-word matches above prefixes, and an exact ID or
// name first. A registry has no statistics: InstallCount (4),
// AverageRating (6), WeightedRating (12), any other order and relevance
// without search text sort by title.
//
// # Identity and statistics
//
// The gallery wants a UUID for every extension and publisher. They are
// derived, not stored: the first 16 bytes of SHA-256 over
// "airvsx gallery extension\x00" plus the lower-cased ID (or
// "airvsx gallery publisher\x00" plus the lower-cased namespace), with
// the version bits set to 8 and the variant to RFC 9562's, so every
// replica of a registry answers the same UUIDs (ExtensionUUID,
// PublisherUUID). Statistics are never invented: the statistics list is
// empty, which VS Code reads as no installs and no rating.
package gallery
