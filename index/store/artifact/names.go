package artifact

import (
	"strings"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
)

// Repo returns the repository of an extension: "<ns>/<name>", lower-cased.
// Identity is case-insensitive, and lower case also keeps two spellings of
// one ID from colliding on case-insensitive filesystems (FAT, NTFS).
func Repo(id index.ID) string {
	return strings.ToLower(id.Namespace) + "/" + strings.ToLower(id.Name)
}

// CheckEntryName reports whether an entry for id at version for platform
// can be stored in every place: its repository name (CheckRepo; a
// Windows device name such as "con" cannot) and its tag (Tag; a version
// with a long build suffix can make one longer than 128 characters).
// sync refuses such a package before downloading it, and inspect reports
// the same error.
func CheckEntryName(id index.ID, version string, platform index.Platform) error {
	if err := store.CheckRepo(Repo(id)); err != nil {
		return err
	}
	_, err := Tag(platform, version)
	return err
}
