package install

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/problem"
)

// ErrNotInstalled is wrapped when uninstall names an extension that has
// no record.
var ErrNotInstalled = errors.New("not installed")

// Uninstall removes an installed extension: its folder and its record,
// leaving no trace. It refuses (a *RefusedError naming them) while another
// installed extension lists it in extensionDependencies, unless force is
// set; forced, those dependents stay installed but are disabled, with the
// reason recorded. The folder is moved aside before installed.json is
// written and deleted after, so a failure leaves both as they were (and
// a kill in between leaves the folder in DIR/.uninstall-*, which the next
// write or Tidy puts back). Like every write of installed.json it seals
// every record (see Load; opts.StateDir holds the key, made if missing).
func Uninstall(ctx context.Context, dir string, id index.ID, force bool, opts DirOptions) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d, err := openForWrite(ctx, dir, false, opts)
	if err != nil {
		return nil, fmt.Errorf("uninstall %s: %w", id, err)
	}
	defer d.close()
	rec := d.idx.Find(id)
	if rec == nil {
		return nil, fmt.Errorf("uninstall %s: %w in %s", id, ErrNotInstalled, dir)
	}
	removed := *rec
	next := &Index{Format: IndexFormat, Extensions: slices.Clone(d.idx.Extensions)}
	var dependents []string
	for i := range next.Extensions {
		r := &next.Extensions[i]
		if slices.ContainsFunc(r.Dependencies, id.Equal) {
			dependents = append(dependents, r.ID.String())
			if r.Enabled {
				r.Enabled, r.Reason = false, forcedReason(removed.ID)
			}
		}
	}
	if len(dependents) > 0 && !force {
		return nil, &RefusedError{What: "uninstall " + removed.ID.String(),
			Problems: []problem.Problem{refusal("%s depends on it (uninstall %s first, or pass --force to disable %s)",
				strings.Join(dependents, ", "), oneOrThem(dependents), oneOrThem(dependents))}}
	}
	next.remove(id)
	trash, err := os.MkdirTemp(dir, ".uninstall-")
	if err != nil {
		return nil, fmt.Errorf("uninstall %s: %w", id, err)
	}
	folder, aside := filepath.Join(dir, removed.Dir), filepath.Join(trash, removed.Dir)
	moved := false
	if _, err := os.Lstat(folder); err == nil {
		if err := os.Rename(folder, aside); err != nil {
			os.Remove(trash)
			return nil, fmt.Errorf("uninstall %s: %w", id, err)
		}
		moved = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		os.Remove(trash)
		return nil, fmt.Errorf("uninstall %s: %w", id, err)
	}
	if err := d.writeIndex(next); err != nil {
		if moved {
			if rerr := os.Rename(aside, folder); rerr != nil {
				return nil, errors.Join(fmt.Errorf("uninstall %s: %w", id, err), fmt.Errorf("undo: %w (the folder is in %s)", rerr, trash))
			}
		}
		os.Remove(trash)
		return nil, fmt.Errorf("uninstall %s: %w", id, err)
	}
	if err := os.RemoveAll(trash); err != nil {
		return &removed, fmt.Errorf("uninstall %s: the record is removed, but not all of the folder: %w", id, err)
	}
	return &removed, nil
}

func oneOrThem(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return "them"
}

// forcedReason is the reason recorded for a dependent of an extension
// uninstalled with --force; installing the dependency again enables it.
func forcedReason(dep index.ID) string {
	return fmt.Sprintf("its dependency %s was uninstalled (--force)", dep.Key())
}
