//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompSpec is what the filter must do on one architecture, written
// independently of nativeSeccompArch (per-architecture test files).
type seccompSpec struct {
	native     uint32      // seccomp_data.arch of native calls
	foreign    []uint32    // other arch values, all killed
	foreignNrs []uint32    // numbers to try with them
	x32        bool        // numbers with bit 30 set are killed
	denied     []syscallNr // EPERM whatever the arguments
	allowed    []syscallNr // allowed with zero arguments
	clone      uint32
	clone3     uint32
	cloneFlags int // index of clone's flags argument
	// int80ELF and x32ELF build executables that enter the kernel through
	// a foreign ABI (nil: none for this architecture).
	int80ELF func() []byte
	x32ELF   func() []byte
}

// Clone flags as real callers pass them (glibc 2.36 and Go 1.26 sources).
const (
	// glibc's pthread_create fallback when clone3 fails:
	// CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGNAL|CLONE_SETTLS|
	// CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID|CLONE_SYSVSEM.
	glibcThreadFlags = unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND |
		unix.CLONE_THREAD | unix.CLONE_SETTLS | unix.CLONE_PARENT_SETTID |
		unix.CLONE_CHILD_CLEARTID | unix.CLONE_SYSVSEM
	// The Go runtime's newosproc (runtime/os_linux.go cloneFlags).
	goThreadFlags = unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND |
		unix.CLONE_SYSVSEM | unix.CLONE_THREAD
	// glibc's fork: CLONE_CHILD_SETTID|CLONE_CHILD_CLEARTID|SIGCHLD.
	glibcForkFlags = unix.CLONE_CHILD_SETTID | unix.CLONE_CHILD_CLEARTID | uint64(unix.SIGCHLD)
	// Go's syscall.forkAndExecInChild and glibc's posix_spawn:
	// CLONE_VM|CLONE_VFORK|SIGCHLD.
	vforkFlags = unix.CLONE_VM | unix.CLONE_VFORK | uint64(unix.SIGCHLD)
)

// seccompData encodes a struct seccomp_data for golang.org/x/net/bpf's VM.
//
// The kernel hands the filter seccomp_data in the machine's byte order
// (little-endian here), and a seccomp filter loads aligned 32-bit words
// from it as native integers. The VM's LoadAbsolute instead reads its
// input big-endian, like packet bytes. So each 32-bit word is written
// big-endian at the offset where the little-endian layout puts it: nr at
// 0, arch at 4, and for each 64-bit argument its low word at 16+8*i and
// its high word at 20+8*i. The filter, run in the VM, then sees exactly
// the values the kernel would give it.
func seccompData(nr, arch uint32, args ...uint64) []byte {
	b := make([]byte, 64) // sizeof(struct seccomp_data)
	binary.BigEndian.PutUint32(b[0:], nr)
	binary.BigEndian.PutUint32(b[4:], arch)
	for i, a := range args {
		binary.BigEndian.PutUint32(b[16+8*i:], uint32(a))
		binary.BigEndian.PutUint32(b[20+8*i:], uint32(a>>32))
	}
	return b
}

// seccompVM returns a VM running the assembled filter (disassembled back,
// so the tests check the very instructions the kernel is given).
func seccompVM(t *testing.T) *bpf.VM {
	t.Helper()
	raw, err := seccompProgram()
	if err != nil {
		t.Fatalf("seccompProgram: %v", err)
	}
	ins, ok := bpf.Disassemble(raw)
	if !ok {
		t.Fatalf("seccompProgram: instructions the VM cannot decode: %v", ins)
	}
	vm, err := bpf.NewVM(ins)
	if err != nil {
		t.Fatalf("bpf.NewVM: %v", err)
	}
	return vm
}

// runSeccomp runs the filter over data and returns its seccomp action.
func runSeccomp(t *testing.T, vm *bpf.VM, data []byte) uint32 {
	t.Helper()
	ret, err := vm.Run(data)
	if err != nil {
		t.Fatalf("vm.Run: %v", err)
	}
	return uint32(ret)
}

