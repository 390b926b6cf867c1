package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/airvsx/airvsx/internal/tempdir"
)

// Extension is one extension the host is to run.
type Extension struct {
	// ID is publisher.name; Path its unpacked folder (package.json at its
	// top); Main package.json main relative to Path ("" for no code).
	ID   string `json:"id"`
	Path string `json:"path"`
	Main string `json:"main,omitempty"`
	// ActivationEvents are those the host honours, explicit and implied.
	ActivationEvents []string `json:"activationEvents"`
	// Dependencies are activated first.
	Dependencies []string `json:"dependencies,omitempty"`
	// Capabilities are the effective ones: network, spawn, fsWide.
	Capabilities []string `json:"capabilities,omitempty"`
	// AllowedHosts are the hosts the network broker lets it fetch from
	// ("host", "host:port", "*.domain"; see policies.ParseHost) and
	// Programs the absolute paths of the programs the spawn broker lets
	// it start; both need their capability among Capabilities.
	AllowedHosts []string `json:"-"`
	Programs     []string `json:"-"`
}

// Options configure Launch. Extensions and StorageDir are required.
type Options struct {
	Extensions []Extension
	// Workspace lists the workspace folders (absolute or relative).
	Workspace []string
	// Settings is the workspace's settings (a JSON object) for
	// workspace.getConfiguration; nil for none.
	Settings json.RawMessage
	// StorageDir holds each extension's storage, global storage and log
	// folders (STORAGE/<id>/{global,workspace,log}) and each host's
	// temporary directory (STORAGE/.tmp/host-*); a host may write only
	// its own extensions' folders and its own temporary directory.
	StorageDir string
	// Protected are folders no extension may change: Launch refuses a
	// workspace folder or storage directory that contains or lies in
	// one, and a sandbox mounts them read-only (see Protected).
	Protected []Protected
	// Elsewhere are the extensions that run in other hosts (LaunchPool
	// sets it): their exports are out of this host's reach, their
	// commands are not this host's to register or answer.
	Elsewhere []Extension
	// HoldStartupFinished keeps the onStartupFinished activations until
	// FinishStartup (LaunchPool sets it, to run them once every host is
	// up); otherwise they follow the start on a goroutine of their own.
	HoldStartupFinished bool
	// Node is the node executable; "" looks "node" up on PATH.
	Node string
	// Command builds the process; nil means Direct (no sandbox).
	Command CommandFunc
	// Logger receives the launcher's log; nil discards it.
	Logger *slog.Logger
	// APIVersion is vscode.version.
	APIVersion string
	// Heartbeat is the ping interval (default 5 s): a host that leaves
	// two pings unanswered is hung and killed.
	Heartbeat time.Duration
	// StartTimeout bounds start and initialize (default 10 s);
	// ActivateTimeout each activate() (default 10 s); DeactivateTimeout
	// all of deactivation at Close (default 2.5 s).
	StartTimeout, ActivateTimeout, DeactivateTimeout time.Duration
	// EventRate caps each extension's events a second (default 100).
	EventRate int
	// HeapMB caps the host's JavaScript heap, in MiB (node's
	// --max-old-space-size; default 1024): an extension that allocates
	// without end brings down its own host, which the supervisor
	// restarts, not the machine.
	HeapMB int
	// MemoryMB caps the host's resident memory, in MiB (default 2048):
	// the launcher watches it and kills a host that goes over, which
	// catches what the heap limit does not (buffers, native memory).
	MemoryMB int
	// Spawn builds the processes the spawn broker starts; nil means
	// DirectSpawn (no sandbox).
	Spawn SpawnFunc
	// Fetch makes the requests the network broker allows; nil refuses
	// every fetch (this package links no HTTP client: the binary passes
	// hostlaunch/netbroker).
	Fetch Fetcher
	// UI answers the questions extensions ask the user (quick picks,
	// input boxes, messages with choices); nil dismisses them all.
	UI UI
	// Audit receives every brokered request and broker refusal, never
	// dropped (the events of kind KindAudit are rate-capped); nil for
	// none. It is called from the brokers' goroutines, one at a time
	// per request: it must be safe for concurrent use.
	Audit func(Audit)
	// InsecureNoSeatBelt switches off the JavaScript seat belt (the
	// require gate), node's permission flags and --no-addons, leaving
	// only what Command enforces. For tests that prove the kernel layers hold on
	// their own; never for users.
	InsecureNoSeatBelt bool

	// beats, when set, replaces the Heartbeat ticker: it returns the
	// channel whose values are the heartbeats of the host process pid,
	// and a function that stops them. Tests drive the heartbeat with it
	// (by hand, or by the host's CPU time) so that a loaded machine
	// never makes a healthy host look hung.
	beats func(pid int, d time.Duration) (ticks <-chan time.Time, stop func())
}

