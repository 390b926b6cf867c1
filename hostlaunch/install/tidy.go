package install

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// The staging folders installs and uninstalls make in an extensions
// directory (os.MkdirTemp patterns).
const (
	installStaging   = ".install-"
	uninstallStaging = ".uninstall-"
)

// Tidied is what Tidy found left by installs and uninstalls that were
// killed, and what it did about it.
type Tidied struct {
	// Restored lists the extension folders moved back into place from a
	// staging folder: each matched the files its record in installed.json
	// lists, while its place was empty or held other files.
	Restored []Restored `json:"restored"`
	// Removed lists the staging folders removed, by name in the
	// extensions directory.
	Removed []string `json:"removed"`
	// Busy is set when another install or uninstall held the directory:
	// Tidy did nothing.
	Busy bool `json:"busy"`
}

// Restored is an extension folder put back from staging.
type Restored struct {
	// Extension is the record's "ns.name@version[@platform]".
	Extension string `json:"extension"`
	// Dir is the folder restored and From the copy it came from, both
	// relative to the extensions directory.
	Dir  string `json:"dir"`
	From string `json:"from"`
}

// Tidy puts right what a killed install or uninstall left in the
// extensions directory dir: its staging folders (DIR/.install-*,
// DIR/.uninstall-*). An install killed between moving a replaced folder
// into staging (old-<n>-<folder>) and writing installed.json, or an
// uninstall killed between moving the folder into staging and writing
// installed.json, leaves there the only copy of a folder a record still
// names; so first, for each record whose folder is missing or does not
// match its recorded files (TreeHash), a copy in staging that matches is
// renamed back into place (what was there goes with the staging folder).
// Then the staging folders are removed. Tidy takes the directory's lock
// without waiting; while another install or uninstall holds it (its
// staging is in use), Tidy does nothing and says so (Tidied.Busy).
// Installs and uninstalls tidy too, under their lock. It reads
// installed.json but writes nothing to it, and needs no seal key: putting
// back a folder that matches a record grants nothing. What it does is
// logged to opts.Logger as warnings.
func Tidy(ctx context.Context, dir string, opts DirOptions) (*Tidied, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := lockDir(dir)
	if errors.Is(err, ErrLocked) {
		return &Tidied{Busy: true}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tidy: %w", err)
	}
	defer f.Close()
	x, err := decodeIndex(dir)
	if err != nil {
		return nil, fmt.Errorf("tidy: %w", err)
	}
	return tidy(ctx, dir, x, opts.logger())
}

// tidy is Tidy under the lock, with installed.json read.
func tidy(ctx context.Context, dir string, x *Index, log *slog.Logger) (*Tidied, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("tidy: %w", err)
	}
	var staging []string
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, installStaging) || strings.HasPrefix(n, uninstallStaging) {
			staging = append(staging, n)
		}
	}
	t := &Tidied{Restored: []Restored{}, Removed: []string{}}
	if len(staging) == 0 {
		return t, nil
	}
	for i := range x.Extensions {
		if err := ctx.Err(); err != nil {
			return t, err
		}
		r := &x.Extensions[i]
		from, err := restore(dir, staging, r)
		if err != nil {
			return t, fmt.Errorf("tidy: put back %s: %w", r.Dir, err)
		}
		if from != "" {
			t.Restored = append(t.Restored, Restored{Extension: r.String(), Dir: r.Dir, From: from})
			log.Warn("put an extension folder back from a staging folder left by an interrupted install or uninstall",
				"ext", r.String(), "dir", filepath.Join(dir, r.Dir), "from", filepath.Join(dir, from))
		}
	}
	var errs []error
	for _, s := range staging {
		if err := os.RemoveAll(filepath.Join(dir, s)); err != nil {
			errs = append(errs, err)
			continue
		}
		t.Removed = append(t.Removed, s)
		log.Warn("removed a staging folder left by an interrupted install or uninstall", "dir", filepath.Join(dir, s))
	}
	if err := errors.Join(errs...); err != nil {
		return t, fmt.Errorf("tidy: %w", err)
	}
	return t, nil
}

// restore puts r's folder back from staging when it is missing or does
// not match r's files and a staging folder holds a copy that matches:
// <staging>/<folder> (an uninstall's) or <staging>/old-<n>-<folder> (an
// install's). It returns the copy moved back, relative to dir, or "".
// Only directories are looked at, never a symbolic link.
func restore(dir string, staging []string, r *Record) (string, error) {
	var copies []string
	for _, s := range staging {
		if fi, err := os.Lstat(filepath.Join(dir, s)); err != nil || !fi.IsDir() {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(dir, s))
		if err != nil {
			return "", err
		}
		for _, e := range entries {
			if e.IsDir() && (e.Name() == r.Dir || isAsideName(e.Name(), r.Dir)) {
				copies = append(copies, filepath.Join(s, e.Name()))
			}
		}
	}
	if len(copies) == 0 {
		return "", nil
	}
	place := filepath.Join(dir, r.Dir)
	_, err := os.Lstat(place)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return "", err
	}
	if !missing {
		if change, err := treeChange(place, r.Files); err == nil && change == "" {
			return "", nil // in place, and whole
		}
	}
	for _, c := range copies {
		if change, err := treeChange(filepath.Join(dir, c), r.Files); err != nil || change != "" {
			continue
		}
		if !missing {
			// What is there (the new folder of an install killed
			// before it wrote installed.json) goes with the staging
			// folder the copy comes from.
			s, _, _ := strings.Cut(c, string(filepath.Separator))
			if err := os.Rename(place, filepath.Join(dir, s, "displaced-"+r.Dir)); err != nil {
				return "", err
			}
		}
		if err := os.Rename(filepath.Join(dir, c), place); err != nil {
			return "", err
		}
		return c, nil
	}
	return "", nil
}

// isAsideName reports whether name is "old-<n>-<folder>": where an
// install's commit moves an installed folder aside (commit.go).
func isAsideName(name, folder string) bool {
	rest, ok := strings.CutPrefix(name, "old-")
	if !ok {
		return false
	}
	n := 0
	for n < len(rest) && '0' <= rest[n] && rest[n] <= '9' {
		n++
	}
	return n > 0 && rest[n:] == "-"+folder
}
