package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/airvsx/airvsx/hostlaunch/host"
	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/hostlaunch/sandbox"
	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/internal/strictjson"
	"github.com/airvsx/airvsx/internal/tempdir"
)

// Options say where the extensions are and how their hosts run.
type Options struct {
	// Extensions is the extensions directory. Required.
	Extensions string
	// Workspace are the workspace folders. Default none.
	Workspace []string
	// Settings is a JSON settings file for workspace.getConfiguration.
	// Default "": no settings.
	Settings string
	// Storage keeps the extensions' storage. Default "": a temporary
	// directory that Close removes.
	Storage string
	// Node is the node executable. Default "": node on PATH.
	Node string
	// Heartbeat is how often each host must answer a ping. Default 0:
	// host's default.
	Heartbeat time.Duration
	// AuditLog is a file to which one JSON line per brokered spawn or
	// fetch, and per broker refusal, is appended (created 0600; only a
	// regular file). Default "": none.
	AuditLog string
	// AllowDegraded runs the extensions even where a kernel sandbox layer
	// is missing (logged, and recorded in installed.json). Default false:
	// Open fails with a *SandboxError.
	AllowDegraded bool
	// NeedInstalled refuses an extensions directory with nothing
	// installed (ErrNothingInstalled), before anything is written in it.
	// Default false: the hosts start with no extension.
	NeedInstalled bool
	// Command is the command the caller is about to execute, if any.
	// When only disabled extensions declare it, Load's warnings about
	// them are not logged: the caller's error (the command is not found)
	// names them and why, from Disabled, so it is told once. Default "".
	Command string
	// Fetch makes the requests the network broker allows (the caller
	// wires hostlaunch/netbroker in). Default nil: every fetch is refused.
	Fetch host.Fetcher
	// UI answers the questions extensions ask. Default nil: they are
	// dismissed.
	UI host.UI
	// StateDir is airvsx's state directory, which holds the seal key of
	// installed.json; no sandbox may reach it. Default "":
	// trust.DefaultStateDir().
	StateDir string
	// Logger receives warnings (Load's, a degraded sandbox, what failed
	// at Close) and the hosts' records. Default nil: discard.
	Logger *slog.Logger
}

// ErrNothingInstalled matches Open's error when Options.NeedInstalled is
// set and the extensions directory holds no extension.
var ErrNothingInstalled = errors.New("nothing installed")

// SandboxError is Open's error when the kernel sandbox cannot be set up
// (a layer is missing and Options.AllowDegraded is not set): no extension
// was started. Its message is the sandbox's.
type SandboxError struct {
	Err error
}

func (e *SandboxError) Error() string { return e.Err.Error() }

func (e *SandboxError) Unwrap() error { return e.Err }

// Session is a pool of extension hosts running the enabled extensions of
// an extensions directory in the kernel sandbox, with its brokers and
// audit log. Close it.
type Session struct {
	pool      *host.Pool
	exts      []host.Extension
	disabled  []install.Record
	isolation install.Isolation
	log       *slog.Logger
	cleanups  []func(context.Context)
}

// Open loads the installed extensions, checks the sandbox (and records how
// it isolates in installed.json), opens the audit log, and starts the
// pool of hosts. On an error nothing is left running or temporary.
func Open(ctx context.Context, opts Options) (s *Session, err error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s = &Session{log: log}
	defer func() {
		if err != nil {
			s.Close(ctx)
			s = nil
		}
	}()
	dopts := install.DirOptions{StateDir: opts.StateDir, Logger: log}
	l, err := install.Load(ctx, opts.Extensions, dopts)
	if err != nil {
		return nil, err
	}
	for _, w := range l.Warnings {
		if !toldByCaller(l.Extensions, opts.Command, w) {
			log.Warn(w)
		}
	}
	if opts.NeedInstalled && len(l.Extensions) == 0 {
		return nil, fmt.Errorf("%w in %s", ErrNothingInstalled, opts.Extensions)
	}
	sb, err := sandbox.New(sandbox.Options{AllowDegraded: opts.AllowDegraded, Logger: log})
	if err != nil {
		return nil, &SandboxError{Err: err}
	}
	s.isolation = install.Isolation{Time: time.Now().UTC(), Layers: sb.Layers().String(), Degraded: sb.Degraded(), Missing: sb.Layers().Missing()}
	if err := install.RecordIsolation(ctx, l.Dir, s.isolation); err != nil {
		return nil, err
	}
	hopts := host.Options{Workspace: opts.Workspace, Node: opts.Node, Logger: log, APIVersion: install.APIVersion, StorageDir: opts.Storage, Heartbeat: opts.Heartbeat,
		Command: sb.Command, Spawn: sb.Spawn, Protected: []host.Protected{{Path: l.Dir, What: "the extensions directory"}}, UI: opts.UI}
	// The state directory holds the seal of installed.json and the
	// trust state: no sandbox may reach it either.
	state := opts.StateDir
	if state == "" {
		state, _ = trust.DefaultStateDir()
	}
	if state != "" {
		hopts.Protected = append(hopts.Protected, host.Protected{Path: state, What: "airvsx's state directory"})
	}
	// The brokers: spawn through the sandbox, fetch through the caller's
	// network broker (the only HTTP client the extensions reach); every
	// request audited.
	hopts.Fetch = opts.Fetch
	if opts.AuditLog != "" {
		if hopts.Audit, err = s.openAuditLog(opts.AuditLog); err != nil {
			return nil, err
		}
	}
	for _, r := range l.Extensions {
		if !r.Enabled {
			s.disabled = append(s.disabled, r)
		}
	}
	hopts.Extensions = HostExtensions(l)
	s.exts = hopts.Extensions
	if opts.Settings != "" {
		if hopts.Settings, err = readSettings(opts.Settings); err != nil {
			return nil, err
		}
	}
	if hopts.StorageDir == "" {
		tmp, err := tempdir.New("", "airvsx-storage-", log)
		if err != nil {
			return nil, err
		}
		s.cleanups = append(s.cleanups, func(context.Context) { tmp.Remove() })
		hopts.StorageDir = tmp.Path
	}
	// An extension whose activation crashes the host twice in a row is
	// disabled in installed.json.
	disable := func(ctx context.Context, id, reason string) error {
		xid, err := index.ParseID(id)
		if err != nil {
			return err
		}
		return install.Disable(ctx, l.Dir, xid, reason, dopts)
	}
	pool, err := host.LaunchPool(ctx, hopts, host.SuperviseOptions{Disable: disable})
	if err != nil {
		return nil, err
	}
	s.pool = pool
	s.cleanups = append(s.cleanups, func(ctx context.Context) {
		if err := pool.Close(ctx); err != nil {
			log.Warn("stopping the extension hosts", "err", err)
		}
		recordActivations(ctx, log, l.Dir, pool.Activated(), dopts)
	})
	return s, nil
}