// ErrExited matches the error of every call on a host that has ended
// (Host.Err says why).
var ErrExited = errors.New("extension host ended")

// StartError is a host that ended while it initialized; Activating names
// the extensions whose activation was running ("*" or workspaceContains
// ones), to blame.
type StartError struct {
	Activating []string
	Err        error
}

// Error returns the launch error's text.
func (e *StartError) Error() string { return e.Err.Error() }

// Unwrap returns the launch error.
func (e *StartError) Unwrap() error { return e.Err }

// Info is what the host announced when ready: the node version it
// claims, and the process the launcher started (node, or the sandbox
// helper whose descendant node is).
type Info struct {
	Node string `json:"node"`
	PID  int    `json:"pid"`
}

// Startup is what initialize activated: "*" and workspaceContains
// extensions (the onStartupFinished ones follow: FinishStartup).
type Startup struct {
	Activated []string         `json:"activated"`
	Failed    []StartupFailure `json:"failed"`
}

// StartupFailure is an activation at start that failed.
type StartupFailure struct {
	Extension string `json:"extension"`
	Error     string `json:"error"`
}

// Host is a running extension host.
type Host struct {
	opts       Options
	log        *slog.Logger
	cmd        *exec.Cmd
	conn       *conn
	hostDir    string       // the host's scripts: hostTmp.Path
	hostTmp    *tempdir.Dir // removed on Close
	tmp        string       // the host's temporary directory, removed on Close
	info       Info
	startupRes Startup
	limit      *limiter
	events     chan Event
	dropped    atomic.Int64

	// finishing are the onStartupFinished extensions FinishStartup
	// activates, once (finishOnce); finished is closed when it is done,
	// and finishFailed says which failed.
	finishing    []*Extension
	finishOnce   sync.Once
	finished     chan struct{}
	finishFailed []StartupFailure

	done      chan struct{} // closed when the process has exited
	exitErr   error
	killOnce  sync.Once
	reason    atomic.Pointer[string]
	ready     chan Info
	missed    atomic.Int32
	closeOnce sync.Once
	closing   atomic.Bool // Close closed the channel: read errors are expected

	amu        sync.Mutex
	activating map[string]bool // extensions the launcher asked to activate, not done
	activated  []string        // this host's extensions activated, in order
	registered map[string]bool // commands the host registered (and may answer)
	flow       *flow           // the brokers' flow control
	audits     *auditLimiter   // audit records, summarized when they flood

	wsfs   *workspaceFS // the workspace.fs broker
	spawns spawner      // the spawn broker's running programs

	lastStderr atomic.Pointer[string] // the host's last line on stderr
}