// actionName renders a seccomp return value for failure messages.
func actionName(a uint32) string {
	switch {
	case a == seccompAllow:
		return "ALLOW"
	case a == seccompKill:
		return "KILL_PROCESS"
	case a&unix.SECCOMP_RET_ACTION_FULL == unix.SECCOMP_RET_ERRNO:
		return "ERRNO(" + unix.ErrnoName(syscall.Errno(a&unix.SECCOMP_RET_DATA)) + ")"
	}
	return fmt.Sprintf("%#x", a)
}

// TestSeccompProgramOtherArch checks that an architecture without a
// filter gets an error naming it, which the caller reports as the seccomp
// layer missing (never an empty or wrong-numbered filter).
func TestSeccompProgramOtherArch(t *testing.T) {
	if seccompTestSpec() != nil {
		t.Skipf("GOARCH %s has a filter", runtime.GOARCH)
	}
	_, err := seccompProgram()
	if err == nil || !strings.Contains(err.Error(), runtime.GOARCH) {
		t.Fatalf("seccompProgram() error = %v; want one naming GOARCH %s", err, runtime.GOARCH)
	}
}

// TestSeccompFilter runs the assembled filter in x/net/bpf's VM over
// hand-built seccomp_data: allowed and denied calls, clone with the flags
// threads and processes are created with, socket in every domain, foreign
// architectures and x32 numbers.
func TestSeccompFilter(t *testing.T) {
	spec := seccompTestSpec()
	if spec == nil {
		t.Skipf("no seccomp filter for GOARCH %s", runtime.GOARCH)
	}
	vm := seccompVM(t)

	type tc struct {
		name string
		data []byte
		want uint32
	}
	// clone's arguments with the flags at their index.
	cloneArgs := func(flags uint64) []uint64 {
		args := make([]uint64, 6)
		args[spec.cloneFlags] = flags
		return args
	}
	tests := []tc{
		{"clone glibc thread", seccompData(spec.clone, spec.native, cloneArgs(glibcThreadFlags)...), seccompAllow},
		{"clone Go thread", seccompData(spec.clone, spec.native, cloneArgs(goThreadFlags)...), seccompAllow},
		{"clone thread high word set", seccompData(spec.clone, spec.native, cloneArgs(0xffffffff<<32|goThreadFlags)...), seccompAllow},
		{"clone glibc fork", seccompData(spec.clone, spec.native, cloneArgs(glibcForkFlags)...), seccompEPERM},
		{"clone vfork (Go ForkExec, posix_spawn)", seccompData(spec.clone, spec.native, cloneArgs(vforkFlags)...), seccompEPERM},
		{"clone flags 0", seccompData(spec.clone, spec.native, cloneArgs(0)...), seccompEPERM},
		{"clone CLONE_THREAD only in high word", seccompData(spec.clone, spec.native, cloneArgs(unix.CLONE_THREAD<<32|vforkFlags)...), seccompEPERM},
		{"clone CLONE_NEWUSER", seccompData(spec.clone, spec.native, cloneArgs(unix.CLONE_NEWUSER|uint64(unix.SIGCHLD))...), seccompEPERM},
		{"clone thread with CLONE_NEWNET", seccompData(spec.clone, spec.native, cloneArgs(goThreadFlags|unix.CLONE_NEWNET)...), seccompEPERM},
		{"clone thread with CLONE_NEWUSER", seccompData(spec.clone, spec.native, cloneArgs(goThreadFlags|unix.CLONE_NEWUSER)...), seccompEPERM},
		{"clone3", seccompData(spec.clone3, spec.native), seccompENOSYS},
		{"clone3 with arguments", seccompData(spec.clone3, spec.native, 0x7fff0000, 88), seccompENOSYS},
	}
	for _, s := range spec.allowed {
		tests = append(tests, tc{s.name, seccompData(s.nr, spec.native), seccompAllow})
	}
	for _, s := range spec.denied {
		tests = append(tests, tc{s.name, seccompData(s.nr, spec.native), seccompEPERM})
	}
	for _, d := range []struct {
		name   string
		domain uint64
	}{
		{"AF_INET", unix.AF_INET}, {"AF_INET6", unix.AF_INET6}, {"AF_UNIX", unix.AF_UNIX},
		{"AF_NETLINK", unix.AF_NETLINK}, {"AF_PACKET", unix.AF_PACKET}, {"AF_VSOCK", unix.AF_VSOCK},
	} {
		tests = append(tests,
			tc{"socket " + d.name, seccompData(unix.SYS_SOCKET, spec.native, d.domain, unix.SOCK_STREAM|unix.SOCK_CLOEXEC), seccompEPERM},
			tc{"socketpair " + d.name, seccompData(unix.SYS_SOCKETPAIR, spec.native, d.domain, unix.SOCK_STREAM), seccompAllow},
		)
	}
	for _, arch := range spec.foreign {
		for _, nr := range append([]uint32{unix.SYS_SOCKET, spec.clone}, spec.foreignNrs...) {
			tests = append(tests, tc{fmt.Sprintf("arch %#x nr %d", arch, nr), seccompData(nr, arch, unix.AF_INET, unix.SOCK_STREAM), seccompKill})
		}
	}
	if spec.x32 {
		for _, nr := range []uint32{unix.SYS_READ, unix.SYS_SOCKET, unix.SYS_WRITE, 512, 0x3fffffff} {
			tests = append(tests, tc{fmt.Sprintf("x32 nr %#x", x32SyscallBit|nr), seccompData(x32SyscallBit|nr, spec.native), seccompKill})
		}
		tests = append(tests, tc{"nr -1 (tracer-skipped call)", seccompData(0xffffffff, spec.native), seccompAllow})
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := runSeccomp(t, vm, tt.data); got != tt.want {
				t.Errorf("filter(%x) = %s; want %s", tt.data[:32], actionName(got), actionName(tt.want))
			}
		})
	}
}

