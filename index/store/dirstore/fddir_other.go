//go:build !linux

package dirstore

import "os"

// topDir returns the registry's directory root as a held directory.
func topDir(root *os.Root) (heldDir, error) { return &rootDir{r: root}, nil }
