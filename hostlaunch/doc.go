// Package hostlaunch installs extensions from a registry into an extensions
// directory and runs them in a sandboxed Node.js extension host whose
// capabilities (network, process spawn, filesystem beyond the workspace) are
// denied by default: package sandbox enforces that with the kernel
// (namespaces, Landlock, seccomp), and package host adds a JavaScript seat
// belt inside it. Package session assembles the two, with the brokers and
// the audit log, for the commands that run extensions.
package hostlaunch
