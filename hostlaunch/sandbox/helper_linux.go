//go:build linux

package sandbox

import (
	"bufio"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Helper runs the sandbox helper when the process was started as one
// (argv[1] is one of the helper's markers) and never returns then;
// otherwise it returns at once. Call it first thing in main (and
// TestMain).
//
// With namespaces, the helper is the init of a new PID namespace: it
// checks that it has no network but a loopback, starts the second stage,
// builds the private root (only the runtime, the extensions, the
// workspace and the storage are in it; noexec and read-only where they
// may be), releases the second stage, and then only reaps and relays the
// exit status. The second stage sets rlimits, applies Landlock and
// seccomp, and execs. Without namespaces (degraded isolation), the one
// helper process confines itself and execs. Any failure ends it with
// status 125 and the reason on stderr: nothing runs without its sandbox.
func Helper() {
	if len(os.Args) < 3 || (os.Args[1] != helperArg && os.Args[1] != execArg) {
		return
	}
	var hs helperSpec
	if err := json.Unmarshal([]byte(os.Args[2]), &hs); err != nil {
		fail(fmt.Errorf("spec: %w", err))
	}
	if os.Args[1] == execArg {
		runStage2(&hs)
	}
	if hs.SkipNamespaces {
		if hs.Probe {
			os.Exit(0)
		}
		runConfined(&hs)
	}
	runInit(&hs)
}

// fail reports why the helper could not start what it was asked to.
func fail(err error) {
	fmt.Fprintf(os.Stderr, "airvsx sandbox: %v\n", err)
	os.Exit(helperExit)
}

// runConfined applies the process's own layers (rlimits, Landlock,
// seccomp) and execs hs.Exec: the second stage, or the only one when
// there are no namespaces.
func runConfined(hs *helperSpec) {
	if len(hs.Exec) == 0 {
		fail(errors.New("nothing to exec"))
	}
	if err := confine(hs); err != nil {
		fail(err)
	}
	// What it execs keeps no capability, even in its own namespaces.
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		fail(fmt.Errorf("clear ambient capabilities: %w", err))
	}
	err := syscall.Exec(hs.Exec[0], hs.Exec, os.Environ())
	fail(fmt.Errorf("exec %s: %w", hs.Exec[0], err))
}

// runStage2 is the second stage: in the private root the init built, it
// moves to the launcher's working directory, confines itself and execs.
func runStage2(hs *helperSpec) {
	if err := os.Chdir(hs.Cwd); err != nil {
		fail(fmt.Errorf("working directory: %w", err))
	}
	runConfined(hs)
}

// confine applies the layers a process applies to itself, in the order
// that keeps each possible: Landlock, seccomp (which denies what Landlock
// needs), then the rlimits, last, right before exec (the Go runtime itself
// may not run under a tight RLIMIT_DATA).
func confine(hs *helperSpec) error {
	exe, err := executables(hs.Exec[0])
	if err != nil {
		return err
	}
	if !hs.SkipLandlock {
		if err := restrictPaths(hs.LandlockABI, pathsOf(hs), exe); err != nil {
			return fmt.Errorf("landlock: %w", err)
		}
	}
	if !hs.SkipSeccomp {
		if err := installSeccomp(); err != nil {
			return fmt.Errorf("seccomp: %w", err)
		}
	} else if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	return setLimits(hs)
}

