//go:build !linux

package dirstore

import (
	"io/fs"
	"os"
)

// readDirTypes lists the open directory d; each entry's type comes from
// the platform's own listing (an lstat each where it gives none).
func readDirTypes(d *os.File, _ func(name string) (fs.FileMode, error)) ([]typedName, error) {
	entries, err := d.ReadDir(-1)
	out := make([]typedName, 0, len(entries))
	for _, e := range entries {
		out = append(out, typedName{name: e.Name(), typ: e.Type()})
	}
	return out, err
}
