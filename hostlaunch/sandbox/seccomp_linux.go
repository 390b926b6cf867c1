//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The seccomp layer. The helper installs it last, right before it execs
// node or a brokered program; the filter survives execve (seccomp(2)) and
// binds every thread of the process and all its descendants.
//
// The filter is a blocklist: everything not named is allowed, because node
// and the programs the broker starts need a large and changing set of
// system calls. A blocklist is only sound when the system call numbers it
// compares are the ones the kernel will run, so the first thing it does is
// check the architecture: on x86-64 a process can enter the kernel through
// the i386 "int 0x80" gate, where socket is number 359 (and socketcall
// 102), which a list of x86-64 numbers never matches. That bypass was
// measured on an x86-64 Linux host with IA32 emulation: a native binary
// created and connected a TCP socket under a blocklist without the guard,
// and died by SIGSYS with it. The x32 ABI (x86-64 numbers with bit 30 set)
// is killed the same way.

// Offsets into struct seccomp_data (linux/seccomp.h), which the kernel
// lays out in the native byte order: int nr at 0, __u32 arch at 4, __u64
// instruction_pointer at 8 and __u64 args[6] from 16.
const (
	seccompDataNr   = 0
	seccompDataArch = 4
	seccompDataArgs = 16
)

// seccompArgLow is the offset of the low 32 bits of system call argument i
// in struct seccomp_data. Classic BPF loads 32-bit words, and the
// architectures we build a filter for (x86-64, arm64) are little-endian,
// so the low word of each 64-bit argument comes first.
func seccompArgLow(i int) uint32 { return uint32(seccompDataArgs + 8*i) }

// x32SyscallBit is __X32_SYSCALL_BIT: on x86-64, system call numbers with
// this bit set run the x32 ABI's table, which reports the same audit arch
// as native x86-64; the filter kills them.
const x32SyscallBit = 0x40000000

// skippedSyscall is the number seccomp sees when a tracer cancels a system
// call (-1). It is not x32, and the kernel answers it with ENOSYS, so the
// x32 check lets it through, as libseccomp's filters do.
const skippedSyscall = 0xffffffff

// namespaceCloneFlags are clone's CLONE_NEW* flags. A thread never needs
// them (glibc and Go create threads without), so clone with any of them is
// denied even with CLONE_THREAD. CLONE_NEWTIME is left out: clone(2) only
// accepts it through clone3, and in clone's flags its bit is part of the
// exit signal.
const namespaceCloneFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS |
	unix.CLONE_NEWIPC | unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// Seccomp return values (seccomp(2), "Filter return values").
const (
	// seccompKill kills the whole process with SIGSYS (Linux 4.14+;
	// seccompAvailable checks the kernel has it).
	seccompKill = unix.SECCOMP_RET_KILL_PROCESS
	// seccompEPERM fails the system call with EPERM, the answer a
	// program expects from a call it is not permitted to make.
	seccompEPERM = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	// seccompENOSYS fails the system call as if the kernel did not have
	// it: used for clone3, so that glibc falls back to clone, whose flags
	// the filter can read (clone3 passes them in memory, out of reach of a
	// seccomp filter).
	seccompENOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	// seccompAllow runs the system call.
	seccompAllow = unix.SECCOMP_RET_ALLOW
)

// syscallNr is a system call of the native architecture with its name,
// for error messages and tests.
type syscallNr struct {
	name string
	nr   uint32
}

// seccompArch is what the filter needs to know about one architecture.
// Each supported GOARCH defines it in its own file (nativeSeccompArch).
type seccompArch struct {
	// auditArch is seccomp_data.arch for native system calls
	// (AUDIT_ARCH_*); any other value is killed.
	auditArch uint32
	// killX32 kills numbers with x32SyscallBit set (x86-64 only).
	killX32 bool
	// deny fails with EPERM whatever the arguments.
	deny []syscallNr
	// clone and clone3 are their numbers; cloneFlagsArg is the index of
	// clone's flags argument, which the kernel's clone argument order
	// fixes per architecture.
	clone, clone3 uint32
	cloneFlagsArg int
}

// seccompProgram returns the helper's seccomp filter for the native
// architecture, assembled for seccomp(SECCOMP_SET_MODE_FILTER), or an
// error naming GOARCH when there is no filter for it (the caller then
// reports the seccomp layer as missing).
func seccompProgram() ([]bpf.RawInstruction, error) {
	arch, err := nativeSeccompArch()
	if err != nil {
		return nil, err
	}
	raw, err := bpf.Assemble(seccompInstructions(arch))
	if err != nil {
		return nil, fmt.Errorf("assemble seccomp filter: %w", err)
	}
	return raw, nil
}