// checkNetwork refuses a network namespace with any interface but lo
// (/proc/self/net/dev lists the reading process's namespace).
func checkNetwork() error {
	f, err := os.Open("/proc/self/net/dev")
	if err != nil {
		return fmt.Errorf("network namespace: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, _, ok := strings.Cut(sc.Text(), ":")
		if !ok || strings.Contains(name, "|") {
			continue // the two header lines
		}
		if name = strings.TrimSpace(name); name != "lo" {
			return fmt.Errorf("network namespace: has interface %q besides lo", name)
		}
	}
	return sc.Err()
}

// access is what the sandboxed process may do with the paths.
type access struct {
	read  []string // read files, list directories
	write []string // also create, write, remove (no execute)
	// config are system files a brokered program reads (read only);
	// readOnly are paths nobody in the sandbox may change (no access of
	// their own).
	config   []string
	readOnly []string
}

// pathsOf is the filesystem the spec's process needs besides the runtime.
func pathsOf(hs *helperSpec) access {
	var a access
	switch {
	case hs.Host != nil:
		a.read = append([]string{hs.Host.HostDir}, hs.Host.ExtensionDirs...)
		a.write = append(slices.Clone(hs.Host.Storage), hs.Host.Workspace...)
		a.readOnly = hs.Host.ReadOnly
	case hs.Spawn != nil:
		if hs.Spawn.ExtensionDir != "" {
			a.read = []string{hs.Spawn.ExtensionDir}
		}
		a.write = slices.Clone(hs.Spawn.Workspace)
		if hs.Spawn.Storage != "" {
			a.write = append(a.write, hs.Spawn.Storage)
		}
		a.config = programConfig(hs.Spawn.Program)
		a.readOnly = hs.Spawn.ReadOnly
	}
	return a
}

// checkRuntimeOutside refuses a workspace (or extension, storage or host
// directory) that holds the program, its interpreter or the system's
// libraries: remounted noexec, they could not run, and exempting them
// would let an extension run what it writes there.
func checkRuntimeOutside(a access, exe []string) error {
	// exe is resolved already; the library directories once, here.
	runtime := slices.Clone(exe)
	for _, d := range libDirs {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			runtime = append(runtime, r)
		}
	}
	for _, p := range append(slices.Clone(a.read), a.write...) {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return err
		}
		for _, r := range runtime {
			if real == "/" || r == real || strings.HasPrefix(r, real+string(filepath.Separator)) {
				return fmt.Errorf("%s holds %s, which the sandbox must execute or load, but it mounts %s noexec: choose a workspace (and storage) that does not contain the node runtime or the system libraries", p, r, p)
			}
		}
	}
	return nil
}

