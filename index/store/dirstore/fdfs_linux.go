package dirstore

import (
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// fdFS is an fdDir as an fs.FS, for the reads of a layout check: Open
// opens regular files and directories only, Stat is Lstat (a symbolic
// link is an error, never followed), and ReadDir lists with getdents64.
type fdFS struct{ d *fdDir }

// Open opens name, a regular file or a directory.
func (f fdFS) Open(name string) (fs.File, error) {
	fd, st, err := f.open(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &fdFile{fd: fd, name: name, st: st, fsys: f}, nil
}

// open opens name, a regular file or a directory, checked as
// openRegular checks a file.
func (f fdFS) open(name string) (int, *unix.Stat_t, error) {
	if name != "." {
		return f.d.openChecked(name, -1, true)
	}
	fd, err := f.d.openBeneath(".", unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return -1, nil, err
	}
	st := new(unix.Stat_t)
	if err := unix.Fstat(fd, st); err != nil {
		unix.Close(fd)
		return -1, nil, err
	}
	return fd, st, nil
}

// Lstat stats name without following a final symbolic link.
func (f fdFS) Lstat(name string) (fs.FileInfo, error) {
	fi, err := f.d.lstat(name)
	if err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	return fi, nil
}

// Stat is Lstat, except that a symbolic link is an error: this file
// system follows none.
func (f fdFS) Stat(name string) (fs.FileInfo, error) {
	fi, err := f.Lstat(name)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: errHeld}
	}
	return fi, err
}

// ReadFile reads the regular file name.
func (f fdFS) ReadFile(name string) ([]byte, error) {
	b, err := f.d.readFile(name, -1)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return b, nil
}

// ReadDir lists the directory name sorted by file name, each entry's
// type from its d_type (an lstat where the file system gives none).
func (f fdFS) ReadDir(name string) ([]fs.DirEntry, error) {
	fd, err := f.d.openBeneath(name, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	defer unix.Close(fd)
	out, err := f.list(fd, name)
	if err != nil {
		return out, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	return out, nil
}

// list lists the directory name, open as fd, sorted by file name.
func (f fdFS) list(fd int, name string) ([]fs.DirEntry, error) {
	names, err := readDirFD(fd, func(n string) (fs.FileMode, error) {
		fi, err := f.d.lstat(path.Join(name, n))
		if err != nil {
			return 0, err
		}
		return fi.Mode().Type(), nil
	})
	out := make([]fs.DirEntry, 0, len(names))
	for _, e := range names {
		out = append(out, fdDirEntry{typedName: e, fsys: f, dir: name})
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, err
}

// fdDirEntry is an entry fdFS.ReadDir or fdFile.ReadDir listed.
type fdDirEntry struct {
	typedName
	fsys fdFS
	dir  string
}

func (e fdDirEntry) Name() string               { return e.name }
func (e fdDirEntry) IsDir() bool                { return e.typ.IsDir() }
func (e fdDirEntry) Type() fs.FileMode          { return e.typ }
func (e fdDirEntry) Info() (fs.FileInfo, error) { return e.fsys.Lstat(path.Join(e.dir, e.name)) }
func (e fdDirEntry) String() string             { return fs.FormatDirEntry(e) }

// fdFile is a file fdFS opened, read with read(2), or a directory,
// listed with getdents64.
type fdFile struct {
	fd   int
	name string
	st   *unix.Stat_t
	fsys fdFS          // what opened a directory
	off  int64         // of a regular file: the bytes read
	dir  []fs.DirEntry // a directory's entries not yet returned by ReadDir
	read bool          // the directory was listed
}

// ReadDir returns the next n entries of a directory (fs.ReadDirFile),
// sorted by name.
func (f *fdFile) ReadDir(n int) ([]fs.DirEntry, error) {
	if f.st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return nil, &fs.PathError{Op: "readdir", Path: f.name, Err: unix.ENOTDIR}
	}
	if !f.read {
		f.read = true
		dir, err := f.fsys.list(f.fd, f.name)
		if err != nil {
			return nil, &fs.PathError{Op: "readdir", Path: f.name, Err: err}
		}
		f.dir = dir
	}
	if n <= 0 {
		out := f.dir
		f.dir = nil
		return out, nil
	}
	if len(f.dir) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(f.dir))
	out := f.dir[:n:n]
	f.dir = f.dir[n:]
	return out, nil
}

// Stat returns the file's fstat when it was opened.
func (f *fdFile) Stat() (fs.FileInfo, error) { return newStatInfo(path.Base(f.name), f.st), nil }

// Read reads from a regular file, up to the size fstat gave when it was
// opened: the file as it was then, which a reader checks against a
// digest, and its end known without the read that would return 0.
func (f *fdFile) Read(p []byte) (int, error) {
	if f.st.Mode&unix.S_IFMT == unix.S_IFREG {
		if f.off >= f.st.Size {
			return 0, io.EOF
		}
		p = p[:min(int64(len(p)), f.st.Size-f.off)]
	}
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := unix.Read(f.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, &fs.PathError{Op: "read", Path: f.name, Err: err}
		case n == 0:
			return 0, io.EOF
		}
		f.off += int64(n)
		return n, nil
	}
}

// Close closes the file.
func (f *fdFile) Close() error {
	if f.fd < 0 {
		return fs.ErrClosed
	}
	err := unix.Close(f.fd)
	f.fd = -1
	return err
}

// statInfo is an fs.FileInfo of a unix.Stat_t.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func newStatInfo(name string, st *unix.Stat_t) *statInfo {
	return &statInfo{name: name, st: *st}
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.st }

// Mode is the file's mode, as os.Lstat gives it.
func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & unix.S_IFMT {
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if s.st.Mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
