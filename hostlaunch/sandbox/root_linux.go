//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// The private root. The init of the sandbox's namespaces gives it a root
// of its own: an empty tmpfs into which it binds, each at its own path,
// only what the sandboxed process needs (the program and its
// interpreters, the libraries, a few system files, the host's scripts,
// the extensions, the workspace and the storage). Everything else on the
// machine does not exist there: stat of any other path answers ENOENT,
// which Landlock (it does not cover stat) could not give. The way in is
// bubblewrap's: a tmpfs over /tmp becomes the root once, the old root
// staying reachable under /oldroot while the binds are made into
// /newroot; a second pivot into /newroot then leaves the old root
// unreachable, and it is detached.

// mountKind is how one path is mounted in the private root.
type mountKind int

const (
	// runtimeMount: read-only, executable (the program, its ELF and
	// script interpreters, the shared libraries).
	runtimeMount mountKind = iota
	// readMount: read-only, noexec.
	readMount
	// writeMount: read-write, noexec.
	writeMount
	// deviceMount: a device file (/dev/null), read-write, noexec.
	deviceMount
	// protectMount: read-only, noexec, and mounted only where another
	// mount already makes the path visible: paths no process in the
	// sandbox may change (the extensions directory). Where nothing
	// makes them visible they do not exist, which is stronger.
	protectMount
)

// flags are the mount flags of kind k, besides MS_BIND|MS_REMOUNT.
func (k mountKind) flags() uintptr {
	switch k {
	case runtimeMount:
		return unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV
	case writeMount:
		return unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC
	case deviceMount:
		return unix.MS_NOSUID | unix.MS_NOEXEC
	}
	return unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC
}

// bindSpec is one path of the plan; optional paths that do not exist are
// left out.
type bindSpec struct {
	path     string
	kind     mountKind
	optional bool
}

// devices are the device files a sandboxed process may use.
var devices = []string{"/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"}

// rootPlan is every path the private root holds, parents before what
// they contain (so a nested path's own flags win), the protected paths
// last.
func rootPlan(hs *helperSpec, a access) ([]bindSpec, error) {
	var plan []bindSpec
	add := func(k mountKind, optional bool, paths ...string) {
		for _, p := range paths {
			plan = append(plan, bindSpec{filepath.Clean(p), k, optional})
		}
	}
	chain, err := execChain(hs.Exec[0])
	if err != nil {
		return nil, err
	}
	add(runtimeMount, false, chain...)
	add(runtimeMount, true, libDirs...)
	add(runtimeMount, true, filepath.Join(filepath.Dir(chain[0]), "..", "lib"))
	for _, f := range systemFiles {
		if !slices.Contains(devices, f) {
			add(readMount, true, f)
		}
	}
	add(readMount, true, a.config...)
	add(deviceMount, true, devices...)
	add(readMount, false, a.read...)
	add(writeMount, false, a.write...)
	slices.SortStableFunc(plan, func(x, y bindSpec) int { return len(x.path) - len(y.path) })
	add(protectMount, true, a.readOnly...)
	return plan, nil
}

// execChain is every file execve opens for prog, as named (a symbolic
// link and its target both): prog, its ELF interpreter as PT_INTERP names
// it, and for a "#!" script its interpreter's chain.
func execChain(prog string) ([]string, error) {
	real, err := filepath.EvalSymlinks(prog)
	if err != nil {
		return nil, err
	}
	out := []string{prog, real}
	interp, err := elfInterp(real)
	if err != nil {
		return nil, err
	}
	if interp != "" {
		return append(out, interp), nil
	}
	if shebang := scriptInterp(real); shebang != "" {
		more, err := execChain(shebang)
		if err != nil {
			return nil, fmt.Errorf("%s: interpreter: %w", prog, err)
		}
		out = append(out, more...)
	}
	return out, nil
}

// rootBuilder makes the binds of a plan: the old root under oldRoot, the
// new one under newRoot.
type rootBuilder struct {
	oldRoot, newRoot string
	bound            []bindSpec
}

// buildRoot makes the private root of plan and moves the process (and
// every process of its mount namespace sharing its root) into it.
func buildRoot(plan []bindSpec) error {
	const base = "/tmp"
	if err := unix.Mount("tmpfs", base, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755"); err != nil {
		return fmt.Errorf("mount a tmpfs on %s: %w", base, err)
	}
	if err := os.Chdir(base); err != nil {
		return err
	}
	for _, d := range []string{"newroot", "oldroot"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
	}
	if err := unix.Mount("newroot", "newroot", "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind newroot: %w", err)
	}
	if err := unix.PivotRoot(".", "oldroot"); err != nil {
		return fmt.Errorf("pivot_root into the tmpfs: %w", err)
	}
	if err := os.Chdir("/"); err != nil {
		return err
	}
	b := &rootBuilder{oldRoot: "/oldroot", newRoot: "/newroot"}
	for _, s := range plan {
		if err := b.place(s, s.path, 0); err != nil {
			return err
		}
	}
	if err := mountProc(); err != nil {
		return err
	}
	if err := unix.Mount("", "/oldroot", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make the old root private: %w", err)
	}
	if err := unix.Unmount("/oldroot", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("detach the old root: %w", err)
	}
	if err := os.Chdir("/newroot"); err != nil {
		return err
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("pivot_root into the private root: %w", err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("detach the tmpfs: %w", err)
	}
	if err := os.Chdir("/"); err != nil {
		return err
	}
	// Nothing more is created at the top.
	if err := unix.Mount("", "/", "", unix.MS_BIND|unix.MS_REMOUNT|protectMount.flags(), ""); err != nil {
		return fmt.Errorf("remount the private root read-only: %w", err)
	}
	return nil
}

