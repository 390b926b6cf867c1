package sandbox

import "golang.org/x/sys/unix"

// seccompTestSpec is what the filter must do on arm64.
func seccompTestSpec() *seccompSpec {
	return &seccompSpec{
		native:  unix.AUDIT_ARCH_AARCH64,
		foreign: []uint32{unix.AUDIT_ARCH_ARM, unix.AUDIT_ARCH_X86_64, 0},
		// 32-bit ARM's socket.
		foreignNrs: []uint32{281},
		denied:     specDenied(),
		allowed:    specAllowed(),
		clone:      unix.SYS_CLONE,
		clone3:     unix.SYS_CLONE3,
		cloneFlags: 0,
	}
}

// forkNr is the fork system call's number (-1: none; arm64 forks with
// clone).
const forkNr = -1
