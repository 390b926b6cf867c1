package gitstore

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// FS returns the tree of the commit read as a read-only file system, so
// that a verifier walks it as it walks a directory registry and finds
// every path the commit holds, those the layout has no place for too (a
// file at the top, a symbolic link, a submodule). It implements
// fs.ReadDirFS and fs.ReadLinkFS: a directory entry's type is its tree
// entry's mode (a file whose mode is executable is a regular file with
// mode 0755), Lstat and ReadLink never follow a symbolic link, and Open
// refuses one. Files are streamed from their blobs, unchecked (the
// store's own reads check what they read). Writes not committed are not
// in it.
func (s *gitStore) FS() fs.FS {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &treeFS{s: s, root: s.root}
}

// treeFS is one commit's tree as an fs.FS.
type treeFS struct {
	s    *gitStore
	root plumbing.Hash
}

var (
	_ fs.ReadDirFS  = (*treeFS)(nil)
	_ fs.ReadLinkFS = (*treeFS)(nil)
)

// entryAt returns the entry at name (a valid fs path), without following
// a symbolic link: the root is a directory entry named ".".
func (t *treeFS) entryAt(op, name string) (treeInfo, error) {
	if !fs.ValidPath(name) {
		return treeInfo{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	info := treeInfo{name: ".", mode: filemode.Dir, hash: t.root}
	if t.root.IsZero() {
		return treeInfo{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	if name == "." {
		return info, nil
	}
	for _, elem := range strings.Split(name, "/") {
		if info.mode != filemode.Dir {
			return treeInfo{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		e, err := t.s.findIn(info.hash, elem)
		if err != nil {
			return treeInfo{}, &fs.PathError{Op: op, Path: name, Err: err}
		}
		if e == nil {
			return treeInfo{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		info = treeInfo{name: elem, mode: e.Mode, hash: e.Hash}
	}
	if info.mode == filemode.Regular || info.mode == filemode.Executable || info.mode == filemode.Symlink {
		n, err := t.s.objectSize(info.hash)
		if err != nil {
			return treeInfo{}, &fs.PathError{Op: op, Path: name, Err: err}
		}
		info.size = n
	}
	return info, nil
}

// Open opens a file or a directory; a symbolic link or a submodule is an
// error.
func (t *treeFS) Open(name string) (fs.File, error) {
	info, err := t.entryAt("open", name)
	if err != nil {
		return nil, err
	}
	switch info.mode {
	case filemode.Dir:
		entries, err := t.ReadDir(name)
		if err != nil {
			return nil, err
		}
		return &treeDir{info: info, entries: entries}, nil
	case filemode.Regular, filemode.Executable:
		rc, _, err := t.s.openBlob(info.hash)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return &treeFile{info: info, rc: rc}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("not a regular file or directory: mode " + info.mode.String())}
}

// ReadDir lists a directory, sorted by name.
func (t *treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	info, err := t.entryAt("readdir", name)
	if err != nil {
		return nil, err
	}
	if info.mode != filemode.Dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	tree, err := t.s.readTree(info.hash)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	out := make([]fs.DirEntry, 0, len(tree.Entries))
	for _, e := range tree.Entries {
		out = append(out, treeDirEntry{s: t.s, info: treeInfo{name: e.Name, mode: e.Mode, hash: e.Hash}})
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// Lstat describes the entry at name without following a symbolic link.
func (t *treeFS) Lstat(name string) (fs.FileInfo, error) {
	return t.entryAt("lstat", name)
}

// ReadLink returns the target of a symbolic link.
func (t *treeFS) ReadLink(name string) (string, error) {
	info, err := t.entryAt("readlink", name)
	if err != nil {
		return "", err
	}
	if info.mode != filemode.Symlink {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	b, err := t.s.readBlob(info.hash, 4096)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	return string(b), nil
}

// treeInfo describes a tree entry as an fs.FileInfo.
type treeInfo struct {
	name string
	mode filemode.FileMode
	hash plumbing.Hash
	size int64
}

func (i treeInfo) Name() string       { return path.Base(i.name) }
func (i treeInfo) Size() int64        { return i.size }
func (i treeInfo) ModTime() time.Time { return time.Time{} }
func (i treeInfo) IsDir() bool        { return i.mode == filemode.Dir }
func (i treeInfo) Sys() any           { return i.hash }

// Mode is the fs mode of the tree entry's git mode.
func (i treeInfo) Mode() fs.FileMode {
	switch i.mode {
	case filemode.Dir:
		return fs.ModeDir | 0o755
	case filemode.Regular:
		return 0o644
	case filemode.Executable:
		return 0o755
	case filemode.Symlink:
		return fs.ModeSymlink | 0o777
	}
	return fs.ModeIrregular // a submodule, or a mode git does not make
}

// treeDirEntry is an entry of a directory listing; Info looks up a
// file's size, which the listing does not read.
type treeDirEntry struct {
	s    *gitStore
	info treeInfo
}

func (d treeDirEntry) Name() string      { return d.info.name }
func (d treeDirEntry) IsDir() bool       { return d.info.IsDir() }
func (d treeDirEntry) Type() fs.FileMode { return d.info.Mode().Type() }
func (d treeDirEntry) String() string    { return fs.FormatDirEntry(d) }

// Info describes the entry, its size read from the object's header.
func (d treeDirEntry) Info() (fs.FileInfo, error) {
	info := d.info
	if m := info.mode; m == filemode.Regular || m == filemode.Executable || m == filemode.Symlink {
		n, err := d.s.objectSize(info.hash)
		if err != nil {
			return nil, &fs.PathError{Op: "stat", Path: info.name, Err: err}
		}
		info.size = n
	}
	return info, nil
}

// treeFile is an open file of a treeFS.
type treeFile struct {
	info treeInfo
	rc   io.ReadCloser
}

func (f *treeFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *treeFile) Read(p []byte) (int, error) { return f.rc.Read(p) }
func (f *treeFile) Close() error               { return f.rc.Close() }

// treeDir is an open directory of a treeFS.
type treeDir struct {
	info    treeInfo
	entries []fs.DirEntry
}

func (d *treeDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *treeDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: errors.New("is a directory")}
}
func (d *treeDir) Close() error { return nil }

// ReadDir returns the next n entries (all of them when n <= 0).
func (d *treeDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if n <= 0 {
		out := d.entries
		d.entries = nil
		return out, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.entries))
	out := d.entries[:n]
	d.entries = d.entries[n:]
	return out, nil
}