// mountProc mounts, at /proc of the new root, a proc file system of the
// sandbox's own PID namespace that shows its processes only (subset=pid:
// no /proc/sys, no machine-wide files): Go's Landlock support (libpsx)
// lists /proc/PID/task of the process restricting itself. Landlock gives
// node no access to it. It is mounted while the machine's /proc is still
// visible under /oldroot, which the kernel requires of a new proc mount in
// a user namespace.
func mountProc() error {
	if err := os.Mkdir("/newroot/proc", 0o555); err != nil {
		return err
	}
	flags := uintptr(unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC)
	if err := unix.Mount("proc", "/newroot/proc", "proc", flags, "subset=pid"); err != nil {
		return fmt.Errorf("mount /proc of the PID namespace: %w", err)
	}
	return nil
}

// maxLinks bounds the symbolic links followed for one path (the kernel's
// own bound is 40).
const maxLinks = 40

// place makes p, a path of the old root, exist in the new one as it does
// in the old: each symbolic link on the way made again (and followed),
// each directory made, and the last name bind-mounted from the old root
// with s's flags, unless a mount of the same kind already shows it.
func (b *rootBuilder) place(s bindSpec, p string, links int) error {
	if links > maxLinks {
		return fmt.Errorf("%s: %w", s.path, unix.ELOOP)
	}
	names := strings.Split(strings.TrimPrefix(p, "/"), "/")
	cur := "/"
	for i, name := range names {
		if name == "" {
			continue
		}
		next := path.Join(cur, name)
		fi, err := os.Lstat(b.oldRoot + next)
		if err != nil {
			if s.optional && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return fmt.Errorf("%s: %w", s.path, unwrapPath(err))
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(b.oldRoot + next)
			if err != nil {
				return err
			}
			if _, err := os.Lstat(b.newRoot + next); errors.Is(err, fs.ErrNotExist) {
				if err := os.Symlink(target, b.newRoot+next); err != nil {
					return fmt.Errorf("%s: %w", s.path, err)
				}
			}
			if !path.IsAbs(target) {
				target = path.Join(cur, target)
			}
			return b.place(s, path.Join(append([]string{target}, names[i+1:]...)...), links+1)
		}
		if i < len(names)-1 {
			if !fi.IsDir() {
				return fmt.Errorf("%s: %s is not a directory", s.path, next)
			}
			if err := b.mkdir(next); err != nil {
				return fmt.Errorf("%s: %w", s.path, err)
			}
			cur = next
			continue
		}
		return b.bind(s, next, fi.IsDir())
	}
	return nil
}

// mkdir makes the directory p of the new root unless it is there (made
// before, or shown by a mount).
func (b *rootBuilder) mkdir(p string) error {
	if _, err := os.Lstat(b.newRoot + p); err == nil {
		return nil
	}
	return os.Mkdir(b.newRoot+p, 0o755)
}

// shownBy is the kind of the innermost mount that already shows p, and
// whether there is one.
func (b *rootBuilder) shownBy(p string) (mountKind, bool) {
	best, kind := -1, mountKind(0)
	for _, m := range b.bound {
		if (p == m.path || strings.HasPrefix(p, m.path+"/") || m.path == "/") && len(m.path) > best {
			best, kind = len(m.path), m.kind
		}
	}
	return kind, best >= 0
}

// bind mounts p of the old root on p of the new one with s's flags.
func (b *rootBuilder) bind(s bindSpec, p string, dir bool) error {
	kind, shown := b.shownBy(p)
	switch {
	case shown && kind == s.kind:
		return nil // it is there already, as it should be
	case s.kind == protectMount && !shown:
		return nil // it does not exist in the sandbox at all
	}
	target := b.newRoot + p
	if _, err := os.Lstat(target); errors.Is(err, fs.ErrNotExist) {
		if dir {
			err = os.Mkdir(target, 0o755)
		} else {
			var f *os.File
			if f, err = os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err == nil {
				err = f.Close()
			}
		}
		if err != nil {
			return fmt.Errorf("%s: mount point: %w", s.path, err)
		}
	}
	source := b.oldRoot + p
	if err := unix.Mount(source, target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s: %w", p, err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(source, &st); err != nil {
		return fmt.Errorf("statfs %s: %w", p, err)
	}
	// Flags the kernel locked on the original mount must be kept.
	flags := unix.MS_BIND | unix.MS_REMOUNT | s.kind.flags() | lockedFlags(st.Flags)
	if err := unix.Mount("", target, "", flags, ""); err != nil {
		return fmt.Errorf("remount %s: %w", p, err)
	}
	b.bound = append(b.bound, bindSpec{path: p, kind: s.kind})
	return nil
}

// unwrapPath drops the old root's prefix from a path error (the path is
// the one the user gave).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