// seccompInstructions builds the filter for arch, in this order:
//
//  1. seccomp_data.arch other than arch.auditArch: kill the process. On
//     x86-64 also kill x32 numbers.
//  2. arch.deny: EPERM.
//  3. clone3: ENOSYS.
//  4. clone without CLONE_THREAD, or with a CLONE_NEW* flag: EPERM.
//     Threads stay allowed; new processes (fork, vfork and posix_spawn
//     all reach the kernel as clone or clone3 without CLONE_THREAD, or as
//     fork/vfork, which arch.deny holds) are the broker's job.
//  5. Everything else: allow.
//
// Each check is a compare-and-skip-one over its own return, so no jump is
// longer than one instruction whatever the size of the lists.
func seccompInstructions(arch *seccompArch) []bpf.Instruction {
	kill := bpf.RetConstant{Val: seccompKill}
	eperm := bpf.RetConstant{Val: seccompEPERM}
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: seccompDataArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: arch.auditArch, SkipTrue: 1},
		kill,
		bpf.LoadAbsolute{Off: seccompDataNr, Size: 4},
	}
	if arch.killX32 {
		prog = append(prog,
			bpf.JumpIf{Cond: bpf.JumpLessThan, Val: x32SyscallBit, SkipTrue: 2},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: skippedSyscall, SkipTrue: 1},
			kill,
		)
	}
	for _, s := range arch.deny {
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: s.nr, SkipTrue: 1}, eperm)
	}
	return append(prog,
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: arch.clone3, SkipTrue: 1},
		bpf.RetConstant{Val: seccompENOSYS},
		// clone: the kernel reads only the low 32 bits of its flags.
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: arch.clone, SkipTrue: 4},
		bpf.LoadAbsolute{Off: seccompArgLow(arch.cloneFlagsArg), Size: 4},
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: namespaceCloneFlags, SkipTrue: 1},
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: unix.CLONE_THREAD, SkipTrue: 1},
		eperm,
		bpf.RetConstant{Val: seccompAllow},
	)
}

// installSeccomp sets no_new_privs and installs the filter on every thread
// of the process (SECCOMP_FILTER_FLAG_TSYNC: the Go runtime already runs
// several threads, and a filter on one of them only would leave the
// others free). no_new_privs is what lets an unprivileged process install
// a filter (seccomp(2)), and it keeps the filter from being shed through a
// set-user-ID program. The filter cannot be removed; it survives execve.
func installSeccomp() error {
	raw, err := seccompProgram()
	if err != nil {
		return err
	}
	if len(raw) > unix.BPF_MAXINSNS {
		return fmt.Errorf("seccomp filter has %d instructions, more than the kernel's %d", len(raw), unix.BPF_MAXINSNS)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, ins := range raw {
		filter[i] = unix.SockFilter{Code: ins.Op, Jt: ins.Jt, Jf: ins.Jf, K: ins.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}

	// no_new_privs is per thread; TSYNC copies it to the other threads
	// along with the filter, so both calls must run on the same thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	tid, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		return fmt.Errorf("seccomp(SECCOMP_SET_MODE_FILTER, TSYNC): %w", errno)
	}
	if tid != 0 {
		// seccomp(2): with TSYNC, a positive return is the ID of a thread
		// that could not be synchronized; no thread got the filter.
		return fmt.Errorf("seccomp(SECCOMP_SET_MODE_FILTER, TSYNC): thread %d cannot take the filter", tid)
	}
	return nil
}

// errSeccompStrict is seccompAvailable's answer in a process already in
// strict mode, where seccomp itself is no longer callable.
var errSeccompStrict = errors.New("process is in seccomp strict mode")

// seccompAvailable reports whether installSeccomp can work here: nil when
// it can, else why not. It installs nothing. It checks that there is a
// filter for GOARCH, that the kernel has seccomp (PR_GET_SECCOMP fails
// with EINVAL without CONFIG_SECCOMP), that the process is not in strict
// mode (a process already under a filter may add one: filters stack), and
// that the kernel knows every action the filter returns
// (SECCOMP_GET_ACTION_AVAIL; SECCOMP_RET_KILL_PROCESS needs Linux 4.14).
func seccompAvailable() error {
	if _, err := seccompProgram(); err != nil {
		return err
	}
	mode, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	if err != nil {
		return fmt.Errorf("prctl(PR_GET_SECCOMP): %w", err)
	}
	if mode == unix.SECCOMP_MODE_STRICT {
		return errSeccompStrict
	}
	for _, a := range []struct {
		name   string
		action uint32
	}{
		{"SECCOMP_RET_KILL_PROCESS", unix.SECCOMP_RET_KILL_PROCESS},
		{"SECCOMP_RET_ERRNO", unix.SECCOMP_RET_ERRNO},
		{"SECCOMP_RET_ALLOW", unix.SECCOMP_RET_ALLOW},
	} {
		action := a.action
		_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
		if errno != 0 {
			return fmt.Errorf("seccomp(SECCOMP_GET_ACTION_AVAIL, %s): %w", a.name, errno)
		}
	}
	return nil
}
