package dirstore

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// On Linux a read-only store holds its directories as bare file
// descriptors (fdDir) and reads through them with the system calls
// themselves: an os.File costs four fcntl calls and an epoll_ctl on
// every open (it tries to make the file non-blocking and to register it
// with the poller), and an os.Root an allocation per component and a
// finalizer; for a registry of many small entries that overhead is most
// of what verify spends. The rules of every access are those of
// os.Root and of safefile, kept the same way:
//
//   - a path is resolved below the directory and never through a
//     symbolic link (openat2 with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS,
//     or, where the kernel has no openat2 (before 5.6) or a sandbox
//     refuses it, one component at a time with O_NOFOLLOW, ".." refused);
//   - a file's type and size are checked with an lstat before it is
//     opened, so that no device or pipe is opened; the open uses
//     O_NONBLOCK, and the opened file is checked again with fstat and
//     must be the file the lstat saw;
//   - nothing larger than its cap is read.
//
// Every failure is an error and nothing more: a held directory's caller
// repeats a failed access from the registry's root (os.Root, safefile),
// whose errors are the ones reported.

// errHeld is what an fdDir reports for an access it does not make itself
// (a symbolic link met, a name it does not take, a file that changed
// under it); the caller repeats the access from the registry's root,
// which says what is wrong.
var errHeld = errors.New("not read through the held directory")

// fdResolver is what the fdDirs of one store share: whether openat2
// works here.
type fdResolver struct {
	noOpenat2 atomic.Bool
}

// fdDir is a directory held open as a file descriptor.
type fdDir struct {
	fd  int
	res *fdResolver
}

// topDir returns the registry's directory root as a held directory: a
// duplicate of a descriptor of the directory root resolves, which the
// held directory owns.
func topDir(root *os.Root) (heldDir, error) {
	f, err := root.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	cerr := rc.Control(func(sys uintptr) {
		fd, err = unix.FcntlInt(sys, unix.F_DUPFD_CLOEXEC, 0)
	})
	if cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, os.NewSyscallError("fcntl", err)
	}
	return &fdDir{fd: fd, res: &fdResolver{}}, nil
}

// openBeneath opens rel, a slash path below d (fs.ValidPath; "." is d
// itself), with flags, through no symbolic link and no "..".
func (d *fdDir) openBeneath(rel string, flags int) (int, error) {
	if !fs.ValidPath(rel) {
		return -1, errHeld
	}
	flags |= unix.O_CLOEXEC | unix.O_NOFOLLOW
	if !d.res.noOpenat2.Load() {
		fd, err := retry(func() (int, error) {
			return unix.Openat2(d.fd, rel, &unix.OpenHow{
				Flags:   uint64(flags),
				Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
			})
		})
		if err != unix.ENOSYS && err != unix.EPERM {
			return fd, err
		}
		// No openat2 here (an old kernel), or a sandbox that refuses it.
		d.res.noOpenat2.Store(true)
	}
	return d.openEach(rel, flags)
}

