package index

import (
	"fmt"

	"github.com/Masterminds/semver/v3"
)

// ParseVersion parses an extension version: strict SemVer 2.0.0
// (MAJOR.MINOR.PATCH with optional pre-release and build metadata), as VS
// Code and Open VSX require. Loose forms such as "1.2" or "v1.2.3" are
// rejected, so a version string names exactly one version.
func ParseVersion(s string) (*semver.Version, error) {
	v, err := semver.StrictNewVersion(s)
	if err != nil {
		return nil, fmt.Errorf("version %q: %w", s, err)
	}
	return v, nil
}
