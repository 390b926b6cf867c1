// Package atomicfile writes files so that a reader, or the file system
// after a crash, sees the old content or the new, never a mix: a
// temporary file created exclusively in the target's directory, written,
// fsynced, renamed (or linked) into place, the directory fsynced.
//
// It is the one way the project writes a file in place. WriteFile, Write
// and WriteExclusive do the whole job; a Temp is the same job in steps,
// for writers that hash while they write, learn the file's name only at
// the end (a git object) or make many files durable at once (a syncfs
// for a batch of blobs). An FS made by In does all of it inside an
// *os.Root, so that no name can lead outside the root.
package atomicfile

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// testHook, when set, is called before each step that makes a write
// durable or visible: "sync file" (the temporary file's name), "rename"
// or "link" (the target's name) and "sync dir" (the directory's name).
var testHook func(event, name string)

func hook(event, name string) {
	if testHook != nil {
		testHook(event, name)
	}
}

// FS is where files are written: the operating system's paths (the zero
// value), or the names inside an *os.Root (In).
type FS struct {
	root *os.Root
}

// In returns the FS of root: every name given to it is relative to root
// and cannot lead outside it (symlinks included).
func In(root *os.Root) FS { return FS{root: root} }

func (fsys FS) openFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	if fsys.root != nil {
		return fsys.root.OpenFile(name, flag, perm)
	}
	return os.OpenFile(name, flag, perm)
}

func (fsys FS) rename(oldname, newname string) error {
	if fsys.root != nil {
		return fsys.root.Rename(oldname, newname)
	}
	return os.Rename(oldname, newname)
}

func (fsys FS) link(oldname, newname string) error {
	if fsys.root != nil {
		return fsys.root.Link(oldname, newname)
	}
	return os.Link(oldname, newname)
}

func (fsys FS) remove(name string) error {
	if fsys.root != nil {
		return fsys.root.Remove(name)
	}
	return os.Remove(name)
}

func (fsys FS) lstat(name string) (fs.FileInfo, error) {
	if fsys.root != nil {
		return fsys.root.Lstat(name)
	}
	return os.Lstat(name)
}

// WriteFile replaces name with data atomically and durably; the file
// gets mode perm exactly (the umask does not apply). On any error name is
// untouched and no temporary file is left.
func WriteFile(name string, data []byte, perm fs.FileMode) error {
	return FS{}.WriteFile(name, data, perm)
}

// Write is WriteFile for content that fill writes; an error from fill
// leaves name untouched.
func Write(name string, perm fs.FileMode, fill func(io.Writer) error) error {
	return FS{}.Write(name, perm, fill)
}

// WriteExclusive writes data to name like WriteFile but never replaces
// an existing file: see Temp.Link.
func WriteExclusive(name string, data []byte, perm fs.FileMode) error {
	return FS{}.WriteExclusive(name, data, perm)
}

// SyncDir fsyncs a directory so that a rename or link in it is durable.
// Windows cannot, and file systems that do not support it are skipped.
func SyncDir(dir string) error { return FS{}.SyncDir(dir) }

// WriteFile replaces name with data atomically and durably; the file
// gets mode perm exactly (the umask does not apply). On any error name is
// untouched and no temporary file is left.
func (fsys FS) WriteFile(name string, data []byte, perm fs.FileMode) error {
	return fsys.Write(name, perm, writeData(data))
}

