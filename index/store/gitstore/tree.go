package gitstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// errNotFile is wrapped when a path names a directory, a symbolic link or
// a submodule where a regular file is wanted.
var errNotFile = errors.New("not a regular file")

// lookup returns the blob at path (a slash path of the registry's tree)
// as the current change sees it: written since the last commit, else in
// the commit read.
func (s *gitStore) lookup(path string) (plumbing.Hash, bool, error) {
	s.mu.Lock()
	h, ok := s.pending[path]
	root := s.root
	_, isDir := s.kids[path]
	s.mu.Unlock()
	if !ok && isDir {
		return plumbing.ZeroHash, false, fmt.Errorf("%s: a directory: %w", path, errNotFile)
	}
	if ok {
		return h, true, nil
	}
	return s.lookupIn(root, path)
}

// lookupIn finds the regular file at path in the tree root.
func (s *gitStore) lookupIn(root plumbing.Hash, path string) (plumbing.Hash, bool, error) {
	if root.IsZero() {
		return plumbing.ZeroHash, false, nil
	}
	elems := strings.Split(path, "/")
	h := root
	for i, name := range elems {
		e, err := s.findIn(h, name)
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		if e == nil {
			return plumbing.ZeroHash, false, nil
		}
		last := i == len(elems)-1
		switch {
		case last && (e.Mode == filemode.Regular || e.Mode == filemode.Executable):
			return e.Hash, true, nil
		case last:
			return plumbing.ZeroHash, false, fmt.Errorf("%s: mode %s: %w", path, e.Mode, errNotFile)
		case e.Mode != filemode.Dir:
			return plumbing.ZeroHash, false, nil
		}
		h = e.Hash
	}
	return plumbing.ZeroHash, false, nil
}

// dirEntry is one name in a directory: a file or a directory.
type dirEntry struct {
	name  string
	isDir bool
	mode  filemode.FileMode
}

// list returns the names in the directory dir ("" for the root) as the
// current change sees them, sorted; an empty list when dir does not exist.
func (s *gitStore) list(dir string) ([]dirEntry, error) {
	s.mu.Lock()
	root := s.root
	seen := map[string]dirEntry{}
	for name, isDir := range s.kids[dir] {
		seen[name] = dirEntry{name: name, isDir: isDir, mode: filemode.Regular}
	}
	s.mu.Unlock()
	h, err := s.dirIn(root, dir)
	if err != nil {
		return nil, err
	}
	if !h.IsZero() {
		t, err := s.readTree(h)
		if err != nil {
			return nil, err
		}
		for _, e := range t.Entries {
			if _, ok := seen[e.Name]; !ok {
				seen[e.Name] = dirEntry{name: e.Name, isDir: e.Mode == filemode.Dir, mode: e.Mode}
			}
		}
	}
	out := make([]dirEntry, 0, len(seen))
	for _, e := range seen {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b dirEntry) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// dirIn returns the tree at dir in root; zero when there is none.
func (s *gitStore) dirIn(root plumbing.Hash, dir string) (plumbing.Hash, error) {
	if root.IsZero() || dir == "" {
		return root, nil
	}
	h := root
	for _, name := range strings.Split(dir, "/") {
		e, err := s.findIn(h, name)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if e == nil || e.Mode != filemode.Dir {
			return plumbing.ZeroHash, nil
		}
		h = e.Hash
	}
	return h, nil
}

// buildTree writes the trees of base with changes (relative slash path →
// blob) applied, and returns the new root tree. Only the trees on the way
// to a change are read and written.
func (s *gitStore) buildTree(ctx context.Context, base plumbing.Hash, changes map[string]plumbing.Hash) (plumbing.Hash, error) {
	if err := ctx.Err(); err != nil {
		return plumbing.ZeroHash, err
	}
	entries := map[string]object.TreeEntry{}
	if !base.IsZero() {
		t, err := s.readTree(base)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		for _, e := range t.Entries {
			entries[e.Name] = e
		}
	}
	subs := map[string]map[string]plumbing.Hash{}
	for p, h := range changes {
		name, rest, isDir := strings.Cut(p, "/")
		if !isDir {
			entries[name] = object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h}
			continue
		}
		if subs[name] == nil {
			subs[name] = map[string]plumbing.Hash{}
		}
		subs[name][rest] = h
	}
	for name, sub := range subs {
		var subBase plumbing.Hash
		if e, ok := entries[name]; ok && e.Mode == filemode.Dir {
			subBase = e.Hash
		}
		h, err := s.buildTree(ctx, subBase, sub)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries[name] = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
	}
	t := &object.Tree{}
	for _, e := range entries {
		t.Entries = append(t.Entries, e)
	}
	slices.SortFunc(t.Entries, func(a, b object.TreeEntry) int { return strings.Compare(sortName(a), sortName(b)) })
	mo := &plumbing.MemoryObject{}
	if err := t.Encode(mo); err != nil {
		return plumbing.ZeroHash, err
	}
	r, err := mo.Reader()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer r.Close()
	var buf bytes.Buffer
	buf.ReadFrom(r)
	return s.writeObject(ctx, plumbing.TreeObject, int64(buf.Len()), &buf, nil)
}

// sortName is the name git sorts a tree entry by: a directory's with a
// trailing slash.
func sortName(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

// notExist is the error of a path that is not there.
func notExist(what string) error { return fmt.Errorf("%s: %w", what, fs.ErrNotExist) }
