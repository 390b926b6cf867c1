package sandbox

import "golang.org/x/sys/unix"

// nativeSeccompArch describes x86-64 for the filter: native calls report
// AUDIT_ARCH_X86_64 (i386 calls through int 0x80 report AUDIT_ARCH_I386
// and x32 calls set x32SyscallBit; both are killed), and clone's flags
// are its first argument (x86-64 uses the kernel's default clone argument
// order: flags, stack, parent_tid, child_tid, tls).
func nativeSeccompArch() (*seccompArch, error) {
	deny := append(deniedSyscalls(),
		// New processes; clone is checked by its flags.
		syscallNr{"fork", unix.SYS_FORK},
		syscallNr{"vfork", unix.SYS_VFORK},
		// I/O port access (x86 only).
		syscallNr{"iopl", unix.SYS_IOPL},
		syscallNr{"ioperm", unix.SYS_IOPERM},
	)
	return &seccompArch{
		auditArch:     unix.AUDIT_ARCH_X86_64,
		killX32:       true,
		deny:          deny,
		clone:         unix.SYS_CLONE,
		clone3:        unix.SYS_CLONE3,
		cloneFlagsArg: 0,
	}, nil
}