// Write is WriteFile for content that fill writes; an error from fill
// leaves name untouched.
func (fsys FS) Write(name string, perm fs.FileMode, fill func(io.Writer) error) error {
	t, err := fsys.filled(name, perm, fill)
	if err != nil {
		return err
	}
	defer t.Cleanup()
	if err := t.Commit(name); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// WriteExclusive writes data to name like WriteFile but never replaces
// an existing file: see Temp.Link.
func (fsys FS) WriteExclusive(name string, data []byte, perm fs.FileMode) error {
	t, err := fsys.filled(name, perm, writeData(data))
	if err != nil {
		return err
	}
	defer t.Cleanup()
	if err := t.Link(name); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s: %w", name, fs.ErrExist)
		}
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

func writeData(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

// filled returns a temporary file beside name holding what fill wrote,
// of mode perm exactly.
func (fsys FS) filled(name string, perm fs.FileMode, fill func(io.Writer) error) (*Temp, error) {
	t, err := fsys.Create(filepath.Dir(name), "."+filepath.Base(name)+".tmp-*", perm)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", name, err)
	}
	err = fill(t)
	if err == nil {
		err = t.f.Chmod(perm)
	}
	if err != nil {
		t.Cleanup()
		return nil, fmt.Errorf("write %s: %w", name, err)
	}
	return t, nil
}

// SyncDir fsyncs a directory so that a rename or link in it is durable.
// Windows cannot, and file systems that do not support it are skipped.
func (fsys FS) SyncDir(dir string) error {
	hook("sync dir", dir)
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := fsys.openFile(dir, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// maxTries bounds the names Create tries before it gives up.
const maxTries = 100

// Create creates a new temporary file in dir, exclusively, of mode perm
// (less the umask, as os.OpenFile). Its name is pattern with the last "*"
// replaced by random text, or with random text appended when there is
// none; give a pattern the sweepers of a killed writer's files know (for
// example ".tmp-*"). Defer Cleanup.
func (fsys FS) Create(dir, pattern string, perm fs.FileMode) (*Temp, error) {
	if strings.ContainsAny(pattern, `/\`) {
		return nil, fmt.Errorf("temporary file in %s: pattern %q holds a path separator", dir, pattern)
	}
	prefix, suffix := pattern, ""
	if i := strings.LastIndex(pattern, "*"); i >= 0 {
		prefix, suffix = pattern[:i], pattern[i+1:]
	}
	for range maxTries {
		t, err := fsys.CreateNamed(filepath.Join(dir, prefix+rand.Text()+suffix), perm)
		if !errors.Is(err, fs.ErrExist) {
			return t, err
		}
	}
	return nil, fmt.Errorf("temporary file in %s: %d names of %q taken: %w", dir, maxTries, pattern, fs.ErrExist)
}

// CreateNamed creates the temporary file name itself, exclusively, of
// mode perm (less the umask): a lock file such as git's index.lock, whose
// name others respect. When name exists it fails with an error wrapping
// fs.ErrExist. Defer Cleanup.
func (fsys FS) CreateNamed(name string, perm fs.FileMode) (*Temp, error) {
	f, err := fsys.openFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return nil, err
	}
	return &Temp{fsys: fsys, f: f, name: name}, nil
}

// A Temp is a temporary file being written, to be renamed or linked into
// place. Write to it, then call Commit (or Link); or, to make many files
// durable at once, Sync or not, Rename, and make the rename durable
// later (SyncDir, a syncfs). Cleanup removes it unless it was put in
// place.
type Temp struct {
	fsys   FS
	f      *os.File // nil once closed
	name   string
	synced bool
	done   bool // renamed or linked into place, or removed
}

// Write writes p to the temporary file.
func (t *Temp) Write(p []byte) (int, error) {
	if t.f == nil {
		return 0, fmt.Errorf("write %s: %w", t.name, os.ErrClosed)
	}
	return t.f.Write(p)
}

// File returns the open temporary file, for calls Temp does not offer
// (Chmod, a write-back hint). Do not close it.
func (t *Temp) File() *os.File { return t.f }

// Name returns the temporary file's name.
func (t *Temp) Name() string { return t.name }

// Sync fsyncs the temporary file's content. Commit and Link do it
// themselves.
func (t *Temp) Sync() error {
	if t.synced {
		return nil
	}
	if t.f == nil {
		return fmt.Errorf("sync %s: %w", t.name, os.ErrClosed)
	}
	hook("sync file", t.name)
	if err := t.f.Sync(); err != nil {
		return err
	}
	t.synced = true
	return nil
}

// close closes the temporary file.
func (t *Temp) close() error {
	if t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f = nil
	return err
}

// Commit puts the temporary file in place of name, replacing what is
// there, durably: fsync, rename, fsync of name's directory. On an error
// before the rename name is untouched; Cleanup removes the temporary file.
func (t *Temp) Commit(name string) error {
	if err := t.Sync(); err != nil {
		return err
	}
	if err := t.Rename(name); err != nil {
		return err
	}
	return t.fsys.SyncDir(filepath.Dir(name))
}

// Rename closes the temporary file and renames it to name, replacing
// what is there, without any fsync beyond a Sync called before: the
// caller makes the file and the rename durable (an fsync of each, or a
// syncfs) before anything depends on them.
func (t *Temp) Rename(name string) error {
	if t.done {
		return fmt.Errorf("rename %s: %w", t.name, os.ErrClosed)
	}
	if err := t.close(); err != nil {
		return err
	}
	hook("rename", name)
	if err := t.fsys.rename(t.name, name); err != nil {
		return err
	}
	t.done = true
	return nil
}

// Link puts the temporary file in place as name durably, like Commit,
// but never replaces an existing file: the file is hard-linked into
// place, so a name that appeared meanwhile fails with an error wrapping
// fs.ErrExist, and the temporary file is removed. File systems without
// hard links (FAT) fall back to a rename after a check, with a small race
// window.
func (t *Temp) Link(name string) error {
	if t.done {
		return fmt.Errorf("link %s: %w", t.name, os.ErrClosed)
	}
	if err := t.Sync(); err != nil {
		return err
	}
	if err := t.close(); err != nil {
		return err
	}
	hook("link", name)
	if err := t.fsys.link(t.name, name); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return err
		}
		if _, serr := t.fsys.lstat(name); serr == nil {
			return &fs.PathError{Op: "link", Path: name, Err: fs.ErrExist}
		}
		if err := t.Rename(name); err != nil {
			return err
		}
	} else {
		t.Cleanup()
	}
	return t.fsys.SyncDir(filepath.Dir(name))
}

// Cleanup closes the temporary file and, unless it was put in place,
// removes it. It is safe to call more than once; defer it after Create.
func (t *Temp) Cleanup() {
	if t == nil {
		return
	}
	t.close()
	if !t.done {
		t.fsys.remove(t.name)
		t.done = true
	}
}
