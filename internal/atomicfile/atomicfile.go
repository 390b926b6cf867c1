// Package atomicfile writes files so that a reader, or the file system
// after a crash, sees the old content or the new, never a mix: a
// temporary file in the same directory, fsynced, renamed (or linked) into
// place, the directory fsynced.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// WriteFile replaces path with data atomically and durably; the file gets
// mode perm. On any error path is untouched and no temporary file is left.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write is WriteFile for content that fill writes; an error from fill
// leaves path untouched.
func Write(path string, perm fs.FileMode, fill func(io.Writer) error) error {
	tmp, err := create(path, perm, fill)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return SyncDir(filepath.Dir(path))
}

// WriteExclusive writes data to path like WriteFile but never replaces an
// existing file: the temporary file is hard-linked into place, so a file
// that appeared meanwhile fails the write with an error wrapping
// fs.ErrExist. File systems without hard links (FAT) fall back to a rename
// after a check, with a small race window.
func WriteExclusive(path string, data []byte, perm fs.FileMode) error {
	tmp, err := create(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s: %w", path, fs.ErrExist)
		}
		if _, serr := os.Lstat(path); serr == nil {
			return fmt.Errorf("%s: %w", path, fs.ErrExist)
		}
		if err := os.Rename(tmp, path); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return SyncDir(filepath.Dir(path))
}

// create writes a fsynced temporary file beside path and returns its name.
func create(path string, perm fs.FileMode, fill func(io.Writer) error) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	err = fill(f)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return tmp, nil
}

// SyncDir fsyncs a directory so that a rename or link in it is durable.
// Windows cannot, and file systems that do not support it are skipped.
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
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