// TestSeccompFilterEveryNumber runs every native system call number
// through the filter with zero arguments: the ones in the spec get their
// action, every other one is allowed. A call the filter denies that the
// spec does not list fails here.
func TestSeccompFilterEveryNumber(t *testing.T) {
	spec := seccompTestSpec()
	if spec == nil {
		t.Skipf("no seccomp filter for GOARCH %s", runtime.GOARCH)
	}
	vm := seccompVM(t)
	want := map[uint32]uint32{
		spec.clone:  seccompEPERM, // flags 0: not a thread
		spec.clone3: seccompENOSYS,
	}
	for _, s := range spec.denied {
		want[s.nr] = seccompEPERM
	}
	for nr := uint32(0); nr < 2048; nr++ {
		w, ok := want[nr]
		if !ok {
			w = seccompAllow
		}
		if got := runSeccomp(t, vm, seccompData(nr, spec.native)); got != w {
			t.Errorf("filter(nr %d) = %s; want %s", nr, actionName(got), actionName(w))
		}
	}
}

// The real-kernel tests re-execute the test binary (TestMain runs
// children[$AIRVSX_TEST_CHILD]); the child installs the filter and then
// reports, or execs the program in $AIRVSX_TEST_ARGV.
const (
	childSeccompProbes = "seccomp-probes"
	childSeccompExec   = "seccomp-exec"
	childPlainExec     = "plain-exec"
	childSeccompX32    = "seccomp-x32"
	// argvEnv holds the JSON argv a child execs.
	argvEnv = "AIRVSX_TEST_ARGV"
	// noFilterEnv makes the probe child skip installSeccomp: the
	// baseline that shows each probe can fail.
	noFilterEnv = "AIRVSX_TEST_NO_FILTER"
)

