//go:build linux && (amd64 || arm64)

package sandbox

import "golang.org/x/sys/unix"

// specDenied is the list of system calls the filter must fail with EPERM
// whatever their arguments, on every supported architecture, written out
// again here from the sandbox's design (not from deniedSyscalls) so that
// a call dropped from, or added to, the filter fails the tests.
func specDenied() []syscallNr {
	return []syscallNr{
		{"socket", unix.SYS_SOCKET},
		{"unshare", unix.SYS_UNSHARE},
		{"setns", unix.SYS_SETNS},
		{"mount", unix.SYS_MOUNT},
		{"umount2", unix.SYS_UMOUNT2},
		{"pivot_root", unix.SYS_PIVOT_ROOT},
		{"chroot", unix.SYS_CHROOT},
		{"ptrace", unix.SYS_PTRACE},
		{"process_vm_readv", unix.SYS_PROCESS_VM_READV},
		{"process_vm_writev", unix.SYS_PROCESS_VM_WRITEV},
		{"bpf", unix.SYS_BPF},
		{"perf_event_open", unix.SYS_PERF_EVENT_OPEN},
		{"keyctl", unix.SYS_KEYCTL},
		{"add_key", unix.SYS_ADD_KEY},
		{"request_key", unix.SYS_REQUEST_KEY},
		{"userfaultfd", unix.SYS_USERFAULTFD},
		{"init_module", unix.SYS_INIT_MODULE},
		{"finit_module", unix.SYS_FINIT_MODULE},
		{"delete_module", unix.SYS_DELETE_MODULE},
		{"kexec_load", unix.SYS_KEXEC_LOAD},
		{"kexec_file_load", unix.SYS_KEXEC_FILE_LOAD},
		{"open_by_handle_at", unix.SYS_OPEN_BY_HANDLE_AT},
		{"name_to_handle_at", unix.SYS_NAME_TO_HANDLE_AT},
		{"io_uring_setup", unix.SYS_IO_URING_SETUP},
		{"io_uring_enter", unix.SYS_IO_URING_ENTER},
		{"io_uring_register", unix.SYS_IO_URING_REGISTER},
		{"personality", unix.SYS_PERSONALITY},
		{"acct", unix.SYS_ACCT},
		{"swapon", unix.SYS_SWAPON},
		{"swapoff", unix.SYS_SWAPOFF},
		{"reboot", unix.SYS_REBOOT},
		{"syslog", unix.SYS_SYSLOG},
		{"quotactl", unix.SYS_QUOTACTL},
		{"quotactl_fd", unix.SYS_QUOTACTL_FD},
		{"fanotify_init", unix.SYS_FANOTIFY_INIT},
		{"pidfd_getfd", unix.SYS_PIDFD_GETFD},
		{"kcmp", unix.SYS_KCMP},
		{"open_tree", unix.SYS_OPEN_TREE},
		{"open_tree_attr", unix.SYS_OPEN_TREE_ATTR},
		{"move_mount", unix.SYS_MOVE_MOUNT},
		{"fsopen", unix.SYS_FSOPEN},
		{"fsconfig", unix.SYS_FSCONFIG},
		{"fsmount", unix.SYS_FSMOUNT},
		{"fspick", unix.SYS_FSPICK},
		{"mount_setattr", unix.SYS_MOUNT_SETATTR},
		{"memfd_secret", unix.SYS_MEMFD_SECRET},
		// A program run from a descriptor (memfd_create + execveat with
		// AT_EMPTY_PATH) passes noexec and Landlock's execute rule.
		{"execveat", unix.SYS_EXECVEAT},
	}
}

// specAllowed are ordinary system calls node and Go make all the time;
// the filter must let them through (with zero arguments).
func specAllowed() []syscallNr {
	return []syscallNr{
		{"read", unix.SYS_READ},
		{"write", unix.SYS_WRITE},
		{"openat", unix.SYS_OPENAT},
		{"close", unix.SYS_CLOSE},
		{"mmap", unix.SYS_MMAP},
		{"mprotect", unix.SYS_MPROTECT},
		{"futex", unix.SYS_FUTEX},
		{"execve", unix.SYS_EXECVE},
		{"memfd_create", unix.SYS_MEMFD_CREATE},
		{"socketpair", unix.SYS_SOCKETPAIR},
		{"sendmsg", unix.SYS_SENDMSG},
		{"recvmsg", unix.SYS_RECVMSG},
		{"epoll_pwait", unix.SYS_EPOLL_PWAIT},
		{"exit_group", unix.SYS_EXIT_GROUP},
		{"pidfd_open", unix.SYS_PIDFD_OPEN},
		{"listmount", unix.SYS_LISTMOUNT},
	}
}
