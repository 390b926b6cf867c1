package trust

import (
	"regexp"
	"strconv"
)

// versionedFile matches the names of the versioned roles' files:
// N.root.json, N.targets.json, N.snapshot.json.
var versionedFile = regexp.MustCompile(`^([1-9][0-9]{0,18})\.(root|targets|snapshot)\.json$`)

// catalogFile matches the names of the content-addressed catalogs (shards
// are matched by shardFile).
var catalogFile = regexp.MustCompile(`^targets/[0-9a-f]{64}\.catalog\.json$`)

// Names reports whether name is a file the registry's metadata/ holds
// under the chain t verified: root.json, timestamp.json, a catalog
// (targets/<sha256hex>.catalog.json, the current one and those of earlier
// serials) or a shard (targets/<sha256hex>.shard-<bin>.json), or N.root.json, N.targets.json or N.snapshot.json with N at
// most the version of its role that t verified (the current file and its
// history). Any other file is one the signed metadata does not name: no
// signature covers it, and nothing reads it.
func (t *Trusted) Names(name string) bool {
	switch {
	case name == RootFile, name == TimestampFile, catalogFile.MatchString(name), shardFile.MatchString(name), controlFile.MatchString(name):
		return true
	}
	m := versionedFile.FindStringSubmatch(name)
	if m == nil {
		return false
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return false
	}
	switch m[2] {
	case "root":
		return n <= t.Root.Version
	case "targets":
		return n <= t.Targets.Version
	}
	return n <= t.Snapshot.Version
}