// init registers the seccomp children with TestMain's dispatcher.
func init() {
	children[childSeccompProbes] = runSeccompProbes
	children[childSeccompExec] = func() { execArgv(true) }
	children[childPlainExec] = func() { execArgv(false) }
	children[childSeccompX32] = func() {
		mustInstallSeccomp()
		// A native syscall instruction with an x32 number: killed by
		// the architecture guard before the kernel looks at it.
		_, _, errno := unix.RawSyscall(x32SyscallBit|unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_STREAM, 0)
		fmt.Printf("x32 socket returned %v\n", errno)
	}
}

// mustInstallSeccomp installs the filter in a child or exits 2.
func mustInstallSeccomp() {
	if err := installSeccomp(); err != nil {
		fmt.Fprintln(os.Stderr, "installSeccomp:", err)
		os.Exit(2)
	}
}

// execArgv execs $AIRVSX_TEST_ARGV, after installing the filter if
// filter is set.
func execArgv(filter bool) {
	var argv []string
	if err := json.Unmarshal([]byte(os.Getenv(argvEnv)), &argv); err != nil || len(argv) == 0 {
		fmt.Fprintf(os.Stderr, "%s: %v\n", argvEnv, err)
		os.Exit(2)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AIRVSX_TEST_") {
			env = append(env, kv)
		}
	}
	if filter {
		mustInstallSeccomp()
	}
	err := syscall.Exec(argv[0], argv, env)
	fmt.Fprintf(os.Stderr, "exec %s: %v\n", argv[0], err)
	os.Exit(2)
}

// seccompProbe is one thing the probe child tries under the filter.
type seccompProbe struct {
	name string
	// want is the result under the filter ("ok" or an errno name).
	want string
	// differs reports whether the baseline (no filter) must give a
	// different result: false for what the filter must not change.
	differs bool
	run     func() error
}

// seccompProbes are the real-kernel checks, all harmless when the filter
// is absent (the baseline run): the clone3 probe passes no arguments, so
// the kernel answers EINVAL rather than creating a process.
func seccompProbes() []seccompProbe {
	sock := func(domain, typ, proto int) func() error {
		return func() error {
			fd, err := unix.Socket(domain, typ|unix.SOCK_CLOEXEC, proto)
			if err == nil {
				unix.Close(fd)
			}
			return err
		}
	}
	probes := []seccompProbe{
		{"seccomp mode", "ok", true, func() error {
			mode, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
			if err != nil {
				return err
			}
			if mode != unix.SECCOMP_MODE_FILTER {
				return fmt.Errorf("mode%d", mode)
			}
			return nil
		}},
		{"socket AF_INET", "EPERM", true, sock(unix.AF_INET, unix.SOCK_STREAM, 0)},
		{"socket AF_INET6 UDP", "EPERM", true, sock(unix.AF_INET6, unix.SOCK_DGRAM, 0)},
		{"socket AF_UNIX", "EPERM", true, sock(unix.AF_UNIX, unix.SOCK_STREAM, 0)},
		{"socket AF_NETLINK", "EPERM", true, sock(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE)},
		{"socket AF_PACKET", "EPERM", true, sock(unix.AF_PACKET, unix.SOCK_DGRAM, 0)},
		{"socketpair AF_UNIX", "ok", false, func() error {
			fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				return err
			}
			defer unix.Close(fds[0])
			defer unix.Close(fds[1])
			if _, err := unix.Write(fds[0], []byte("ping")); err != nil {
				return err
			}
			buf := make([]byte, 4)
			if n, err := unix.Read(fds[1], buf); err != nil || string(buf[:n]) != "ping" {
				return fmt.Errorf("read %q, %v", buf[:n], err)
			}
			return nil
		}},
		{"unshare CLONE_NEWUSER", "EPERM", true, func() error { return unix.Unshare(unix.CLONE_NEWUSER) }},
		// An empty target: without the filter the kernel answers ENOENT
		// and mounts nothing.
		{"mount", "EPERM", true, func() error { return unix.Mount("none", "", "tmpfs", unix.MS_RDONLY, "") }},
		{"io_uring_setup", "EPERM", true, func() error {
			var params [120]byte // struct io_uring_params
			fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params)), 0)
			if errno != 0 {
				return errno
			}
			unix.Close(int(fd))
			return nil
		}},
		{"clone3", "ENOSYS", true, func() error {
			_, _, errno := unix.RawSyscall(unix.SYS_CLONE3, 0, 0, 0)
			return errno
		}},
		{"syscall.ForkExec /bin/true", "EPERM", true, func() error {
			pid, err := syscall.ForkExec("/bin/true", []string{"true"}, nil)
			if err == nil {
				var ws syscall.WaitStatus
				_, err = syscall.Wait4(pid, &ws, 0, nil)
			}
			return err
		}},
		{"os/exec /bin/true", "EPERM", true, func() error { return exec.Command("/bin/true").Run() }},
		{"threads", "ok", false, probeThreads},
	}
	if forkNr >= 0 {
		probes = append(probes, seccompProbe{"fork", "EPERM", true, probeFork})
	}
	return probes
}