// openEach opens rel one component at a time, each directory with
// O_NOFOLLOW|O_DIRECTORY, the last with flags (which hold O_NOFOLLOW).
func (d *fdDir) openEach(rel string, flags int) (int, error) {
	if rel == "." {
		return retry(func() (int, error) { return unix.Openat(d.fd, ".", flags, 0) })
	}
	at, owned := d.fd, false
	defer func() {
		if owned {
			unix.Close(at)
		}
	}()
	for {
		name, rest, more := strings.Cut(rel, "/")
		if name == ".." {
			return -1, errHeld
		}
		if !more {
			return retry(func() (int, error) { return unix.Openat(at, name, flags, 0) })
		}
		next, err := retry(func() (int, error) {
			return unix.Openat(at, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		})
		if err != nil {
			return -1, err
		}
		if owned {
			unix.Close(at)
		}
		at, owned, rel = next, true, rest
	}
}

// retry calls open until it is not interrupted.
func retry(open func() (int, error)) (int, error) {
	for {
		fd, err := open()
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// split returns the directory rel is in, open (close it when owned), and
// its base name.
func (d *fdDir) split(rel string) (dir int, owned bool, name string, err error) {
	if !fs.ValidPath(rel) || rel == "." {
		return -1, false, "", errHeld
	}
	parent, name := path.Split(rel)
	if parent == "" {
		return d.fd, false, name, nil
	}
	fd, err := d.openBeneath(strings.TrimSuffix(parent, "/"), unix.O_PATH|unix.O_DIRECTORY)
	if err != nil {
		return -1, false, "", err
	}
	return fd, true, name, nil
}

// lstat stats rel (a slash path below d) without following a final
// symbolic link.
func (d *fdDir) lstat(rel string) (fs.FileInfo, error) {
	if rel == "." {
		var st unix.Stat_t
		if err := unix.Fstat(d.fd, &st); err != nil {
			return nil, err
		}
		return newStatInfo(".", &st), nil
	}
	dir, owned, name, err := d.split(rel)
	if err != nil {
		return nil, err
	}
	if owned {
		defer unix.Close(dir)
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, err
	}
	return newStatInfo(name, &st), nil
}

// openRegular opens the regular file rel of at most max bytes (max < 0:
// no cap) for reading, with safefile's checks: lstat, open with
// O_NONBLOCK, fstat of the same file. It returns the descriptor and the
// file's fstat.
func (d *fdDir) openRegular(rel string, max int64) (int, *unix.Stat_t, error) {
	return d.openChecked(rel, max, false)
}

// openChecked is openRegular, and when dirs also opens a directory.
func (d *fdDir) openChecked(rel string, max int64, dirs bool) (int, *unix.Stat_t, error) {
	dir, owned, name, err := d.split(rel)
	if err != nil {
		return -1, nil, err
	}
	if owned {
		defer unix.Close(dir)
	}
	var before unix.Stat_t
	if err := unix.Fstatat(dir, name, &before, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return -1, nil, err
	}
	switch before.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		if max < 0 || before.Size <= max {
			return openSame(dir, name, &before, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, max)
		}
	case unix.S_IFDIR:
		if dirs {
			return openSame(dir, name, &before, unix.O_RDONLY|unix.O_DIRECTORY, -1)
		}
	}
	return -1, nil, errHeld
}

// openSame opens name in the directory dir with flags (O_NOFOLLOW and
// O_CLOEXEC added) and returns it with its fstat, which must be the file
// before is the lstat of, of the same type and of at most max bytes
// (max < 0: no cap).
func openSame(dir int, name string, before *unix.Stat_t, flags int, max int64) (int, *unix.Stat_t, error) {
	fd, err := retry(func() (int, error) {
		return unix.Openat(dir, name, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return -1, nil, err
	}
	st := new(unix.Stat_t)
	if err := unix.Fstat(fd, st); err != nil || st.Mode&unix.S_IFMT != before.Mode&unix.S_IFMT ||
		st.Dev != before.Dev || st.Ino != before.Ino || (max >= 0 && st.Size > max) {
		unix.Close(fd)
		return -1, nil, errHeld
	}
	return fd, st, nil
}

// readFile reads the regular file rel of at most max bytes.
func (d *fdDir) readFile(rel string, max int64) ([]byte, error) {
	fd, st, err := d.openRegular(rel, max)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	// One byte more than fstat says, so that a file that grew since is
	// seen: it is read again from the registry's root. A read of a
	// regular file that returns fewer bytes than asked has reached its
	// end (a signal interrupts none here: Go installs its handlers with
	// SA_RESTART), which saves the read that would return 0.
	buf := make([]byte, st.Size+1)
	n := 0
	for n < len(buf) {
		m, err := unix.Read(fd, buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n += m; n < len(buf) {
			break // fewer bytes than asked: the end
		}
	}
	if int64(n) != st.Size {
		return nil, errHeld
	}
	return buf[:n], nil
}

// openFile opens the regular file rel for reading (see openRegular).
func (d *fdDir) openFile(rel string) (*os.File, error) {
	fd, _, err := d.openRegular(rel, -1)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), rel), nil
}

// openReader opens the regular file rel for reading, returning it and its size.
func (d *fdDir) openReader(rel string) (io.ReadCloser, int64, error) {
	fd, st, err := d.openRegular(rel, -1)
	if err != nil {
		return nil, 0, err
	}
	return &fdFile{fd: fd, name: rel, st: st}, st.Size, nil
}

// sub opens the directory rel below d.
func (d *fdDir) sub(rel string) (heldDir, error) {
	fd, err := d.openBeneath(rel, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	return &fdDir{fd: fd, res: d.res}, nil
}

// fsys returns d as a read-only file system.
func (d *fdDir) fsys() fs.FS { return fdFS{d} }

// close closes d.
func (d *fdDir) close() error { return unix.Close(d.fd) }
