// Package hostlaunch installs extensions from a registry into an extensions
// directory and runs them in a sandboxed Node.js extension host whose
// capabilities (network, process spawn, filesystem beyond the workspace) are
// denied by default (the kernel enforcement is not built yet; package host
// runs extensions behind a JavaScript seat belt meanwhile).
package hostlaunch
