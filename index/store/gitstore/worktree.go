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

	"github.com/airvsx/airvsx/internal/atomicfile"
	"github.com/airvsx/airvsx/internal/copybuf"
)

// updateWorkTree brings a work tree and the index in step with a commit
// that changed the files in changes: each is written (a temp file renamed
// into place) and its index entry set with the file's stat data, so git
// status shows a clean tree without hashing anything. Without an index
// (a new repository), one is made for the whole tree.
func (s *gitStore) updateWorkTree(ctx context.Context, changes map[string]plumbing.Hash) error {
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
func (s *gitStore) checkoutFile(root *os.Root, p string, h plumbing.Hash) error {
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
	// A fixed temp name (".tmp-" + the file's), so that one a killed
	// writer left is replaced here rather than kept; import skips them.
	tmp := filepath.FromSlash(path.Join(path.Dir(p), ".tmp-"+path.Base(p)))
	if err := root.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	t, err := atomicfile.In(root).CreateNamed(tmp, 0o644)
	if err != nil {
		return err
	}
	defer t.Cleanup()
	if _, err := copybuf.Copy(t, r); err != nil {
		return err
	}
	return t.Commit(name)
}

// walkFiles calls fn for every regular file under the tree h.
func (s *gitStore) walkFiles(h plumbing.Hash, prefix string, fn func(p string, h plumbing.Hash)) error {
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

// writeIndex2 writes the index atomically and durably: index.lock
// (created exclusively, so that a git running at the same time and this
// writer exclude each other), then a rename.
func (s *gitStore) writeIndex2(idx *index.Index) error {
	p := filepath.Join(s.gitDir, "index")
	t, err := atomicfile.FS{}.CreateNamed(p+".lock", 0o644)
	if err != nil {
		return fmt.Errorf("lock the index: %w", err)
	}
	defer t.Cleanup()
	if err := index.NewEncoder(t).Encode(idx); err != nil {
		return err
	}
	return t.Commit(p)
}
