package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// move is one rename commit made, undone in reverse order on failure.
type move struct{ from, to string }

// commit moves the unpacked packages into place, dependencies first, and
// writes installed.json once. A folder already at a package's place (the
// same version reinstalled over a changed tree) and the folder of a
// replaced version are moved into staging first, and are deleted only
// after installed.json is written; on any failure every move is undone,
// so the directory and installed.json are as they were.
func (in *installer) commit() (res *Result, err error) {
	var done []move
	rename := func(from, to string) error {
		if err := os.Rename(from, to); err != nil {
			return err
		}
		done = append(done, move{from, to})
		return nil
	}
	defer func() {
		if err == nil {
			return
		}
		for _, m := range slices.Backward(done) {
			if rerr := os.Rename(m.to, m.from); rerr != nil {
				err = errors.Join(err, fmt.Errorf("undo: %w (the staging folder %s is kept)", rerr, in.staging))
				in.keepStaging = true
			}
		}
	}()
	next := &Index{Format: IndexFormat, Extensions: slices.Clone(in.d.idx.Extensions)}
	res = &Result{Kept: in.kept, Updated: in.regranted}
	for _, r := range in.regranted {
		next.put(r)
	}
	now := in.opts.Now().UTC().Truncate(time.Second)
	for i, p := range in.planned {
		c := p.c
		folder := FolderName(c.id, c.version, c.platform)
		aside := func(name string) error {
			_, err := os.Lstat(filepath.Join(in.d.path, name))
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err == nil {
				err = rename(filepath.Join(in.d.path, name), filepath.Join(in.staging, fmt.Sprintf("old-%d-%s", i, name)))
			}
			return err
		}
		if err := aside(folder); err != nil {
			return nil, fmt.Errorf("install %s: %w", c.id, err)
		}
		if old := next.Find(c.id); old != nil && old.Dir != folder {
			if err := aside(old.Dir); err != nil {
				return nil, fmt.Errorf("install %s: %w", c.id, err)
			}
		}
		if err := rename(p.src, filepath.Join(in.d.path, folder)); err != nil {
			return nil, fmt.Errorf("install %s: %w", c.id, err)
		}
		r := Record{
			ID: c.id, Version: c.version, Platform: c.platform, Dir: folder,
			VsixSHA256: p.sha256, TreeHash: p.tree, Files: p.files, Source: p.source,
			Main: c.main, Activation: c.activation, Eager: slices.Contains(c.activation, "*"), Ignored: c.ignored,
			Dependencies: c.deps, ExtensionPack: c.pack, Declared: c.declared, Capabilities: c.grants,
			AllowedHosts: c.hosts, Programs: c.programs,
			Installed: now, Enabled: true,
		}
		next.put(r)
		res.Installed = append(res.Installed, r)
		// Dependents an uninstall --force disabled for want of it work again.
		for j := range next.Extensions {
			if d := &next.Extensions[j]; !d.Enabled && d.Reason == forcedReason(c.id) {
				d.Enabled, d.Reason = true, ""
			}
		}
	}
	if err := in.d.writeIndex(next); err != nil {
		return nil, fmt.Errorf("install: %w", err)
	}
	in.d.idx = next
	return res, nil
}