// openAuditLog opens the audit log at path, closed by Close, and returns
// what records in it.
func (s *Session) openAuditLog(path string) (func(host.Audit), error) {
	al, err := openAuditLog(path)
	if err != nil {
		return nil, err
	}
	s.cleanups = append(s.cleanups, func(context.Context) {
		if err := al.Close(); err != nil {
			s.log.Warn("closing the audit log", "err", err)
		}
	})
	return al.record, nil
}

// readSettings reads the JSON settings file path, strictly.
func readSettings(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	var m map[string]any
	if err := strictjson.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("settings %s: %w", path, err)
	}
	return b, nil
}

// Pool is the pool of hosts.
func (s *Session) Pool() *host.Pool { return s.pool }

// Extensions are the enabled extensions the hosts run.
func (s *Session) Extensions() []host.Extension { return s.exts }

// Disabled are the records of the installed extensions that do not run,
// each with its reason.
func (s *Session) Disabled() []install.Record { return s.disabled }

// Isolation is how the hosts are isolated, as recorded in installed.json.
func (s *Session) Isolation() install.Isolation { return s.isolation }

// closeTimeout bounds Close.
const closeTimeout = 5 * time.Second

// Close deactivates the extensions and stops the hosts, records the last
// activation of the extensions they activated in installed.json, closes
// the audit log and removes the temporary storage. It takes at most 5
// seconds, and runs even when ctx is done (after an interrupt): what
// fails is logged.
func (s *Session) Close(ctx context.Context) {
	if s == nil {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
	defer cancel()
	for i := len(s.cleanups) - 1; i >= 0; i-- {
		s.cleanups[i](cctx)
	}
	s.cleanups = nil
}

// toldByCaller reports whether warning w is about a disabled extension
// of records that declares command, which no enabled one declares: the
// caller's error, command not found, then names that extension and why.
func toldByCaller(records []install.Record, command, w string) bool {
	if command == "" {
		return false
	}
	declares := func(r install.Record) bool { return slices.Contains(r.Activation, "onCommand:"+command) }
	if slices.ContainsFunc(records, func(r install.Record) bool { return r.Enabled && declares(r) }) {
		return false
	}
	return slices.ContainsFunc(records, func(r install.Record) bool {
		return !r.Enabled && declares(r) && strings.HasPrefix(w, r.String()+" disabled: ")
	})
}

// recordActivations sets the last activation time, in installed.json, of
// the extensions the hosts activated.
func recordActivations(ctx context.Context, log *slog.Logger, dir string, activated []string, dopts install.DirOptions) {
	ids := index.ValidIDs(activated)
	if len(ids) == 0 {
		return
	}
	if err := install.MarkActivated(ctx, dir, ids, time.Now(), dopts); err != nil {
		log.Warn("recording the last activation", "err", err)
	}
}

// HostExtensions are the enabled extensions of l as the hosts run them,
// in l's order: what they need of each record.
func HostExtensions(l *install.Loaded) []host.Extension {
	var exts []host.Extension
	for _, r := range l.Extensions {
		if r.Enabled {
			exts = append(exts, extensionOf(l.Dir, r))
		}
	}
	return exts
}

// extensionOf is what the host needs of an installed extension.
func extensionOf(dir string, r install.Record) host.Extension {
	e := host.Extension{ID: r.ID.String(), Path: filepath.Join(dir, r.Dir), Main: r.Main, ActivationEvents: r.Activation}
	for _, d := range r.Dependencies {
		e.Dependencies = append(e.Dependencies, d.String())
	}
	for _, c := range r.Capabilities {
		e.Capabilities = append(e.Capabilities, string(c.Capability))
	}
	e.AllowedHosts, e.Programs = r.AllowedHosts, r.Programs
	return e
}