// probeFork makes the fork system call, on architectures that have one
// (arm64 has none: fork is clone there, which the ForkExec probes cover).
// A child, if the kernel makes one, exits at once without running any Go.
func probeFork() error {
	nr := forkNr
	pid, _, errno := unix.RawSyscall(uintptr(nr), 0, 0, 0)
	if errno != 0 {
		return errno
	}
	if pid == 0 {
		unix.RawSyscall(unix.SYS_EXIT_GROUP, 0, 0, 0)
	}
	var ws unix.WaitStatus
	_, err := unix.Wait4(int(pid), &ws, 0, nil)
	return err
}

// probeThreads makes the runtime start 64 more OS threads (goroutines
// locked to their thread and blocked keep them), which needs clone with
// CLONE_THREAD, and checks /proc that they exist.
func probeThreads() error {
	const n = 64
	before, err := threadCount()
	if err != nil {
		return err
	}
	release := make(chan struct{})
	var ready, done sync.WaitGroup
	ready.Add(n)
	for range n {
		done.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ready.Done()
			<-release
		})
	}
	ready.Wait()
	after, err := threadCount()
	close(release)
	done.Wait()
	if err != nil {
		return err
	}
	if after < before+n-4 { // a few idle threads may be reused
		return fmt.Errorf("%d threads, %d before", after, before)
	}
	return nil
}

// threadCount is the process's number of threads (/proc/self/status).
func threadCount() (int, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, errors.New("no Threads line in /proc/self/status")
}

// probeResult renders a probe's error as "ok" or the errno's name.
func probeResult(err error) string {
	var errno syscall.Errno
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &errno):
		return unix.ErrnoName(errno)
	}
	return strings.ReplaceAll(err.Error(), " ", "_")
}

// runSeccompProbes is the probe child: it installs the filter (unless
// $AIRVSX_TEST_NO_FILTER) and prints "name<TAB>result" per probe.
func runSeccompProbes() {
	if os.Getenv(noFilterEnv) == "" {
		mustInstallSeccomp()
	}
	for _, p := range seccompProbes() {
		fmt.Printf("%s\t%s\n", p.name, probeResult(p.run()))
	}
}

// childCommand re-executes the test binary as the named child.
func childCommand(t *testing.T, name string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), childEnv+"="+name), env...)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// probeChild runs the probe child and returns its results by probe name.
func probeChild(t *testing.T, env ...string) map[string]string {
	t.Helper()
	var stderr bytes.Buffer
	cmd := childCommand(t, childSeccompProbes, env...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("probe child: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.Bytes())
	}
	got := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		name, result, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			t.Fatalf("probe child printed %q", sc.Text())
		}
		got[name] = result
	}
	return got
}

