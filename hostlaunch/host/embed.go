package host

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// js holds the extension host's JavaScript; host.js is its entry point.
//
//go:embed js/*.js js/*.mjs
var js embed.FS

// writeHost writes the host's scripts into a new private directory under
// parent (the system's temporary directory when ""), read-only, and
// returns the directory.
func writeHost(parent string) (string, error) {
	dir, err := os.MkdirTemp(parent, "airvsx-host-")
	if err != nil {
		return "", fmt.Errorf("host scripts: %w", err)
	}
	err = fs.WalkDir(js, "js", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := js.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, d.Name()), b, 0o400)
	})
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("host scripts: %w", err)
	}
	return dir, nil
}
