// Package store is the storage contract: the Store interface every place
// that holds a registry implements, the optional capabilities a store may
// also offer, the errors callers branch on, the name checks, and helpers
// that read any Store verified.
//
// A Store keeps blobs and tags per repository, the signed metadata, and a
// quarantine of rejected downloads. The stores themselves live beside
// this package: index/store/dirstore (a local directory),
// index/store/gitstore (a git repository) and index/store/ocistore (an
// OCI distribution registry); the entry format they hold is
// index/store/artifact, and index/store/storetest is the conformance
// suite every implementation runs.
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
// are not the ones the digest names. Writes are crash-safe: see dirstore.Store.
package store
