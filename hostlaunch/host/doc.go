// Package host runs VS Code extensions in a separate Node.js process, the
// extension host, and talks to it: the launcher side of the host.
//
// The host is JavaScript embedded in the binary (js/), written to a private
// directory at launch and started with Node's IPC channel on a socketpair
// (fd 3, NODE_CHANNEL_FD, 'json' serialization: one JSON message per line).
// Over it the two sides speak JSON-RPC 2.0: the host announces "ready"
// with its Node version and pid, the launcher sends "initialize" with the
// extensions to load, then "executeCommand", "openDocument", "ping"
// (the heartbeat) and "shutdown"; the host sends "event" notifications
// (messages, output, status bar items, activations, denials).
//
// The process is built through Options.Command, a CommandFunc: the default
// runs node directly; a sandbox helper replaces it to wrap node in the
// kernel sandbox without any change here. The environment is built from
// nothing (Env): NODE_OPTIONS, NODE_PATH and the launcher's variables never
// reach the host.
//
// Inside the host, require is gated per extension (the JavaScript seat
// belt, js/gate.js): an extension resolves its own files, then vscode,
// then harmless built-ins; fs is limited to its folder, its storage and the
// workspace; child_process, net, http and the like, fetch, native addons,
// process.binding and process.exit are refused with an error naming the
// capability (spawn, network, fsWide) they would need.
package host
