package gitstore

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// ImportDir adds every regular file of fsys (a directory registry's
// tree) to the change as it is: no name, digest or layout is checked
// beyond each path being a clean relative slash path, so a damaged
// registry stays damaged. It is for moving a directory registry into git
// as one commit and for tests of damaged registries; the stores' own
// writes go through the checked methods. Files and directories whose
// names start with ".tmp-" (a killed writer's) and anything that is not a
// regular file or directory are skipped. Files are streamed.
func (s *gitStore) ImportDir(ctx context.Context, fsys fs.FS) error {
	if err := s.writable(); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	return fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p != "." && strings.HasPrefix(e.Name(), ".tmp-") || e.Name() == ".git" {
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !e.Type().IsRegular() || path.Clean(p) != p || strings.Contains(p, `\`) {
			return nil
		}
		f, err := fsys.Open(p)
		if err != nil {
			return fmt.Errorf("import %s: %w", p, err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return fmt.Errorf("import %s: %w", p, err)
		}
		h, err := s.writeObject(ctx, plumbing.BlobObject, fi.Size(), f, nil)
		if err != nil {
			return fmt.Errorf("import %s: %w", p, err)
		}
		s.mu.Lock()
		s.setPending(p, h)
		s.mu.Unlock()
		return nil
	})
}