// Launch starts a host, waits for its handshake and initializes it with
// the extensions; "*" and workspaceContains extensions are activated
// before it returns. The process outlives ctx: end it with Close.
func Launch(ctx context.Context, opts Options) (_ *Host, err error) {
	opts = opts.withDefaults()
	if opts.StorageDir == "" {
		return nil, errors.New("launch host: no storage directory")
	}
	// The host runs elsewhere: every path it gets is absolute.
	if opts.StorageDir, err = filepath.Abs(opts.StorageDir); err != nil {
		return nil, fmt.Errorf("launch host: %w", err)
	}
	opts.Extensions = slices.Clone(opts.Extensions)
	for i := range opts.Extensions {
		if opts.Extensions[i].Path, err = filepath.Abs(opts.Extensions[i].Path); err != nil {
			return nil, fmt.Errorf("launch host: %w", err)
		}
	}
	for _, e := range opts.Extensions {
		if grantKey(e) != grantKey(opts.Extensions[0]) {
			return nil, fmt.Errorf("launch host: %s and %s are granted differently: extensions share a host only when their grants are equal (LaunchPool gives each grant a host of its own)", opts.Extensions[0].ID, e.ID)
		}
	}
	opts.Workspace = slices.Clone(opts.Workspace)
	for i := range opts.Workspace {
		if opts.Workspace[i], err = filepath.Abs(opts.Workspace[i]); err != nil {
			return nil, fmt.Errorf("launch host: %w", err)
		}
	}
	opts.Protected = slices.Clone(opts.Protected)
	for i := range opts.Protected {
		if opts.Protected[i].Path, err = filepath.Abs(opts.Protected[i].Path); err != nil {
			return nil, fmt.Errorf("launch host: %w", err)
		}
	}
	if err := checkLayout(opts.Workspace, opts.StorageDir, opts.Protected); err != nil {
		return nil, fmt.Errorf("launch host: %w", err)
	}
	node := opts.Node
	if node == "" {
		if node, err = exec.LookPath("node"); err != nil {
			return nil, fmt.Errorf("launch host: %w", err)
		}
	}
	h := &Host{opts: opts, log: opts.Logger, done: make(chan struct{}), ready: make(chan Info, 1), wsfs: newWorkspaceFS(opts.Workspace),
		events: make(chan Event, maxEvents), limit: &limiter{rate: opts.EventRate, now: time.Now, win: map[string]*window{}},
		flow: newFlow(MaxBuffered), activating: map[string]bool{}, finished: make(chan struct{})}
	h.audits = newAuditLimiter(h.writeAudit)
	if h.hostTmp, err = writeHost("", h.log); err != nil {
		return nil, fmt.Errorf("launch host: %w", err)
	}
	h.hostDir = h.hostTmp.Path
	defer func() {
		if err != nil {
			h.kill("launch failed")
			h.Close(context.Background())
		}
	}()
	if err := h.start(ctx, node); err != nil {
		return nil, fmt.Errorf("launch host: %w", err)
	}
	sctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	select {
	case h.info = <-h.ready:
		// The process is what the launcher started, whatever the host
		// claims (inside a PID namespace it does not even know it).
		h.info.PID = h.cmd.Process.Pid
	case <-h.done:
		return nil, fmt.Errorf("launch host: %w", h.Err())
	case <-sctx.Done():
		return nil, fmt.Errorf("launch host: no handshake: %w", sctx.Err())
	}
	h.log.Debug("host ready", "node", h.info.Node, "pid", h.info.PID)
	go h.heartbeat()
	go h.watchMemory()
	params := map[string]any{"extensions": opts.Extensions, "workspaceFolders": opts.Workspace, "storageDir": opts.StorageDir,
		"settings": opts.Settings, "apiVersion": opts.APIVersion, "activateMs": opts.ActivateTimeout.Milliseconds(),
		"noSeatBelt": opts.InsecureNoSeatBelt, "elsewhere": elsewhereIDs(opts.Elsewhere), "commandOwners": commandOwners(opts)}
	if _, err := h.call(sctx, "initialize", params, nil); err != nil {
		return nil, &StartError{Err: fmt.Errorf("launch host: initialize: %w", err)}
	}
	if err := h.startup(sctx); err != nil {
		return nil, &StartError{Activating: h.Activating(), Err: fmt.Errorf("launch host: activate at start: %w", err)}
	}
	return h, nil
}

func (o Options) withDefaults() Options {
	if o.Command == nil {
		o.Command = Direct
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Heartbeat, 5*time.Second)
	def(&o.StartTimeout, 10*time.Second)
	def(&o.ActivateTimeout, 10*time.Second)
	def(&o.DeactivateTimeout, 2500*time.Millisecond)
	if o.EventRate <= 0 {
		o.EventRate = 100
	}
	if o.HeapMB <= 0 {
		o.HeapMB = 1024
	}
	if o.MemoryMB <= 0 {
		o.MemoryMB = 2048
	}
	if o.Settings == nil {
		o.Settings = json.RawMessage("{}")
	}
	return o
}

