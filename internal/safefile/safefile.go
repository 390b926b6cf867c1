// Package safefile opens the files a user names on the command line or a
// registry holds (a registry may arrive on a USB stick: every file in it
// is hostile) so that no open and no read can block, and no file larger
// than its cap is read.
//
// A named pipe (FIFO), a socket, a device or a directory is refused by its
// type before it is opened; the open itself uses O_NONBLOCK, so a FIFO
// swapped in after the type check cannot block the open, and the opened
// file is checked again with Fstat (and must be the file the first check
// saw). The size is checked before anything is read, so a huge (sparse)
// file is refused at once rather than after minutes of hashing.
package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrTooLarge is wrapped by the errors for a file larger than its cap.
var ErrTooLarge = errors.New("too large")

// NotRegularError is the error for something that is not a regular file.
type NotRegularError struct {
	Path string      // as the caller named it
	Mode fs.FileMode // its type bits
}

// Error says what the path is, for example "p is a named pipe (FIFO), not
// a regular file".
func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, Describe(e.Mode))
}

// Describe names the type of a file mode for messages: "a named pipe
// (FIFO)", "a directory", "a character device", ...
func Describe(m fs.FileMode) string {
	switch t := m.Type(); {
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a block device"
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	case t&fs.ModeDir != 0:
		return "a directory"
	case t == 0:
		return "a regular file"
	default:
		return "a special file (" + t.String() + ")"
	}
}

// Open opens the regular file at path for reading, following symbolic
// links. Anything else is a *NotRegularError; a file of more than max
// bytes is an error wrapping ErrTooLarge (max < 0: no cap). The returned
// FileInfo is the opened file's.
func Open(path string, max int64) (*os.File, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, asOpen(path, err)
	}
	return open(path, fi, max, func() (*os.File, error) {
		return os.OpenFile(path, os.O_RDONLY|nonblock, 0)
	})
}

// OpenIn opens the regular file name inside root for reading, without
// following a final symbolic link (a link is a *NotRegularError), with the
// checks of Open.
func OpenIn(root *os.Root, name string, max int64) (*os.File, fs.FileInfo, error) {
	fi, err := root.Lstat(name)
	if err != nil {
		return nil, nil, asOpen(name, err)
	}
	return open(name, fi, max, func() (*os.File, error) {
		return root.OpenFile(name, os.O_RDONLY|nonblock, 0)
	})
}

func open(path string, fi fs.FileInfo, max int64, openFile func() (*os.File, error)) (*os.File, fs.FileInfo, error) {
	if !fi.Mode().IsRegular() {
		return nil, nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	if err := checkSize(path, fi.Size(), max); err != nil {
		return nil, nil, err
	}
	f, err := openFile()
	if err != nil {
		return nil, nil, err
	}
	ofi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if !ofi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Mode: ofi.Mode()}
	}
	if !os.SameFile(fi, ofi) {
		f.Close()
		return nil, nil, fmt.Errorf("%s: replaced while it was opened; check who else writes there and try again", path)
	}
	if err := checkSize(path, ofi.Size(), max); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, ofi, nil
}

// asOpen reports the failed type check as the open that did not happen:
// "open PATH: no such file or directory", a *fs.PathError.
func asOpen(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if Escapes(err) {
			return &fs.PathError{Op: "open", Path: path, Err: ErrEscapes}
		}
		return &fs.PathError{Op: "open", Path: path, Err: pe.Err}
	}
	return err
}

// Escapes reports whether err is os.Root refusing a path that a symbolic
// link (or "..") leads out of the root: os.Root says so with an unexported
// error, "path escapes from parent", that callers should not match
// themselves.
func Escapes(err error) bool {
	// A PathError may wrap another ("mkdirat x: statat x: path escapes
	// from parent", from os.Root.MkdirAll): look at each.
	for err != nil {
		var pe *fs.PathError
		if !errors.As(err, &pe) {
			return false
		}
		if pe.Err == ErrEscapes || pe.Err.Error() == "path escapes from parent" {
			return true
		}
		err = pe.Err
	}
	return false
}

// ErrEscapes says a path inside a root leads out of it, through a
// symbolic link.
var ErrEscapes = errors.New("it leads out of the registry through a symbolic link, and is refused (replace the link with the real directory or file, or copy the registry again)")

func checkSize(path string, size, max int64) error {
	if max >= 0 && size > max {
		return fmt.Errorf("%s: %d bytes, more than the %d allowed: %w", path, size, max, ErrTooLarge)
	}
	return nil
}

// ReadFile reads the regular file at path, refusing it like Open, and
// refusing it too if it grew past max bytes while read.
func ReadFile(path string, max int64) ([]byte, error) {
	f, _, err := Open(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(path, f, max)
}

// ReadIn reads the regular file name inside root like OpenIn and
// ReadFile.
func ReadIn(root *os.Root, name string, max int64) ([]byte, error) {
	f, _, err := OpenIn(root, name, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(name, f, max)
}

// readAll reads f whole, at most max+1 bytes (max < 0: no bound), into a
// buffer sized once from the file's size: a large file is not copied
// again and again as a growing buffer would be.
func readAll(path string, f *os.File, max int64) ([]byte, error) {
	var r io.Reader = f
	size := int64(0)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	if max >= 0 {
		r = io.LimitReader(f, max+1)
		size = min(size, max)
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	data := buf.Bytes()
	if max >= 0 && int64(len(data)) > max {
		return nil, fmt.Errorf("%s: more than the %d bytes allowed (it grew while read): %w", path, max, ErrTooLarge)
	}
	return data, nil
}
