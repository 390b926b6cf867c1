package vsix

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// node is a file or directory of the archive's tree.
type node struct {
	name  string // full path, "." for the root
	entry int    // index into Archive.entries, or -1 for implied directories
	dir   bool
	kids  []*node // sorted by name
}

// buildTree indexes the checked entries for fs.FS, adding the directories
// that names imply.
func (a *Archive) buildTree() {
	a.nodes = map[string]*node{".": {name: ".", entry: -1, dir: true}}
	var add func(name string) *node // returns the directory node name, creating it
	add = func(name string) *node {
		if n, ok := a.nodes[name]; ok {
			return n
		}
		n := &node{name: name, entry: -1, dir: true}
		a.nodes[name] = n
		parent := add(path.Dir(name))
		parent.kids = append(parent.kids, n)
		return n
	}
	for i, e := range a.entries {
		if e.Dir {
			add(e.Name).entry = i
			continue
		}
		n := &node{name: e.Name, entry: i}
		a.nodes[e.Name] = n
		parent := add(path.Dir(e.Name))
		parent.kids = append(parent.kids, n)
	}
	for _, n := range a.nodes {
		slices.SortFunc(n.kids, func(x, y *node) int { return strings.Compare(x.name, y.name) })
	}
}

// lookup returns the node of a valid fs.FS name.
func (a *Archive) lookup(op, name string) (*node, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	n, ok := a.nodes[name]
	if !ok {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return n, nil
}

// Open opens the named file or directory for reading (fs.FS). Reading a
// file fails, with an error naming the entry, if its data is longer or
// shorter than declared or does not match its CRC-32.
func (a *Archive) Open(name string) (fs.File, error) {
	n, err := a.lookup("open", name)
	if err != nil {
		return nil, err
	}
	if n.dir {
		return &dirFile{a: a, n: n}, nil
	}
	f := &file{info: a.info(n)}
	if err := a.reset(&f.r, n.entry); err != nil {
		return nil, err
	}
	return f, nil
}

// ReadFile returns the content of the named file (fs.ReadFileFS).
func (a *Archive) ReadFile(name string) ([]byte, error) {
	n, err := a.lookup("read", name)
	if err != nil {
		return nil, err
	}
	if n.dir {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	}
	var er entryReader
	if err := a.reset(&er, n.entry); err != nil {
		return nil, err
	}
	defer er.release()
	b := make([]byte, 0, a.entries[n.entry].Size+1)
	for {
		m, err := er.Read(b[len(b):cap(b)])
		b = b[:len(b)+m]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// ReadDir returns the named directory's entries sorted by name
// (fs.ReadDirFS).
func (a *Archive) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := a.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if !n.dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	out := make([]fs.DirEntry, len(n.kids))
	for i, k := range n.kids {
		out[i] = fs.FileInfoToDirEntry(a.info(k))
	}
	return out, nil
}

// info describes a node as extraction would create it: files 0644,
// directories 0755.
func (a *Archive) info(n *node) fileInfo {
	fi := fileInfo{name: path.Base(n.name), mode: 0o644}
	if n.dir {
		fi.mode = fs.ModeDir | 0o755
	}
	if n.entry >= 0 {
		fi.size = a.entries[n.entry].Size
		fi.mod = a.files[n.entry].Modified
	}
	return fi
}

type fileInfo struct {
	name string
	size int64
	mode fs.FileMode
	mod  time.Time
}

func (fi fileInfo) Name() string       { return fi.name }
func (fi fileInfo) Size() int64        { return fi.size }
func (fi fileInfo) Mode() fs.FileMode  { return fi.mode }
func (fi fileInfo) ModTime() time.Time { return fi.mod }
func (fi fileInfo) IsDir() bool        { return fi.mode.IsDir() }
func (fi fileInfo) Sys() any           { return nil }

// file is an open regular file of an Archive.
type file struct {
	info   fileInfo
	r      entryReader
	closed bool
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *file) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *file) Close() error {
	if f.closed {
		return fs.ErrClosed
	}
	f.closed = true
	f.r.release()
	return nil
}

// dirFile is an open directory of an Archive.
type dirFile struct {
	a   *Archive
	n   *node
	off int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.a.info(d.n), nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.n.name, Err: errors.New("is a directory")}
}
func (d *dirFile) Close() error { return nil }

// ReadDir implements fs.ReadDirFile.
func (d *dirFile) ReadDir(count int) ([]fs.DirEntry, error) {
	rest := d.n.kids[d.off:]
	if count > 0 && len(rest) > count {
		rest = rest[:count]
	}
	if count > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	out := make([]fs.DirEntry, len(rest))
	for i, k := range rest {
		out[i] = fs.FileInfoToDirEntry(d.a.info(k))
	}
	d.off += len(rest)
	return out, nil
}
