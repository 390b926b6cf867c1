// Package tempdir makes the private temporary directories airvsx works in
// (downloads being verified, the extension host's scripts, a run's
// storage), and removes the ones that killed processes left behind.
//
// A process killed by SIGKILL or a power cut cannot remove its temporary
// directory; a sync into a git or OCI-registry place that is killed while
// downloading would leave up to the whole download in the system's
// temporary directory, every time. Each directory made here is locked
// (flock on the directory itself) for as long as its process lives, and
// every New first removes the directories of the same prefix, owned by the
// same user, whose lock nobody holds any more.
package tempdir

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/airvsx/airvsx/internal/flock"
)

// minAge is how old a directory must be before a sweep may remove it: a
// directory that another process has just made is not locked yet.
const minAge = time.Minute

// Dir is a temporary directory that this process holds.
type Dir struct {
	// Path is the directory's path.
	Path string
	lock *os.File // the directory, locked while held
}

// New makes a new directory in parent (the system's temporary directory
// when "") named prefix followed by random characters, mode 0700, and
// locks it. Before that it removes the directories named prefix* in
// parent that belong to this user, are older than a minute and that no
// live process holds; what it removes is logged to log (nil: discarded).
func New(parent, prefix string, log *slog.Logger) (*Dir, error) {
	if parent == "" {
		parent = os.TempDir()
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	sweep(parent, prefix, log)
	path, err := os.MkdirTemp(parent, prefix)
	if err != nil {
		return nil, fmt.Errorf("temporary directory: %w", err)
	}
	lock, err := os.Open(path)
	if err == nil {
		if err = flock.Try(lock); errors.Is(err, errors.ErrUnsupported) {
			err = nil // no locks here: held, but never swept
		}
		if err != nil {
			lock.Close()
		}
	}
	if err != nil {
		os.RemoveAll(path)
		return nil, fmt.Errorf("temporary directory %s: %w", path, err)
	}
	return &Dir{Path: path, lock: lock}, nil
}

// Remove removes the directory and everything in it, and releases it.
func (d *Dir) Remove() error {
	err := os.RemoveAll(d.Path)
	d.lock.Close()
	if err != nil {
		return fmt.Errorf("remove temporary directory: %w", err)
	}
	return nil
}

// sweep removes the abandoned directories of prefix in parent. It only
// ever logs: a directory it cannot judge or remove is left alone.
func sweep(parent, prefix string, log *slog.Logger) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue // a symlink is never followed, nor removed
		}
		path := filepath.Join(parent, e.Name())
		fi, err := os.Lstat(path)
		if err != nil || !fi.IsDir() || !ownedByMe(fi) || time.Since(fi.ModTime()) < minAge {
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		err = flock.Try(f)
		if err == nil {
			if err := os.RemoveAll(path); err != nil {
				log.Warn("could not remove a temporary directory left by a killed airvsx", "dir", path, "err", err)
			} else {
				log.Debug("removed a temporary directory left by a killed airvsx", "dir", path)
			}
		} else if !errors.Is(err, flock.ErrHeld) && !errors.Is(err, errors.ErrUnsupported) {
			log.Debug("temporary directory not swept", "dir", path, "err", err)
		}
		f.Close()
	}
}