// start runs node through the CommandFunc with the IPC channel on fd 3
// and its output captured.
func (h *Host) start(ctx context.Context, node string) error {
	parent, child, err := ipcPair()
	if err != nil {
		return err
	}
	defer child.Close()
	h.conn = &conn{f: parent, pending: map[int64]*call{}}
	storage, tmp, err := h.prepareStorage()
	if err != nil {
		return err
	}
	h.tmp = tmp
	cmd, err := h.opts.Command(ctx, h.spec(node, storage, tmp))
	if err != nil {
		return fmt.Errorf("host command: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.ExtraFiles = nil, outW, errW, []*os.File{child}
	ownGroup(cmd)
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		parent.Close()
		return fmt.Errorf("start %s: %w", node, err)
	}
	h.cmd = cmd
	h.watch(outR, errR)
	return nil
}

// ipcPair makes the IPC channel's socket pair: the launcher's end and
// the host's (its fd 3). The launcher's end is non-blocking, so it goes
// through Go's poller and Close interrupts a pending read (and really
// closes the socket, which the host sees as a disconnect).
func ipcPair() (parent, child *os.File, err error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		syscall.Close(fds[0])
		syscall.Close(fds[1])
		return nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "ipc-launcher"), os.NewFile(uintptr(fds[1]), "ipc-host"), nil
}

// spec is what the CommandFunc is asked to run: node on host.js, in the
// first workspace folder, with the extensions' folders and the union of
// their capabilities.
func (h *Host) spec(node string, storage []string, tmp string) Spec {
	dir := h.hostDir
	if len(h.opts.Workspace) > 0 {
		dir = h.opts.Workspace[0]
	}
	args := []string{"--no-addons", "--unhandled-rejections=warn", "--max-old-space-size=" + strconv.Itoa(h.opts.HeapMB), filepath.Join(h.hostDir, "host.js")}
	if h.opts.InsecureNoSeatBelt {
		args = args[1:] // native code meets only the kernel
	}
	spec := Spec{Node: node, Args: args,
		Env: hostEnv(tmp, tmp), Dir: dir, HostDir: h.hostDir, Workspace: h.opts.Workspace, Storage: storage, ReadOnly: protectedPaths(h.opts.Protected),
		NoNodePermission: h.opts.InsecureNoSeatBelt, MemoryMB: h.opts.MemoryMB}
	caps := map[string]bool{}
	for _, e := range h.opts.Extensions {
		spec.ExtensionDirs = append(spec.ExtensionDirs, e.Path)
		for _, c := range e.Capabilities {
			if !caps[c] {
				caps[c] = true
				spec.Capabilities = append(spec.Capabilities, c)
			}
		}
	}
	return spec
}

// watch follows the started host: its output (stdout, stderr), its IPC
// messages, and its exit, which closes h.done with why it ended.
func (h *Host) watch(outR, errR *os.File) {
	cmd := h.cmd
	errDone := make(chan struct{})
	go h.output(outR, KindStdout)
	go func() {
		defer close(errDone)
		h.output(errR, KindStderr)
	}()
	go func() {
		err := h.conn.read(h.handle)
		if err != nil && !h.closing.Load() {
			h.kill(err.Error())
		}
	}()
	go func() {
		err := cmd.Wait()
		if r := h.reason.Load(); r != nil {
			err = fmt.Errorf("%w: killed: %s", ErrExited, *r)
		} else if err == nil {
			err = fmt.Errorf("%w: exited", ErrExited)
		} else {
			// Why it failed is usually its last words (the sandbox
			// helper's reason, node's fatal error).
			select {
			case <-errDone:
			case <-time.After(200 * time.Millisecond):
			}
			if last := h.lastStderr.Load(); last != nil {
				err = fmt.Errorf("%w: %w: %s", ErrExited, err, *last)
			} else {
				err = fmt.Errorf("%w: %w", ErrExited, err)
			}
		}
		h.exitErr = err
		close(h.done)
		h.log.Debug("host ended", "err", err)
	}()
}

// serveFS answers the host's workspace.fs request id.
func (h *Host) serveFS(id int64, method string, params json.RawMessage, t *ticket) {
	res, err := h.wsfs.serve(method, params, t)
	if err != nil {
		var be *busyError
		if errors.As(err, &be) {
			h.reply(id, nil, &rpcError{Code: codeBusy, Message: be.Msg}, "workspace.fs")
			return
		}
		h.reply(id, nil, &rpcError{Code: -32000, Message: fsError(err)}, "workspace.fs")
		return
	}
	if b, ok := res.(fileData); ok {
		h.replyBlob(id, nil, "data", b, "workspace.fs")
		return
	}
	h.reply(id, res, nil, "workspace.fs")
}
