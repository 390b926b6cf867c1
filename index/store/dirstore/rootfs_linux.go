package dirstore

import (
	"encoding/binary"
	"io/fs"
	"os"
	"syscall"
)

// readDirTypes lists the open directory d with getdents64, taking each
// entry's type from its d_type; where a file system leaves d_type
// unknown, lstat (a path relative to the listed directory) says.
func readDirTypes(d *os.File, lstat func(name string) (fs.FileMode, error)) ([]typedName, error) {
	rc, err := d.SyscallConn()
	if err != nil {
		return nil, err
	}
	var (
		out  []typedName
		rerr error
	)
	err = rc.Read(func(fd uintptr) bool {
		out, rerr = readDirents(int(fd))
		return true
	})
	if err == nil {
		err = rerr
	}
	return typeUnknown(out, err, lstat)
}

// readDirFD is readDirTypes of the directory open as fd.
func readDirFD(fd int, lstat func(name string) (fs.FileMode, error)) ([]typedName, error) {
	out, err := readDirents(fd)
	return typeUnknown(out, err, lstat)
}

// readDirents lists the directory open as fd with getdents64, each
// entry's type its d_type (unknownType where the file system gives none).
func readDirents(fd int) ([]typedName, error) {
	var out []typedName
	buf := make([]byte, 32<<10)
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return out, os.NewSyscallError("getdents64", err)
		}
		if n <= 0 {
			return out, nil
		}
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return out, os.NewSyscallError("getdents64", syscall.EIO)
			}
			typ, name := b[18], b[19:reclen]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			b = b[reclen:]
			if s := string(name); s != "." && s != ".." {
				out = append(out, typedName{name: s, typ: direntType(typ)})
			}
		}
	}
}

// typeUnknown asks lstat the type of each entry of out whose d_type was
// unknown, and returns out and the first error (err, else lstat's).
func typeUnknown(out []typedName, err error, lstat func(name string) (fs.FileMode, error)) ([]typedName, error) {
	for i := range out {
		if out[i].typ == unknownType {
			t, lerr := lstat(out[i].name)
			if lerr != nil {
				if err == nil {
					err = lerr
				}
				t = 0
			}
			out[i].typ = t
		}
	}
	return out, err
}

// unknownType marks an entry whose d_type was DT_UNKNOWN.
const unknownType = fs.ModeIrregular | fs.ModeTemporary

// direntType is the fs.FileMode type of a d_type.
func direntType(t byte) fs.FileMode {
	switch t {
	case syscall.DT_REG:
		return 0
	case syscall.DT_DIR:
		return fs.ModeDir
	case syscall.DT_LNK:
		return fs.ModeSymlink
	case syscall.DT_FIFO:
		return fs.ModeNamedPipe
	case syscall.DT_SOCK:
		return fs.ModeSocket
	case syscall.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.DT_BLK:
		return fs.ModeDevice
	}
	return unknownType
}
