// Package ocistore is the store of a registry kept in an OCI
// distribution registry, the place "docker://HOST[:PORT]/PREFIX":
//
//	PREFIX/<ns>/<name>          one repository per extension: the blobs of
//	                            its entries, each entry manifest tagged
//	                            <platform>-<version> (the same bytes as in
//	                            the directory store), and, when the store
//	                            signs, a cosign signature of each entry
//	                            manifest tagged sha256-<hex>.sig
//	PREFIX/airvsx-metadata      the TUF metadata and the catalog: one
//	                            manifest, tag "metadata", with one layer per
//	                            file (its name in the layer's title); each
//	                            WriteMetadata moves the tag once, so readers
//	                            see every file old or new, and the writer's
//	                            timestamp.json, written last, is the commit
//	                            point
//	PREFIX/airvsx-quarantine    one manifest per quarantine, tagged with its
//	                            name (".N" for the Nth of one name)
//
// A blob is uploaded only when a HEAD says the repository lacks it, and
// then mounted from another repository of the registry that this store
// has seen holding it, where the registry supports mounts. An upload
// streams the content (memory stays flat whatever the blob's size),
// hashing it on the way, and is committed (the final PUT with the digest)
// only when the bytes sent are the ones the digest and size name; else the
// upload session is cancelled and nothing is stored. A failed upload is
// retried from the first byte (store.Content.Rewind).
//
// Every request is retried with exponential backoff after a network error,
// a 429 or a 5xx, honouring Retry-After, and at most Options.Concurrency
// requests are in flight. Credentials come from the docker configuration
// and its credential helpers (authn.DefaultKeychain) unless Options.Keychain
// says otherwise; a request the registry refuses for want of them (401,
// 403) fails wrapping ErrUnauthorized, naming the registry and saying to
// log in, and CheckAccess finds that with one request. TLS uses the
// system roots or Options.RootCAs; plain HTTP only with Options.Insecure,
// which Open refuses for anything but a loopback or private address
// unless Options.AllowInsecureRemote is also set. The store dials only the host of its place, and the hosts
// Options.AlsoDial names (a token service or blob storage elsewhere).
//
// The store speaks to the registry through go-containerregistry: its
// transports authenticate (basic credentials, or a bearer token per
// repository) and its remote package pushes and deletes manifests and
// lists tags and the catalog page by page. What it cannot do is done here
// by hand, each part saying why: the retrying transport under the
// authentication (retry.go: Retry-After), the dialer's allow-list
// (store.go), manifest reads (tags.go: the store's size cap, and
// redirects to the hosts Options.AlsoDial names), and blob reads and the
// verified streaming upload (blobs.go).
//
// Manifests are blobs in the store.Store contract; here each manifest is
// also uploaded as a blob, so OpenBlob reads it through the blob API (and
// falls back to the manifest API for a manifest something else pushed).
//
// Only cmd/airvsx imports this package: it is the one store that can dial,
// and readers (verify, site) take a store.Store without linking it.
package ocistore