// lockedFlags are the statfs flags of a mount that a remount in a user
// namespace must repeat (mount(2): EPERM otherwise).
func lockedFlags(f int64) uintptr {
	var out uintptr
	for _, x := range []struct {
		st int64
		ms uintptr
	}{
		{unix.ST_RDONLY, unix.MS_RDONLY}, {unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME},
		{unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if f&x.st != 0 {
			out |= x.ms
		}
	}
	return out
}

// setLimits sets the rlimits: open files, no core dumps, a bound on
// processes and threads, the memory the host or program may allocate
// (the launcher also watches its resident memory) and, for a brokered
// program, its processor time.
func setLimits(hs *helperSpec) error {
	type limit struct {
		name string
		res  int
		v    uint64
	}
	limits := []limit{
		{"RLIMIT_NOFILE", unix.RLIMIT_NOFILE, 4096},
		{"RLIMIT_CORE", unix.RLIMIT_CORE, 0},
		{"RLIMIT_NPROC", unix.RLIMIT_NPROC, 512},
	}
	if hs.DataMB > 0 {
		limits = append(limits, limit{"RLIMIT_DATA", unix.RLIMIT_DATA, uint64(hs.DataMB) << 20})
	}
	if hs.CPUSeconds > 0 {
		limits = append(limits, limit{"RLIMIT_CPU", unix.RLIMIT_CPU, uint64(hs.CPUSeconds)})
	}
	for _, l := range limits {
		var cur unix.Rlimit
		if err := unix.Getrlimit(l.res, &cur); err != nil {
			return fmt.Errorf("%s: %w", l.name, err)
		}
		v := min(l.v, cur.Max)
		if err := unix.Setrlimit(l.res, &unix.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("%s: %w", l.name, err)
		}
	}
	return nil
}

// libDirs hold the shared libraries a dynamically linked program loads:
// readable, never executable (ld.so maps them; Landlock's execute right
// is only checked by execve).
var libDirs = []string{"/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib"}

// systemFiles are read by node (and most programs) at start: the loader
// cache, OpenSSL's configuration, the time zone, randomness.
var systemFiles = []string{"/etc/ld.so.cache", "/etc/ssl", "/etc/localtime", "/usr/share/zoneinfo", "/dev/urandom", "/dev/random"}

// restrictPaths applies Landlock: prog and its ELF interpreter may be
// executed and read; the libraries and system files read; a.read read;
// a.write read and written (no execute anywhere else); no TCP bind or
// connect; no signals or abstract Unix sockets outside the sandbox.
func restrictPaths(abi int, a access, exe []string) error {
	cfg, err := landlockConfig(abi)
	if err != nil {
		return err
	}
	const (
		read  = llsys.AccessFSReadFile | llsys.AccessFSReadDir
		write = read | llsys.AccessFSWriteFile | llsys.AccessFSTruncate | llsys.AccessFSMakeReg | llsys.AccessFSMakeDir |
			llsys.AccessFSRemoveFile | llsys.AccessFSRemoveDir
	)
	nodeDir := filepath.Dir(exe[0])
	rules := []landlock.Rule{landlock.PathAccess(llsys.AccessFSExecute|llsys.AccessFSReadFile, exe...)}
	add := func(acc landlock.AccessFSSet, optional bool, paths ...string) error {
		for _, p := range paths {
			fi, err := os.Stat(p)
			if err != nil {
				if optional && errors.Is(err, fs.ErrNotExist) {
					continue
				}
				return err
			}
			r := landlock.PathAccess(acc, p)
			if !fi.IsDir() {
				// Directory rights on a file are an error to Landlock.
				r = landlock.PathAccess(acc&fileRights, p)
			}
			if acc&llsys.AccessFSMakeReg != 0 {
				r = r.WithRefer()
			}
			rules = append(rules, r)
		}
		return nil
	}
	for _, x := range []struct {
		acc      landlock.AccessFSSet
		optional bool
		paths    []string
	}{
		{read, true, libDirs},
		{read, true, systemFiles},
		// A node from an npm package or a tarball keeps its files beside it.
		{read, true, []string{filepath.Join(nodeDir, "..", "lib")}},
		{read, true, a.config},
		{read, false, a.read},
		{write, false, a.write},
	} {
		if err := add(x.acc, x.optional, x.paths...); err != nil {
			return err
		}
	}
	rules = append(rules, landlock.PathAccess(llsys.AccessFSReadFile|llsys.AccessFSWriteFile, "/dev/null").WithIoctlDev())
	return cfg.Restrict(rules...)
}

// fileRights are the Landlock rights that apply to a file (the others
// are about directory entries).
const fileRights = llsys.AccessFSExecute | llsys.AccessFSWriteFile | llsys.AccessFSReadFile | llsys.AccessFSTruncate | llsys.AccessFSIoctlDev

// landlockConfig is go-landlock's configuration for the kernel's ABI,
// never best-effort: what the ABI offers is all enforced or the helper
// fails.
func landlockConfig(abi int) (landlock.Config, error) {
	switch {
	case abi >= 7:
		return landlock.V7, nil
	case abi == 6:
		return landlock.V6, nil
	case abi == 5:
		return landlock.V5, nil
	case abi == 4:
		return landlock.V4, nil
	}
	return landlock.Config{}, fmt.Errorf("ABI %d is older than %d", abi, minLandlockABI)
}

// executables are the files execve opens for prog: prog itself (symlinks
// resolved), its ELF interpreter, and for a "#!" script its interpreter
// and that one's ELF interpreter.
func executables(prog string) ([]string, error) {
	real, err := filepath.EvalSymlinks(prog)
	if err != nil {
		return nil, err
	}
	out := []string{real}
	interp, err := elfInterp(real)
	if err != nil {
		return nil, err
	}
	if interp == "" {
		if shebang := scriptInterp(real); shebang != "" {
			more, err := executables(shebang)
			if err != nil {
				return nil, fmt.Errorf("%s: interpreter: %w", prog, err)
			}
			return append(out, more...), nil
		}
		return out, nil
	}
	ri, err := filepath.EvalSymlinks(interp)
	if err != nil {
		return nil, fmt.Errorf("%s: ELF interpreter: %w", prog, err)
	}
	return append(out, ri), nil
}

// elfInterp is the PT_INTERP of an ELF file ("" for a static binary or
// something that is not ELF).
func elfInterp(path string) (string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", nil
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b := make([]byte, min(p.Filesz, 4096))
			if _, err := p.ReadAt(b, 0); err != nil {
				return "", fmt.Errorf("%s: PT_INTERP: %w", path, err)
			}
			return strings.TrimRight(string(b), "\x00"), nil
		}
	}
	return "", nil
}

// scriptInterp is the interpreter a "#!" line names ("" for none).
func scriptInterp(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return ""
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 || !filepath.IsAbs(fields[0]) {
		return ""
	}
	return fields[0]
}
