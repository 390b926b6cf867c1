// Package sandbox runs the extension host, and the programs a
// spawn-granted extension starts through the broker, inside a sandbox the
// kernel enforces (Linux).
//
// The launcher never restricts itself: it re-executes its own binary
// (/proc/self/exe) in a helper mode (Helper) in new user, network, mount,
// IPC and UTS namespaces. The helper, before it execs node (or the
// brokered program), makes the extension, host and workspace mounts
// noexec, applies Landlock (read the runtime, the host scripts, the
// extensions and the workspace; write only the workspace and the storage;
// execute only node and its ELF interpreter; no TCP; signal and
// abstract-socket scopes), a seccomp filter with an architecture guard (no
// sockets but socketpair, no new processes, no namespace, mount, ptrace,
// bpf, keyctl, io_uring or personality calls), rlimits, and a scrubbed
// environment. Node's permission flags come on top as a first fence.
//
// New probes the layers once and refuses, naming the missing layer, when
// one is absent, unless Options.AllowDegraded is set.
package sandbox
