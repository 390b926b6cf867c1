//go:build linux && (amd64 || arm64)

package sandbox

import "golang.org/x/sys/unix"

// deniedSyscalls are the system calls the filter fails with EPERM on every
// architecture it supports, whatever their arguments; each architecture's
// file adds its own (nativeSeccompArch). None is needed by node or by the
// programs the broker starts; each would let code in the sandbox reach
// past it.
func deniedSyscalls() []syscallNr {
	return []syscallNr{
		// Every socket: the network is the broker's (a fetch it proxies),
		// and the host's IPC channel is a socketpair the launcher made
		// before the helper ran. The i386 socketcall is not a native call;
		// the architecture guard kills it. socketpair stays allowed: it
		// reaches no one outside the process.
		{"socket", unix.SYS_SOCKET},
		// io_uring can create sockets and open files without the system
		// calls above; libuv falls back to its thread pool when
		// io_uring_setup fails.
		{"io_uring_setup", unix.SYS_IO_URING_SETUP},
		{"io_uring_enter", unix.SYS_IO_URING_ENTER},
		{"io_uring_register", unix.SYS_IO_URING_REGISTER},

		// Namespaces and mounts: the helper made the sandbox's; code in it
		// must not make others (a new user namespace gives it every
		// capability there) or change its view of the filesystem.
		{"unshare", unix.SYS_UNSHARE},
		{"setns", unix.SYS_SETNS},
		{"mount", unix.SYS_MOUNT},
		{"umount2", unix.SYS_UMOUNT2},
		{"pivot_root", unix.SYS_PIVOT_ROOT},
		{"chroot", unix.SYS_CHROOT},
		// The new mount API (Linux 5.2+), and open_tree_attr (6.15),
		// which clones a mount tree with new attributes.
		{"open_tree", unix.SYS_OPEN_TREE},
		{"open_tree_attr", unix.SYS_OPEN_TREE_ATTR},
		{"move_mount", unix.SYS_MOVE_MOUNT},
		{"fsopen", unix.SYS_FSOPEN},
		{"fsconfig", unix.SYS_FSCONFIG},
		{"fsmount", unix.SYS_FSMOUNT},
		{"fspick", unix.SYS_FSPICK},
		{"mount_setattr", unix.SYS_MOUNT_SETATTR},

		// A program from a descriptor: memfd_create and execveat
		// (AT_EMPTY_PATH) run an ELF written to memory, which no mount
		// flag (noexec) and no Landlock execute rule sees. Programs are
		// started with execve, by path, where both apply.
		{"execveat", unix.SYS_EXECVEAT},

		// Reading or changing other processes.
		{"ptrace", unix.SYS_PTRACE},
		{"process_vm_readv", unix.SYS_PROCESS_VM_READV},
		{"process_vm_writev", unix.SYS_PROCESS_VM_WRITEV},
		{"pidfd_getfd", unix.SYS_PIDFD_GETFD},
		{"kcmp", unix.SYS_KCMP},

		// Large kernel attack surface the sandboxed code has no use for.
		{"bpf", unix.SYS_BPF},
		{"perf_event_open", unix.SYS_PERF_EVENT_OPEN},
		{"userfaultfd", unix.SYS_USERFAULTFD},
		{"keyctl", unix.SYS_KEYCTL},
		{"add_key", unix.SYS_ADD_KEY},
		{"request_key", unix.SYS_REQUEST_KEY},
		{"fanotify_init", unix.SYS_FANOTIFY_INIT},
		// personality can turn on READ_IMPLIES_EXEC or drop ASLR for what
		// the process execs next.
		{"personality", unix.SYS_PERSONALITY},
		// memfd_secret (Linux 5.14+) maps memory the kernel itself
		// cannot read.
		{"memfd_secret", unix.SYS_MEMFD_SECRET},

		// Files opened by handle bypass path checks (Landlock's among
		// them).
		{"open_by_handle_at", unix.SYS_OPEN_BY_HANDLE_AT},
		{"name_to_handle_at", unix.SYS_NAME_TO_HANDLE_AT},

		// Administration of the machine: privileged anyway, but the
		// sandbox may hold capabilities inside its user namespace.
		{"init_module", unix.SYS_INIT_MODULE},
		{"finit_module", unix.SYS_FINIT_MODULE},
		{"delete_module", unix.SYS_DELETE_MODULE},
		{"kexec_load", unix.SYS_KEXEC_LOAD},
		{"kexec_file_load", unix.SYS_KEXEC_FILE_LOAD},
		{"acct", unix.SYS_ACCT},
		{"swapon", unix.SYS_SWAPON},
		{"swapoff", unix.SYS_SWAPOFF},
		{"reboot", unix.SYS_REBOOT},
		{"syslog", unix.SYS_SYSLOG},
		{"quotactl", unix.SYS_QUOTACTL},
		{"quotactl_fd", unix.SYS_QUOTACTL_FD},
	}
}
