package host

import (
	"context"
	"encoding/json"
	"os/exec"
	"syscall"
)

// Spec is the process the launcher wants: node running the host script,
// with an environment built from nothing. A CommandFunc turns it into an
// exec.Cmd.
type Spec struct {
	// Node is the node executable and Args its arguments (the host
	// script last).
	Node string
	Args []string
	// Env is the host's whole environment.
	Env []string
	// Dir is the working directory: the first workspace folder, or the
	// host's own directory.
	Dir string
	// HostDir holds the host's scripts; ExtensionDirs the extensions'
	// folders; Workspace the workspace folders; Storage the folders the
	// host writes besides the workspace: the storage of each of its
	// extensions (STORAGE/<id>) and its own temporary directory, never
	// another host's. A sandbox grants reading the first three (writing
	// Workspace) and writing Storage.
	HostDir       string
	ExtensionDirs []string
	Workspace     []string
	Storage       []string
	// ReadOnly are folders no sandboxed process may change, whatever
	// else it is granted (the whole extensions directory, with
	// installed.json): a sandbox with a mount namespace mounts each that
	// exists read-only. They grant no access of their own.
	ReadOnly []string
	// Capabilities is the union of the effective capabilities of the
	// extensions this host runs.
	Capabilities []string
	// MemoryMB is the host's memory limit (Options.MemoryMB): a sandbox
	// may enforce it in the kernel too.
	MemoryMB int
	// NoNodePermission: node runs without its permission flags
	// (Options.InsecureNoSeatBelt, for tests of the kernel layers).
	NoNodePermission bool
}

// SpawnSpec is a program a spawn-granted extension asked to run, once the
// broker allowed it.
type SpawnSpec struct {
	// Program is the program's absolute path, Args its arguments (not
	// including the program), Env its whole environment, Dir its working
	// directory.
	Program string
	Args    []string
	Env     []string
	Dir     string
	// Workspace are the workspace folders (a sandbox lets the program
	// read and write them); ExtensionDir is the asking extension's
	// folder (read only); Storage is its storage folder (read and write:
	// its HOME); ReadOnly as in Spec.
	Workspace    []string
	ExtensionDir string
	Storage      string
	ReadOnly     []string
	// MemoryMB caps the program's memory as the host's is capped
	// (Options.MemoryMB); CPUSeconds its processor time (0: none).
	MemoryMB   int
	CPUSeconds int
}

// SpawnFunc builds the command that runs a SpawnSpec; the broker sets its
// standard streams and process group.
type SpawnFunc func(ctx context.Context, s SpawnSpec) (*exec.Cmd, error)

// DirectSpawn is the SpawnFunc without a sandbox.
func DirectSpawn(_ context.Context, s SpawnSpec) (*exec.Cmd, error) {
	cmd := exec.Command(s.Program, s.Args...)
	cmd.Env = s.Env
	cmd.Dir = s.Dir
	return cmd, nil
}

// CommandFunc builds the command that runs a Spec. The launcher then sets
// its standard streams, ExtraFiles (the IPC channel, which must arrive as
// fd 3) and a new process group; it must leave those alone. A sandbox
// helper is a CommandFunc that runs itself with the Spec and execs node
// once the sandbox is in place.
type CommandFunc func(ctx context.Context, s Spec) (*exec.Cmd, error)

// Direct is the CommandFunc without a sandbox: node itself, started as
// DirectSpawn starts a program. Its process is not bound to ctx: the
// launcher ends it (Host.Close, the heartbeat).
func Direct(ctx context.Context, s Spec) (*exec.Cmd, error) {
	return DirectSpawn(ctx, SpawnSpec{Program: s.Node, Args: s.Args, Env: s.Env, Dir: s.Dir})
}

// ownGroup makes cmd start in a process group of its own, which the
// launcher ends as a whole; what the SpawnFunc or CommandFunc set in
// SysProcAttr is kept.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// safePath is the PATH of the host: system directories only.
const safePath = "/usr/local/bin:/usr/bin:/bin"

// hostEnv is the host's environment, built from nothing: Node's IPC
// channel on fd 3, VS Code's NLS configuration, a fixed PATH, a home and a
// temporary directory of its own.
func hostEnv(home, tmp string) []string {
	nls, _ := json.Marshal(map[string]any{"locale": "en", "osLocale": "en", "availableLanguages": map[string]string{}})
	return []string{
		"NODE_CHANNEL_FD=3",
		"NODE_CHANNEL_SERIALIZATION_MODE=json",
		"VSCODE_NLS_CONFIG=" + string(nls),
		"PATH=" + safePath,
		"HOME=" + home,
		"TMPDIR=" + tmp,
		"LANG=C.UTF-8",
	}
}