// requireSeccomp skips a real-kernel test where seccompAvailable says the
// filter cannot be installed (TestSeccompAvailable fails there instead).
func requireSeccomp(t *testing.T) {
	t.Helper()
	if err := seccompAvailable(); err != nil {
		t.Skipf("seccomp unavailable here: %v", err)
	}
}

// TestSeccompAvailable checks the probe's answer: usable on the
// architectures with a filter, not on the others.
func TestSeccompAvailable(t *testing.T) {
	err := seccompAvailable()
	if seccompTestSpec() == nil {
		if err == nil {
			t.Fatalf("seccompAvailable() = nil on GOARCH %s, which has no filter", runtime.GOARCH)
		}
		return
	}
	// Linux 4.14+ with CONFIG_SECCOMP_FILTER is what the sandbox needs;
	// every kernel we support has it, so nil is the only right answer.
	if err != nil {
		t.Fatalf("seccompAvailable() = %v; want nil on Linux/%s", err, runtime.GOARCH)
	}
}

// TestSeccompKernel installs the filter in a child process and checks
// what the kernel then does, against a baseline child without the
// filter that shows each denial is the filter's doing.
func TestSeccompKernel(t *testing.T) {
	requireSeccomp(t)
	got := probeChild(t)
	base := probeChild(t, noFilterEnv+"=1")
	for _, p := range seccompProbes() {
		t.Run(p.name, func(t *testing.T) {
			t.Logf("under the filter %s, without %s", got[p.name], base[p.name])
			if got[p.name] != p.want {
				t.Errorf("under the filter: %s = %q; want %q", p.name, got[p.name], p.want)
			}
			if p.differs && base[p.name] == p.want {
				t.Errorf("without the filter: %s = %q too; the probe proves nothing", p.name, base[p.name])
			}
			if !p.differs && base[p.name] != p.want {
				t.Errorf("without the filter: %s = %q; want %q", p.name, base[p.name], p.want)
			}
		})
	}
}

// exitSignal returns the signal that ended cmd's process, or 0.
func exitSignal(err error) syscall.Signal {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 0
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal()
	}
	return 0
}

// execChild runs argv through the exec child (with the filter or not)
// and returns its combined output and error.
func execChild(t *testing.T, filter bool, argv ...string) ([]byte, error) {
	t.Helper()
	a, err := json.Marshal(argv)
	if err != nil {
		t.Fatal(err)
	}
	name := childPlainExec
	if filter {
		name = childSeccompExec
	}
	return childCommand(t, name, argvEnv+"="+string(a)).CombinedOutput()
}

