// Package store owns the registry's storage format: how one entry is laid
// out as an OCI 1.1 artifact, and the stores that hold those artifacts.
//
// # The artifact
//
// An entry (one extension, version and target platform) is one OCI image
// manifest with artifactType ArtifactType, the empty config
// (application/vnd.oci.empty.v1+json, "{}") and one layer per file, in the
// fixed order of Roles. BuildManifest writes it and ParseManifest reads it;
// ParseManifest accepts exactly the bytes BuildManifest writes:
//
//   - schemaVersion 2, mediaType application/vnd.oci.image.manifest.v1+json,
//     artifactType ArtifactType, config the empty descriptor (with its data
//     "e30="), no subject, no urls, no platform;
//   - every layer has a known Role (annotation vnd.airvsx.role), a title
//     (org.opencontainers.image.title) that is a safe file name, the media
//     type MediaTypeFor gives for its role and title, a digest
//     "sha256:<64 lowercase hex>" and a size >= 0; no other layer
//     annotations;
//   - exactly one vsix layer, at most one layer per role, layers in role
//     order;
//   - the manifest annotations are exactly org.opencontainers.image.created
//     (RFC 3339, UTC, the upstream publish time: never the wall clock),
//     vnd.airvsx.id, vnd.airvsx.version (strict SemVer), vnd.airvsx.platform,
//     vnd.airvsx.prerelease ("true" or "false") and, when upstream published
//     one, vnd.airvsx.upstream.sha256, which must equal the vsix layer's
//     digest;
//   - the bytes are canonical: compact JSON in the field order above, so
//     the same entry always has the same digest.
//
// Each entry lives in the repository Repo(id) ("<ns>/<name>", lower-cased,
// since identity is case-insensitive) under the tag Tag(platform, version)
// ("<platform>-<version>" with "+" written "_").
//
// # Stores
//
// A Store keeps blobs and tags per repository, the signed metadata, and a
// quarantine of rejected downloads. Dir is the directory store; the git and
// OCI-registry stores implement the same interface, and
// index/store/storetest is the conformance suite every implementation runs.
//
// Every name a store is given is checked before it touches storage, because
// registries arrive on USB sticks and are hostile: repositories are
// "<ns>/<name>" with both parts index.ValidName, lower-case, not a Windows
// reserved device name and not shaped like an 8.3 short-name alias ("~"
// then a digit); digests are "sha256:<64 lowercase hex>"; tags follow the
// OCI grammar [A-Za-z0-9_][A-Za-z0-9._-]{0,127}; metadata names are clean
// relative slash paths of at most 8 elements, each element
// [A-Za-z0-9][A-Za-z0-9._-]* and not a reserved device name. A bad name is
// an error wrapping ErrInvalidName.
//
// Reads verify: OpenBlob hashes while reading, never reads more than the
// expected size + 1 bytes, and fails at EOF with ErrMismatch when the bytes
// are not the ones the digest names. Writes are crash-safe: see Dir.
package store
