//go:build !linux

package gitstore

import (
	"errors"
	"os"
)

// noteWritten records an object file for syncObjects.
func (s *Store) noteWritten(path string) {
	s.mu.Lock()
	s.written = append(s.written, path)
	s.mu.Unlock()
}

// syncObjects makes every object written since the last Commit durable:
// where there is no syncfs(2), one fsync per object.
func (s *Store) syncObjects() error {
	s.mu.Lock()
	files := s.written
	s.written = nil
	s.mu.Unlock()
	var errs []error
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, f.Sync(), f.Close())
	}
	return errors.Join(errs...)
}