// writeExecutable writes b to a new executable file in a temporary
// directory and returns its path.
func writeExecutable(t *testing.T, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSeccompArchGuard checks the architecture guard in the kernel:
// native code that enters through the i386 gate (int 0x80) or with an
// x32 number dies by SIGSYS under the filter, and runs to exit 0 without
// it (so the binary itself works).
func TestSeccompArchGuard(t *testing.T) {
	requireSeccomp(t)
	spec := seccompTestSpec()
	if spec == nil || spec.int80ELF == nil {
		t.Skipf("GOARCH %s has no second system call ABI for native code to use", runtime.GOARCH)
	}
	t.Run("int 0x80 socket", func(t *testing.T) {
		bin := writeExecutable(t, "int80", spec.int80ELF())
		out, err := exec.CommandContext(t.Context(), bin).CombinedOutput()
		if sig := exitSignal(err); sig == syscall.SIGSEGV {
			// The kernel faults int 0x80 when it has no i386 entry
			// (CONFIG_IA32_EMULATION off, ia32_emulation=0, or a
			// hypervisor without it): there is no bypass to stop.
			t.Skipf("int 0x80 faults without the filter (%v): this kernel has no i386 system call entry", err)
		}
		if err != nil {
			t.Fatalf("without the filter: %v, %s; want exit 0 (the i386 socket call worked)", err, out)
		}
		out, err = execChild(t, true, bin)
		if sig := exitSignal(err); sig != syscall.SIGSYS {
			t.Fatalf("under the filter: %v (%q); want death by SIGSYS", err, out)
		}
	})
	t.Run("x32 socket", func(t *testing.T) {
		bin := writeExecutable(t, "x32", spec.x32ELF())
		if out, err := exec.CommandContext(t.Context(), bin).CombinedOutput(); err != nil {
			t.Fatalf("without the filter: %v, %s; want exit 0", err, out)
		}
		out, err := execChild(t, true, bin)
		if sig := exitSignal(err); sig != syscall.SIGSYS {
			t.Fatalf("under the filter: %v (%q); want death by SIGSYS", err, out)
		}
	})
	t.Run("x32 socket from Go", func(t *testing.T) {
		out, err := childCommand(t, childSeccompX32).CombinedOutput()
		if sig := exitSignal(err); sig != syscall.SIGSYS {
			t.Fatalf("child: %v (%q); want death by SIGSYS", err, out)
		}
	})
}

// nodeScript is run by node under the filter: a JSON round trip, a
// SHA-256, its own file read both synchronously and through libuv's
// thread pool (threads created under the filter), a timer and a Promise.
const nodeScript = `'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
(async () => {
  const self = fs.readFileSync(__filename);
  const again = await fs.promises.readFile(__filename);
  if (!self.equals(again)) throw new Error('the two reads differ');
  await new Promise((resolve) => setTimeout(resolve, 20));
  const doc = JSON.parse(JSON.stringify({ n: [1, 2, 3], s: 'x' }));
  const sum = await Promise.all(doc.n.map(async (v) => v * 2));
  process.stdout.write(JSON.stringify({
    bytes: self.length,
    sha256: crypto.createHash('sha256').update(self).digest('hex'),
    sum: sum.reduce((a, b) => a + b, 0),
  }) + '\n');
})().catch((e) => { console.error(e); process.exit(1); });
`

// nodeChildProcess tries to run /bin/true and prints "SPAWNED" or "ERR
// <code>".
const nodeChildProcess = `try {
  require('child_process').execFileSync('/bin/true');
  console.log('SPAWNED');
} catch (e) { console.log('ERR ' + e.code); }`

// nodeConnect connects to 127.0.0.1:$PORT (argv[1]) and prints
// "CONNECTED" or "ERR <code>".
const nodeConnect = `const s = require('net').connect(Number(process.argv[1]), '127.0.0.1');
s.on('connect', () => { console.log('CONNECTED'); s.destroy(); });
s.on('error', (e) => console.log('ERR ' + e.code));`

// TestSeccompNode runs node under the filter: ordinary work succeeds, a
// child process and a TCP connection fail (and succeed without the filter,
// so the failures are the filter's).
func TestSeccompNode(t *testing.T) {
	requireSeccomp(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("node not on PATH: %v", err)
	}

	t.Run("script", func(t *testing.T) {
		script := writeExecutable(t, "script.js", []byte(nodeScript))
		out, err := execChild(t, true, node, script)
		if err != nil {
			t.Fatalf("node under the filter: %v\n%s", err, out)
		}
		var got struct {
			Bytes  int    `json:"bytes"`
			SHA256 string `json:"sha256"`
			Sum    int    `json:"sum"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("node printed %q: %v", out, err)
		}
		sum := sha256.Sum256([]byte(nodeScript))
		if got.Bytes != len(nodeScript) || got.SHA256 != hex.EncodeToString(sum[:]) || got.Sum != 12 {
			t.Errorf("node printed %+v; want bytes %d, sha256 %x, sum 12", got, len(nodeScript), sum)
		}
	})

	t.Run("child_process", func(t *testing.T) {
		out, err := execChild(t, false, node, "-e", nodeChildProcess)
		if err != nil || strings.TrimSpace(string(out)) != "SPAWNED" {
			t.Fatalf("without the filter: %v, %q; want SPAWNED", err, out)
		}
		out, err = execChild(t, true, node, "-e", nodeChildProcess)
		if err != nil {
			t.Fatalf("node under the filter: %v\n%s", err, out)
		}
		switch got := strings.TrimSpace(string(out)); got {
		case "ERR EPERM", "ERR EAGAIN", "ERR ENOSYS":
			t.Logf("under the filter: %s", got)
		default:
			t.Errorf("under the filter: %q; want ERR EPERM (or EAGAIN, ENOSYS)", got)
		}
	})

	t.Run("net.connect", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		out, err := execChild(t, false, node, "-e", nodeConnect, port)
		if err != nil || strings.TrimSpace(string(out)) != "CONNECTED" {
			t.Fatalf("without the filter: %v, %q; want CONNECTED", err, out)
		}
		out, err = execChild(t, true, node, "-e", nodeConnect, port)
		if err != nil {
			t.Fatalf("node under the filter: %v\n%s", err, out)
		}
		if got := strings.TrimSpace(string(out)); got != "ERR EPERM" {
			t.Errorf("under the filter: %q; want ERR EPERM", got)
		}
	})
}

// childMemfdExec copies this test binary (named by argv[0], which a
// sandbox lets the program read) into a memfd and runs the copy from
// there with execveat(AT_EMPTY_PATH), as the childMemfdRan child: a
// program that no path names, so neither noexec nor Landlock's execute
// rule sees it. Under the filter it prints the refusal; without, the copy
// prints "ran-from-memfd".
const (
	childMemfdExec = "memfd-exec"
	childMemfdRan  = "memfd-ran"
)

func init() {
	children[childMemfdRan] = func() { fmt.Println("ran-from-memfd") }
	children[childMemfdExec] = func() {
		if os.Getenv(noFilterEnv) == "" {
			mustInstallSeccomp()
		}
		b, err := os.ReadFile(os.Args[0])
		if err != nil {
			fmt.Println("read the program:", err)
			os.Exit(2)
		}
		fd, err := unix.MemfdCreate("airvsx-memfd-exec", 0)
		if err != nil {
			fmt.Println("memfd_create:", err)
			os.Exit(2)
		}
		if _, err := unix.Write(fd, b); err != nil {
			fmt.Println("write:", err)
			os.Exit(2)
		}
		argv := []string{"memfd-copy", "-test.run=^$"}
		env := []string{childEnv + "=" + childMemfdRan}
		err = execveat(fd, argv, env)
		fmt.Println("execveat:", err)
		os.Exit(3)
	}
}

// TestSeccompMemfdExec: the filter refuses execveat, so an ELF written
// to memory (memfd_create) cannot be run; without the filter it runs (the
// probe is real).
func TestSeccompMemfdExec(t *testing.T) {
	requireSeccomp(t)
	for _, tc := range []struct {
		filter bool
		want   string
	}{{true, "execveat: operation not permitted"}, {false, "ran-from-memfd"}} {
		var env []string
		if !tc.filter {
			env = append(env, noFilterEnv+"=1")
		}
		out, err := childCommand(t, childMemfdExec, env...).CombinedOutput()
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("filter %v: %q (%v); want %q", tc.filter, out, err, tc.want)
		}
	}
}

// execveat runs the program in fd (execveat with an empty path and
// AT_EMPTY_PATH); it returns only on failure.
func execveat(fd int, argv, env []string) error {
	empty, err := unix.BytePtrFromString("")
	if err != nil {
		return err
	}
	argvp, err := syscall.SlicePtrFromStrings(argv)
	if err != nil {
		return err
	}
	envp, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		return err
	}
	_, _, errno := unix.Syscall6(unix.SYS_EXECVEAT, uintptr(fd), uintptr(unsafe.Pointer(empty)),
		uintptr(unsafe.Pointer(&argvp[0])), uintptr(unsafe.Pointer(&envp[0])), unix.AT_EMPTY_PATH, 0)
	return errno
}
