package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/airvsx/airvsx/internal/copybuf"
)

// updateWorkTree brings a work tree and the index in step with a commit
// that changed the files in changes: each is written (a temp file renamed
// into place) and its index entry set with the file's stat data, so git
// status shows a clean tree without hashing anything. Without an index
// (a new repository), one is made for the whole tree.
func (s *Store) updateWorkTree(ctx context.Context, changes map[string]plumbing.Hash) error {
	root, err := os.OpenRoot(s.workTree)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, p := range slices.Sorted(maps.Keys(changes)) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.checkoutFile(root, p, changes[p]); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	idx, err := s.st.Index()
	switch {
	case errors.Is(err, fs.ErrNotExist) || err == nil && len(idx.Entries) == 0:
		idx = &index.Index{Version: 2}
		s.mu.Lock()
		tree := s.root
		s.mu.Unlock()
		changes = map[string]plumbing.Hash{}
		if err := s.walkFiles(tree, "", func(p string, h plumbing.Hash) { changes[p] = h }); err != nil {
			return err
		}
	case err != nil:
		return fmt.Errorf("read the index: %w", err)
	}
	byName := make(map[string]*index.Entry, len(idx.Entries))
	for _, e := range idx.Entries {
		byName[e.Name] = e
	}
	for p, h := range changes {
		e := byName[p]
		if e == nil {
			e = &index.Entry{Name: p}
			idx.Entries = append(idx.Entries, e)
			byName[p] = e
		}
		*e = index.Entry{Name: p, Hash: h, Mode: filemode.Regular}
		if fi, err := root.Lstat(filepath.FromSlash(p)); err == nil {
			fillStat(e, fi)
		}
	}
	slices.SortFunc(idx.Entries, func(a, b *index.Entry) int { return strings.Compare(a.Name, b.Name) })
	idx.Cache = nil // the cached trees no longer match; git rebuilds them
	return s.writeIndex2(idx)
}

// checkoutFile writes blob h to the work tree at p.
func (s *Store) checkoutFile(root *os.Root, p string, h plumbing.Hash) (err error) {
	name := filepath.FromSlash(p)
	if err := root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	if fi, err := root.Lstat(name); err == nil && fi.IsDir() {
		return fmt.Errorf("a directory is in the way")
	}
	r, _, err := s.openBlob(h)
	if err != nil {
		return err
	}
	defer r.Close()
	tmp := path.Join(path.Dir(p), ".tmp-"+path.Base(p))
	f, err := root.OpenFile(filepath.FromSlash(tmp), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if f != nil {
			f.Close()
		}
		if err != nil {
			root.Remove(filepath.FromSlash(tmp))
		}
	}()
	if _, err := copybuf.Copy(f, r); err != nil {
		return err
	}
	err, f = f.Close(), nil
	if err != nil {
		return err
	}
	return root.Rename(filepath.FromSlash(tmp), name)
}

// walkFiles calls fn for every regular file under the tree h.
func (s *Store) walkFiles(h plumbing.Hash, prefix string, fn func(p string, h plumbing.Hash)) error {
	if h.IsZero() {
		return nil
	}
	t, err := s.readTree(h)
	if err != nil {
		return err
	}
	for _, e := range t.Entries {
		switch e.Mode {
		case filemode.Dir:
			if err := s.walkFiles(e.Hash, prefix+e.Name+"/", fn); err != nil {
				return err
			}
		case filemode.Regular, filemode.Executable:
			fn(prefix+e.Name, e.Hash)
		}
	}
	return nil
}

// writeIndex2 writes the index atomically: index.lock, then a rename.
func (s *Store) writeIndex2(idx *index.Index) (err error) {
	p := filepath.Join(s.gitDir, "index")
	lock := p + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("lock the index: %w", err)
	}
	defer func() {
		if err != nil {
			os.Remove(lock)
		}
	}()
	if err := index.NewEncoder(f).Encode(idx); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(lock, p)
}
