// Package openvsxtest is an httptest server that speaks the Open VSX API
// from fixtures, with fault injection per path, for tests and the offline
// demo (cmd/openvsx-fixture).
//
// The fixtures are real .vsix files (testdata/vsix, built by a pinned vsce)
// plus an optional sidecar, openvsx-upstream.json, with what upstream knows
// beyond the package (publish time, counts, signing); see LoadFixtures.
// Fixtures can also be built in code (NewFromFixtures).
//
// Responses are shaped like open-vsx.org's (server v0.34 and later; see
// RegistryAPI.java and json/*.java in
// https://github.com/eclipse-openvsx/openvsx/tree/main/server/src/main/java/org/eclipse/openvsx):
// Jackson field order, null fields omitted, empty strings and lists kept,
// absolute URLs on the base the request came in on.
//
//	GET /api/{ns}                                      NamespaceJson
//	GET /api/{ns}/{ext}[/{platform}][/{version}]       ExtensionJson; version may be
//	                                                   "latest" or "pre-release"
//	GET /api/{ns}/{ext}[/{platform}]/versions          VersionsJson, paged
//	GET /api/{ns}/{ext}[/{platform}]/version-references VersionReferencesJson, paged
//	GET /api/{ns}/{ext}[/{platform}]/{version}/file/{name}
//	                                                   302 to /cdn/{ns}/{ext}[/{platform}]/{version}/{file}
//	GET /api/-/search                                  SearchResultJson (small subset)
//	GET /api/-/query                                   QueryResultJson (v1): ExtensionJson per
//	                                                   platform's latest, or per version with
//	                                                   includeAllVersions=true; paged (size 100)
//	GET /api/-/public-key/{KeyID}                      PEM of the Ed25519 key
//	GET /sitemap.xml                                   every extension's page and lastmod
//
// Rules, as upstream applies them:
//
//   - A third path segment is a target platform if it is one of the twelve
//     platform names, a version if it is strict SemVer or an alias, else no
//     route. Files of the universal build have no platform segment.
//   - "latest" is the newest version by SemVer (a version flagged
//     pre-release can be latest), universal first on ties; "pre-release"
//     the newest flagged pre-release. /api/{ns}/{ext} prefers universal.
//   - allVersions lists "latest", "pre-release" (when they exist), then at
//     most 100 versions, newest first.
//   - Paged endpoints take size (default 18; the query's 100) and offset
//     (default 0); the offset is rounded down to a multiple of size (the
//     query starts at the exact offset but reports it rounded down); a
//     negative value is a 400, size=0 a 500 (upstream divides by zero).
//   - Options.CDN puts the stored files on a second listener (another
//     origin, as open-vsx.org's CDN): the file URLs redirect there.
//   - Search returns nothing once offset+size passes 10,000.
//   - Versions are signed with one deterministic Ed25519 key (KeyID): the
//     .sigzip holds .signature.sig (64 bytes over the whole .vsix),
//     .signature.manifest and an empty .signature.p7s. An Unsigned fixture
//     has no signature and no publicKey; a NoFiles fixture has files {}.
//   - .sha256 files are lowercase hex without a newline.
//   - JSON answers carry an ETag ("0" + MD5 hex, as Spring's shallow ETag
//     filter) and honour If-None-Match with 304; HEAD works everywhere.
//
// A request the fixtures cannot answer fails the test (tb.Errorf) and gets
// a 404 with upstream's error shape, {"error": "..."}; a known extension's
// missing version or platform, and the IDs in Options.Missing, get
// upstream's own 404 instead. Server.Fault injects 429s, 503s, resets,
// truncated bodies, wrong checksums, bad signatures and slow answers on
// chosen paths; Server.Requests and Server.Count report what was asked.
package openvsxtest
