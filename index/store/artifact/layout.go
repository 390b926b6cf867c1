package artifact

import "strings"

// The registry layout: the tree of files the directory store keeps, and
// the git store keeps in its commits.
const (
	// MarkerFile marks a directory as a registry; it holds
	// {"kind":"airvsx-registry","format":DirFormat}.
	MarkerFile = "airvsx-registry"
	// DirFormat is the version of the directory layout this package
	// reads and writes.
	DirFormat = 1
	// MaxIndexBytes caps the size of an index.json a store reads.
	MaxIndexBytes = 8 << 20

	extensionsDir = "extensions"
)

// repoDir is where repo lives in the layout.
func repoDir(repo string) string { return extensionsDir + "/" + repo }

// BlobName returns where a blob of repo lives in a directory registry, as
// a slash path relative to the registry's root
// ("extensions/<ns>/<name>/blobs/sha256/<hex>"): the name reports give
// for the file. The names are not checked.
func BlobName(repo, digest string) string {
	return repoDir(repo) + "/blobs/sha256/" + strings.TrimPrefix(digest, "sha256:")
}
