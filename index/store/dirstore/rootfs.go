package dirstore

import (
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// rootFS is the file system of an os.Root (os.Root.FS) whose ReadDir
// takes each entry's type from the directory listing itself where the
// platform gives it (readDirTypes), instead of the lstat per entry that
// os.Root's own ReadDir makes: a registry's listing of 200,000
// repositories, or of every blob of a repository, costs one system call
// per batch of names rather than one per name. Everything else is the
// os.Root's file system, so a path still never leaves the root.
type rootFS struct {
	r   *os.Root
	fsy fs.FS // r.FS()
}

// newRootFS returns the file system of r.
func newRootFS(r *os.Root) fs.FS { return &rootFS{r: r, fsy: r.FS()} }

// Open opens name (os.Root.FS).
func (f *rootFS) Open(name string) (fs.File, error) { return f.fsy.Open(name) }

// ReadFile reads name (os.Root.FS).
func (f *rootFS) ReadFile(name string) ([]byte, error) { return fs.ReadFile(f.fsy, name) }

// Stat stats name, following a final symlink within the root (os.Root.FS).
func (f *rootFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(f.fsy, name) }

// Lstat stats name without following a final symlink (os.Root.FS).
func (f *rootFS) Lstat(name string) (fs.FileInfo, error) { return fs.Lstat(f.fsy, name) }

// ReadLink reads the symlink name (os.Root.FS).
func (f *rootFS) ReadLink(name string) (string, error) { return fs.ReadLink(f.fsy, name) }

// ReadDir lists the directory name sorted by file name, as fs.ReadDirFS
// says, with each entry's type from the listing (an lstat only where the
// listing does not say); Info stats the entry then.
func (f *rootFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	d, err := f.r.Open(name)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	entries, err := readDirTypes(d, func(n string) (fs.FileMode, error) {
		fi, err := f.r.Lstat(path.Join(name, n))
		if err != nil {
			return 0, err
		}
		return fi.Mode().Type(), nil
	})
	out := make([]fs.DirEntry, 0, len(entries))
	for _, e := range entries {
		out = append(out, &dirEntry{name: e.name, typ: e.typ, r: f.r, dir: name})
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	if err != nil {
		return out, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	return out, nil
}

// typedName is a directory entry's name and type.
type typedName struct {
	name string
	typ  fs.FileMode
}

// dirEntry is an entry rootFS.ReadDir listed.
type dirEntry struct {
	name string
	typ  fs.FileMode
	r    *os.Root
	dir  string
}

func (e *dirEntry) Name() string      { return e.name }
func (e *dirEntry) IsDir() bool       { return e.typ.IsDir() }
func (e *dirEntry) Type() fs.FileMode { return e.typ }
func (e *dirEntry) Info() (fs.FileInfo, error) {
	return e.r.Lstat(path.Join(e.dir, e.name))
}
func (e *dirEntry) String() string { return fs.FormatDirEntry(e) }
