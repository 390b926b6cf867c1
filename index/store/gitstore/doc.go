// Package gitstore is the git store: a registry kept in a git repository,
// one signed commit per change ("git:PATH[#REF]").
//
// # The tree
//
// Every commit holds the tree of the directory store (dirstore.Store):
//
//	airvsx-registry                  the marker
//	metadata/<name>                  TUF metadata and the catalog
//	extensions/<ns>/<name>/          one OCI image layout per extension
//	    oci-layout, index.json, blobs/sha256/<hex>
//	quarantine/<name>[.N]/           rejected files, REASON and reason.json
//
// so a clone's work tree is a directory registry, and stock git carries it
// (clone, fetch, bundle, push).
//
// # Reading
//
// A reader reads git objects straight from the repository (loose or
// packed; bare or not), at HEAD or the branch, tag or commit the place
// names: no checkout. Blobs are streamed (objects larger than 1 MiB are
// never held in memory) and verified on read as every store's are; tree
// objects are hashed again when read, so a tree changed on disk is an
// error rather than a different registry.
//
// # Writing
//
// A writer writes each blob as a loose object (zlib, streamed, fsynced,
// renamed into objects/xx/...), hashing SHA-1 and SHA-256 in one pass, and
// keeps the change in memory until Commit: then it writes the changed trees,
// one commit whose parent is the branch's previous commit, signs it (SSH
// signature, namespace "git", SHA-512, with the operator's ECDSA P-256
// key: stock git verifies it with gpg.format=ssh and the allowed-signers
// line of AllowedSigner), and moves the branch by writing
// refs/heads/<branch>.lock and renaming it over the ref: that rename is
// the commit point. A writer killed before it leaves the branch at its
// previous signed commit. Its change is recorded as it goes (the journal
// airvsx-change in the git directory: one line per file written), so the
// next writer that starts from the same commit takes it over, each object
// hashed again first, and finishes it; another writer drops it (the
// objects stay unreferenced until git gc). In a repository with a work
// tree, the changed files and the index are brought in step after the
// commit. A writer holds an advisory lock (airvsx.lock in the git
// directory), so one process writes at a time.
//
// Commits are reproducible: the commit time is the created time of the
// catalog the change writes (of the highest serial, when it writes
// several), the author and committer are the identity
// given (or git's user.name and user.email, or "airvsx"), and the message
// is the writer's, followed by the tags added and removed.
//
// # Trust
//
// A git store implements store.History: CheckSignature checks that the
// commit read is signed by one of the given keys (VerifyCommit), and
// Descends that it descends from a commit an earlier run trusted, so a
// rewound or rewritten branch is refused (verify records the commit in
// its state directory). index/trust applies these commit rules for every
// reader and writer. FS is the tree read as an fs.FS, for a verifier
// that looks for paths the layout has no place for.
package gitstore
