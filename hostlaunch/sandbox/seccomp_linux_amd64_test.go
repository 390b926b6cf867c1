package sandbox

import "golang.org/x/sys/unix"

// seccompTestSpec is what the filter must do on amd64.
func seccompTestSpec() *seccompSpec {
	return &seccompSpec{
		native:  unix.AUDIT_ARCH_X86_64,
		foreign: []uint32{unix.AUDIT_ARCH_I386, unix.AUDIT_ARCH_AARCH64, 0},
		// i386's socketcall and socket: the numbers the int 0x80 bypass
		// uses.
		foreignNrs: []uint32{102, 359},
		x32:        true,
		denied: append(specDenied(),
			syscallNr{"fork", unix.SYS_FORK},
			syscallNr{"vfork", unix.SYS_VFORK},
			syscallNr{"iopl", unix.SYS_IOPL},
			syscallNr{"ioperm", unix.SYS_IOPERM},
		),
		allowed: append(specAllowed(),
			syscallNr{"open", unix.SYS_OPEN},
			syscallNr{"arch_prctl", unix.SYS_ARCH_PRCTL},
		),
		clone:      unix.SYS_CLONE,
		clone3:     unix.SYS_CLONE3,
		int80ELF:   int80ELF,
		x32ELF:     x32ELF,
		cloneFlags: 0,
	}
}

// forkNr is the fork system call's number (-1: none).
const forkNr = unix.SYS_FORK
