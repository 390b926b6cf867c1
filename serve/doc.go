// Package serve makes a verified registry an extension gallery for the
// editors of an air-gapped network: the Open VSX API that ovsx and Theia
// speak, the VS Code gallery that VSCodium and code-server speak (its
// query engine is a Gallery the caller plugs in, serve/gallery), the
// packages and their files, and the static catalog at "/". It is the
// only package of airvsx that listens.
//
// Trust. New verifies the registry before anything is served: the TUF
// chain from the operator's anchor (index/trust.Check, the same anchors
// and state directory verify uses, so a rollback below what verify or an
// earlier serve recorded is refused) and the catalog against the history
// recorded. The result is an immutable snapshot. Watch polls the place
// for a new timestamp; a changed one is verified the same way, plus it
// must not go back from the catalog being served, and only then does an
// atomic pointer swap to it: every request is answered from one
// snapshot, never a mix. A registry that fails is refused, logged, and
// the old snapshot keeps being served. Nothing is kept that a second
// replica over the same place would need.
//
// Bytes. Every blob a route serves is named by the verified catalog (the
// entry's manifest, read and checked against the catalog's digest, names
// the layers) and is checked against its digest. A directory store's
// file is hashed before its first byte is sent, then remembered as good
// by its identity (device, inode, size, modification time; a replaced
// file is hashed again) and served with Range and conditional requests
// (the ETag is the digest) from the file (sendfile). Other stores' blobs
// are streamed through the verifying reader, the last byte held back
// until the digest checks (a damaged blob is cut off), and spooled and
// checked first for a Range. Once the catalog's signed metadata expires
// nothing is served until a renewed registry verifies.
// No route takes a path from the request to the file system: names are
// parsed into an ID, a version, a platform and a role, and looked up.
//
// HTTP. Read, header, write and idle timeouts; bounded headers, bodies
// and page sizes; gzip for JSON; no directory listings; request logs in
// the Combined Log Format; graceful shutdown when the context ends; TLS
// from a certificate and key file.
package serve
