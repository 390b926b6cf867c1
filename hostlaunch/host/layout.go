package host

// Where a host may write: the workspace folders, the storage of its own
// extensions and a temporary directory of its own; and what no host may
// ever write.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Protected is a folder no extension may change and no workspace folder
// or storage directory may contain or lie in: the extensions directory
// (installed.json records what the policy granted) and the launcher's
// state directory (the seal key, the trust state).
type Protected struct {
	Path string
	// What names it in messages: "the extensions directory".
	What string
}

// overlap says whether a and b (absolute, clean) are one folder or one
// lies in the other: inner is then the one inside (or a).
func overlap(a, b string) (inner string, ok bool) {
	switch {
	case a == b:
		return a, true
	case strings.HasPrefix(a, b+string(filepath.Separator)) || b == "/":
		return a, true
	case strings.HasPrefix(b, a+string(filepath.Separator)) || a == "/":
		return b, true
	}
	return "", false
}

// resolved is p with its symbolic links resolved, as far as it exists.
func resolved(p string) string {
	rest := ""
	for dir := p; ; dir = filepath.Dir(dir) {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		if dir == filepath.Dir(dir) {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// checkLayout refuses a workspace folder or a storage directory that
// contains or lies in a protected folder, and a workspace folder that
// contains or lies in the storage directory (every extension's storage is
// there): through either, an extension could write what no extension may.
// Paths are compared with their symbolic links resolved.
func checkLayout(workspace []string, storage string, protected []Protected) error {
	type place struct{ path, what string }
	var writable []place
	for _, w := range workspace {
		writable = append(writable, place{w, "the workspace folder"})
	}
	writable = append(writable, place{storage, "the storage directory"})
	var errs []error
	for _, w := range writable {
		for _, p := range protected {
			if err := refuseOverlap(w.path, w.what, p.Path, p.What); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, w := range workspace {
		if err := refuseOverlap(w, "the workspace folder", storage, "the storage directory (every extension's storage)"); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// refuseOverlap is the refusal of the writable folder w overlapping the
// folder p, naming both and what to do; nil when they are apart.
func refuseOverlap(w, wWhat, p, pWhat string) error {
	rw, rp := resolved(w), resolved(p)
	inner, ok := overlap(rw, rp)
	if !ok {
		return nil
	}
	how := "contains"
	if inner == rw && rw != rp {
		how = "lies inside"
	}
	if rw == rp {
		how = "is"
	}
	what, note, _ := strings.Cut(pWhat, " (")
	if note != "" {
		note = " (" + note
	}
	return fmt.Errorf("%s %s %s %s %s%s: an extension could write through it what no extension may (its own grants, another extension's state); choose a %s apart from %s",
		wWhat, w, how, what, p, note, strings.TrimPrefix(wWhat, "the "), p)
}

// tmpRoot is the folder, in the storage directory, that holds each host's
// temporary directory.
const tmpRoot = ".tmp"

// storageOf is the storage folder of extension id: its global and
// workspace storage, its log folder, globalState.json and
// workspaceState.json.
func storageOf(root, id string) string { return filepath.Join(root, id) }

// prepareStorage makes the storage folders of the host's extensions and a
// temporary directory of the host's own, and returns them: what the
// host may write besides the workspace. A host never gets the storage
// directory itself, so it cannot write another host's extensions' state.
func (h *Host) prepareStorage() (dirs []string, tmp string, err error) {
	for _, e := range h.opts.Extensions {
		s := storageOf(h.opts.StorageDir, e.ID)
		for _, sub := range []string{"global", "workspace", "log", "tmp"} {
			if err := os.MkdirAll(filepath.Join(s, sub), 0o700); err != nil {
				return nil, "", fmt.Errorf("storage of %s: %w", e.ID, err)
			}
		}
		dirs = append(dirs, s)
	}
	root := filepath.Join(h.opts.StorageDir, tmpRoot)
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, "", fmt.Errorf("storage: %w", err)
	}
	if tmp, err = os.MkdirTemp(root, "host-"); err != nil {
		return nil, "", fmt.Errorf("storage: %w", err)
	}
	return append(dirs, tmp), tmp, nil
}

// protectedPaths are the paths of ps.
func protectedPaths(ps []Protected) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.Path)
	}
	return out
}
