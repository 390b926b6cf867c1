package vsix

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Extract writes the archive's files into dir, which must not exist yet
// (its parent must). It creates dir, opens it with os.OpenRoot so that no
// path can leave it, creates every file exclusively with mode 0644 and
// every directory with mode 0755 (whatever modes the archive declares),
// never creates a link, and checks every file's size and CRC-32 while
// writing. On any failure, including ctx being cancelled, it removes dir
// and everything written into it.
func (a *Archive) Extract(ctx context.Context, dir string) (err error) {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("extract %s: %w", dir, err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	defer func() {
		if err != nil {
			if rerr := os.RemoveAll(dir); rerr != nil {
				err = errors.Join(err, fmt.Errorf("remove partial extraction: %w", rerr))
			}
		}
	}()
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	defer root.Close()

	buf := make([]byte, 32<<10)
	for i, e := range a.entries {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("extract %s: %w", dir, err)
		}
		name := filepath.FromSlash(e.Name)
		if e.Dir {
			if err := root.MkdirAll(name, 0o755); err != nil {
				return fmt.Errorf("extract %s: %w", dir, err)
			}
			continue
		}
		if parent := filepath.Dir(name); parent != "." {
			if err := root.MkdirAll(parent, 0o755); err != nil {
				return fmt.Errorf("extract %s: %w", dir, err)
			}
		}
		if err := a.extractFile(ctx, root, i, name, buf); err != nil {
			return fmt.Errorf("extract %s: %w", dir, err)
		}
	}
	return nil
}

// extractFile writes entry i to name below root, checking ctx between
// chunks.
func (a *Archive) extractFile(ctx context.Context, root *os.Root, i int, name string, buf []byte) (err error) {
	w, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := w.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	var er entryReader
	if err := a.reset(&er, i); err != nil {
		return err
	}
	defer er.release()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, rerr := er.Read(buf)
		if n > 0 {
			if _, err := w.Write(buf[:n]); err != nil {
				return err
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return rerr
		}
	}
}
