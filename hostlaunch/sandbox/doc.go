// Package sandbox runs the extension host, and the programs a
// spawn-granted extension starts through the broker, inside a sandbox the
// kernel enforces (Linux).
//
// The launcher never restricts itself: it re-executes its own binary
// (/proc/self/exe) in a helper mode (Helper) in new user, network, mount,
// PID, IPC and UTS namespaces. The helper is the init of its PID
// namespace: it builds a private root (a tmpfs holding, each at its own
// path, only the program and its interpreters, the libraries, a few system
// files, the host's scripts, the extensions, the workspace and the
// storage; read-only and noexec where they may be, the protected folders
// read-only wherever they show), starts the second stage in it, drops its
// own capabilities and filesystem access, and reaps. The second stage
// applies rlimits, Landlock (read the runtime, the host scripts, the
// extensions and the workspace; write only the workspace and the storage;
// execute only node and its ELF interpreter; no TCP; signal and
// abstract-socket scopes where the ABI has them), a seccomp filter with an
// architecture guard (no sockets but socketpair, no new processes, no
// execveat, no namespace, mount, ptrace, bpf, keyctl, io_uring or
// personality calls) and a scrubbed environment, and execs. So a path
// outside does not exist, a process outside cannot be seen or signalled on
// any kernel, and killing the init ends everything the sandbox started.
// Node's permission flags come on top as a first fence.
//
// New probes the layers once and refuses, naming the missing layer, when
// one is absent, unless Options.AllowDegraded is set.
package sandbox
