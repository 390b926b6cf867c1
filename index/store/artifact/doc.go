// Package artifact is the registry's entry format: how one entry (an
// extension, version and target platform) is laid out as an OCI 1.1
// artifact, the OCI image index that tags it, and the file layout the
// directory and git stores keep.
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
package artifact
