//go:build !unix

package site

import (
	"path/filepath"
	"strings"
)

// sameFileSystem reports whether a and b are on one volume.
func sameFileSystem(a, b string) (bool, error) {
	return strings.EqualFold(filepath.VolumeName(a), filepath.VolumeName(b)), nil
}
