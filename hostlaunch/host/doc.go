// Package host runs VS Code extensions in a separate Node.js process, the
// extension host, and talks to it: the launcher side of the host.
//
// The host is JavaScript embedded in the binary (js/), written to a private
// directory at launch and started with Node's IPC channel on a socketpair
// (fd 3, NODE_CHANNEL_FD, 'json' serialization: one JSON message per line).
// Over it the two sides speak JSON-RPC 2.0: the host announces "ready"
// with its Node version, the launcher sends "initialize" with the
// extensions to load, then "activate" (one extension at a time),
// "executeCommand", "openDocument", "ping" (the heartbeat) and "shutdown";
// the host sends "event" and "commands/registered" notifications and the
// brokers' requests ("fs/...", "spawn/...", "net/fetch").
//
// The spawn broker runs a program either to its end ("spawn/run": the
// output comes with the answer, capped; execFile, exec) or streamed
// ("spawn/start", stream.go: child_process.spawn, which a language client
// needs): the launcher sends its output as "spawn/data" requests the host
// answers once the extension takes the chunk, so a slow reader holds the
// program, never the launcher's memory, and "spawn/exit" once it has
// ended; "spawn/write" and "spawn/end" feed and close its stdin,
// "spawn/kill" signals it. A host runs at most 8 streams at once; they
// have no deadline unless the extension gives one, and end with the host.
// In the host a streamed child has a virtual pid (1<<22 up, never a real
// one) that process.kill signals through the broker.
//
// The host is one process: any code in it can send any message under any
// name. So identity is the launcher's, never the host's claim. The launcher
// decides what activates and when (activation.go), so it blames a host's
// end only on an activation it started there; it attributes events only to
// the host's own extensions, keeping any other name as an escaped claim,
// and drops the kinds it alone reports (dispatch.go); a command runs only
// in the host it belongs to (Pool); audit records carry the host's
// extensions as the launcher started them (audit.go). Extensions share a
// host only when their grants are equal (Groups; Launch refuses others),
// so no extension uses a grant the policy did not give it, not even
// through a dependency.
//
// The launcher runs outside every sandbox layer, so what a host can make
// it hold is bounded (flow.go): each broker has a limit on one host's
// requests in flight, all share MaxBuffered bytes, and a request past
// either is refused at once (ERR_AIRVSX_BUSY in the host); events, their
// texts and the audit records of a flood are capped and summarized.
//
// The process is built through Options.Command, a CommandFunc: the default
// runs node directly; a sandbox helper replaces it to wrap node in the
// kernel sandbox without any change here. The environment is built from
// nothing (Env): NODE_OPTIONS, NODE_PATH and the launcher's variables never
// reach the host. A host writes only the workspace, its own extensions'
// storage and a temporary directory of its own (layout.go), and Launch
// refuses a workspace or storage that overlaps Options.Protected.
//
// Inside the host, require is gated per extension (the JavaScript seat
// belt, js/gate.js): an extension resolves its own files, then vscode,
// then harmless built-ins; fs is limited to its folder, its storage and the
// workspace; child_process, net, http and the like load for every
// extension, but without their capability (or, for the network, always:
// fetch is its broker) they are facades whose functions and classes throw
// when called or constructed, while their constants and pure functions
// (http.STATUS_CODES, net.isIP) work: denied at use, not at load. fetch,
// native addons, process.binding and process.exit are refused with an
// error naming the capability (spawn, network, fsWide) they would need;
// built-ins in no list (vm, inspector, v8, ...) are refused at load, and
// so is every gated one imported (import()) rather than required; code
// that runs for no extension gets only the harmless built-ins.
package host
