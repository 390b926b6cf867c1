package artifact

import (
	"fmt"
	"strings"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
)

// Tag returns the tag of an entry: "<platform>-<version>" with "+" (SemVer
// build metadata, which OCI tags cannot hold) written "_". SemVer never
// contains "_", so ParseTag can undo it. It fails for an unknown platform,
// a version that is not strict SemVer, or a tag longer than MaxTagLen.
func Tag(platform index.Platform, version string) (string, error) {
	if !platform.Valid() {
		return "", fmt.Errorf("tag: unknown platform %q", platform)
	}
	if _, err := index.ParseVersion(version); err != nil {
		return "", fmt.Errorf("tag: %w", err)
	}
	tag := string(platform) + "-" + strings.ReplaceAll(version, "+", "_")
	if err := store.CheckTag(tag); err != nil {
		return "", fmt.Errorf("tag for %s@%s: %w", version, platform, err)
	}
	return tag, nil
}

// ParseTag undoes Tag. The platform set is closed and versions start with
// a digit, so the split is unambiguous. Tags that Tag does not make (such
// as a signature's "sha256-<hex>.sig") are errors.
func ParseTag(tag string) (index.Platform, string, error) {
	if err := store.CheckTag(tag); err != nil {
		return "", "", err
	}
	for _, p := range index.Platforms {
		rest, ok := strings.CutPrefix(tag, string(p)+"-")
		if !ok {
			continue
		}
		version := strings.ReplaceAll(rest, "_", "+")
		if _, err := index.ParseVersion(version); err != nil {
			return "", "", fmt.Errorf("tag %q: %w", tag, err)
		}
		return p, version, nil
	}
	return "", "", fmt.Errorf("tag %q: does not start with a target platform and \"-\"", tag)
}
