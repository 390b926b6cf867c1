// Package madedir undoes os.MkdirAll: it removes the directories a
// command made for a path, and only those, when they are still empty.
package madedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Missing returns the outermost directory of path that does not exist:
// the first one os.MkdirAll(path) makes. It returns "" when path exists.
func Missing(path string) string {
	p := filepath.Clean(path)
	if _, err := os.Lstat(p); err == nil {
		return ""
	}
	for {
		parent := filepath.Dir(p)
		if parent == p {
			return p
		}
		if _, err := os.Lstat(parent); err == nil {
			return p
		}
		p = parent
	}
}

// Remove removes path and then its parents up to top (what Missing
// returned before they were made), innermost first, each only while it
// is empty: a directory another process wrote in stays, and so do its
// parents. One already gone is passed over. top "" removes nothing.
func Remove(path, top string) error {
	if top == "" {
		return nil
	}
	top = filepath.Clean(top)
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		err := os.Remove(p)
		switch {
		case err == nil, errors.Is(err, fs.ErrNotExist):
		case isNotEmpty(err):
			return nil
		default:
			return fmt.Errorf("remove %s: %w", p, err)
		}
		if p == top || filepath.Dir(p) == p {
			return nil
		}
	}
}
