package sandbox

import "golang.org/x/sys/unix"

// nativeSeccompArch describes arm64 for the filter: native calls report
// AUDIT_ARCH_AARCH64 (32-bit ARM compat calls report AUDIT_ARCH_ARM and
// are killed), and clone's flags are its first argument (arm64 uses the
// kernel's CLONE_BACKWARDS order: flags, stack, parent_tid, tls,
// child_tid). arm64 has no fork, vfork, iopl or ioperm system calls:
// fork and vfork are clone there.
func nativeSeccompArch() (*seccompArch, error) {
	return &seccompArch{
		auditArch:     unix.AUDIT_ARCH_AARCH64,
		deny:          deniedSyscalls(),
		clone:         unix.SYS_CLONE,
		clone3:        unix.SYS_CLONE3,
		cloneFlagsArg: 0,
	}, nil
}
