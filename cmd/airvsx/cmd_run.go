package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/hostlaunch/host"
	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/hostlaunch/netbroker"
	"github.com/airvsx/airvsx/hostlaunch/sandbox"
	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/internal/strictjson"
	"github.com/airvsx/airvsx/internal/tempdir"
	"github.com/airvsx/airvsx/internal/termtext"
)

type runOptions struct {
	extensions string
	workspace  []string
	command    string
	settings   string
	storage    string
	node       string
	wait       time.Duration
	heartbeat  time.Duration
	timeout    time.Duration
	open       []string
	json       bool
	auditLog   string
	degraded   bool
}

func newRunCommand(g *globals) *cobra.Command {
	var opts runOptions
	cmd := &cobra.Command{
		Use: "run --extensions DIR [--workspace W] [--open LANGUAGE[:FILE]] [--command ID [ARG...]] [--wait D]",
		Example: `  # run an installed extension's command in the sandboxed extension host
  airvsx run --extensions ./exts --workspace . --command yaml.showSchema
  # open a document first (activates onLanguage extensions), then wait for their events
  airvsx run --extensions ./exts --workspace . --open python:main.py --wait 2s`,
		Short: "Run installed extensions in a Node.js extension host and execute a command",
		Long: `Run starts Node.js extension host processes for the enabled extensions of
DIR/installed.json (their records' seals and their files checked as list
checks them: an extension whose record airvsx did not write gets no grant
and does not run), one process per distinct set of effective capabilities
(extensions linked by dependencies share one), activates those that start
eagerly ("*", workspaceContains, onStartupFinished) and, with --command,
executes command ID with ARGs (each read as JSON when it parses, else as a
string), activating the extensions that wait for it (onCommand, dependencies
first); --open first opens a document of a language, activating the
onLanguage extensions. It prints the command's result and the events it
caused (messages, output channel lines, status bar items, activations,
refusals), then deactivates everything and stops the hosts.

A host that stops answering is killed and restarted; an extension whose
activation brings its host down twice in a row is disabled in
installed.json, with the reason.

The host's environment is built from nothing, and an extension's require is
limited to its own files, "vscode" and harmless built-ins: fs outside its
folder, storage and the workspace, child_process and fetch are refused
unless its effective capabilities (fsWide, spawn, network) grant them, the
network modules always. That is a seat belt in JavaScript; the kernel enforces: each
host runs in its own user, network and mount namespaces (no network at all),
under Landlock (read the extensions and the runtime, write only the workspace
and the storage, execute only node), a seccomp filter (no sockets, no new
processes, no namespace, mount or ptrace calls, foreign-architecture system
calls kill the process) and rlimits, with node's permission flags on top. A
missing layer stops run before any extension starts, unless
--insecure-degraded-isolation is given (logged, and shown by list).

Spawn and network go through the launcher's brokers, never node's own:
child_process (execFile, exec, spawn; asynchronous only) starts only the
programs the policy lists for the extension (programs, in installed.json),
in the workspace, with an environment built from nothing, output capped at
1 MiB a stream and a deadline (30 s by default, at most 5 min); fetch reaches
only the hosts the policy lists (hosts; redirects included), within 30 s and
16 MiB. http, https, net and the other network modules are refused even with
network: fetch is the way. Every brokered request and every refusal is an
"audit" event and an INFO log line, and with --audit-log a JSON line
(time, extension, kind, allowed, details).

Events an extension reports after its command has returned (from a timer or
a child process it started) are printed only with --wait.

Storage (globalStorage, workspace storage, logs, globalState and
workspaceState) goes to --storage, or to a temporary directory removed at
exit. Results go to stdout, logs to stderr.

A command (and each --open) has --timeout to finish (2m by default); past
it run exits 1, naming it.

The workspace folders and the storage directory may not contain, or lie
in, the extensions directory or airvsx's state directory (an extension
could rewrite its own grants through them), and the workspace may not
contain or lie in the storage (every extension's state is there): run
refuses them, naming both.

Exit status: 0 success, 1 the command is unknown, an activation failed, the
command threw, timed out or the host died, 2 usage or I/O error (no node,
a damaged installed.json, a workspace that overlaps what no extension may
write).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.extensions == "" {
				return usagef("run: --extensions DIR is required")
			}
			if opts.timeout <= 0 {
				return usagef("run: --timeout must be positive, not %v", opts.timeout)
			}
			if opts.command == "" && len(args) > 0 {
				return usagef("run: arguments %q go with --command", args)
			}
			return runRun(cmd.Context(), g, opts, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.extensions, "extensions", "", "the extensions directory")
	f.StringSliceVar(&opts.workspace, "workspace", nil, "a workspace folder (repeat for more)")
	f.StringVar(&opts.command, "command", "", "the command to execute")
	f.StringVar(&opts.settings, "settings", "", "a JSON settings file for workspace.getConfiguration")
	f.StringVar(&opts.storage, "storage", "", "keep the extensions' storage here (default: a temporary directory)")
	f.StringVar(&opts.node, "node", "", "the node executable (default: node on PATH)")
	f.DurationVar(&opts.wait, "wait", 0, "after the command returns, keep collecting events this long (for work it started asynchronously)")
	f.StringSliceVar(&opts.open, "open", nil, "open a document, as LANGUAGE or LANGUAGE:FILE, before the command (activates onLanguage extensions; repeat for more)")
	f.DurationVar(&opts.heartbeat, "heartbeat", 5*time.Second, "how often each host must answer a ping; one that leaves two unanswered is killed")
	f.DurationVar(&opts.timeout, "timeout", defaultRunTimeout, "the deadline of --command, and of each --open: past it run exits 1, naming it")
	f.BoolVar(&opts.json, "json", false, "print the result and events as JSON")
	f.StringVar(&opts.auditLog, "audit-log", "", "append one JSON line per brokered spawn or fetch, and per broker refusal, to this file")
	f.BoolVar(&opts.degraded, "insecure-degraded-isolation", false, "run even where a kernel sandbox layer is missing (logged, and shown by list)")
	return cmd
}

// runOutput is what run --json prints.
type runOutput struct {
	Command   string          `json:"command,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Events    []host.Event    `json:"events"`
	Activated []string        `json:"activated"`
}

func runRun(ctx context.Context, g *globals, opts runOptions, args []string) (err error) {
	log := g.logger()
	dopts := install.DirOptions{Logger: log}
	l, err := install.Load(ctx, opts.extensions, dopts)
	if err != nil {
		return fmt.Errorf("run: %w", noExtensionsHint(err, opts.extensions))
	}
	for _, w := range l.Warnings {
		log.Warn(w)
	}
	sb, err := sandbox.New(sandbox.Options{AllowDegraded: opts.degraded, Logger: log})
	if err != nil {
		return fmt.Errorf("run: %w; no extension was started (run on a Linux kernel with unprivileged user namespaces, Landlock ABI 4 or newer and seccomp, or accept the risk with --insecure-degraded-isolation)", err)
	}
	iso := install.Isolation{Time: time.Now().UTC(), Layers: sb.Layers().String(), Degraded: sb.Degraded(), Missing: sb.Layers().Missing()}
	if err := install.RecordIsolation(ctx, l.Dir, iso); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	hopts := host.Options{Workspace: opts.workspace, Node: opts.node, Logger: log, APIVersion: install.APIVersion, StorageDir: opts.storage, Heartbeat: opts.heartbeat,
		Command: sb.Command, Spawn: sb.Spawn, Protected: []host.Protected{{Path: l.Dir, What: "the extensions directory"}}}
	// The state directory holds the seal of installed.json and the
	// trust state: no sandbox may reach it either.
	if state, err := trust.DefaultStateDir(); err == nil {
		hopts.Protected = append(hopts.Protected, host.Protected{Path: state, What: "airvsx's state directory"})
	}
	// The brokers: fetch through the network broker (the only HTTP client
	// the host's extensions reach); every request audited.
	hopts.Fetch = netbroker.New(netbroker.Options{})
	if opts.auditLog != "" {
		al, aerr := openAuditLog(opts.auditLog)
		if aerr != nil {
			return fmt.Errorf("run: %w", aerr)
		}
		defer func() {
			if cerr := al.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("run: %w", cerr)
			}
		}()
		hopts.Audit = al.record
	}
	var disabled []install.Record
	for _, r := range l.Extensions {
		if !r.Enabled {
			disabled = append(disabled, r)
			continue
		}
		hopts.Extensions = append(hopts.Extensions, extensionOf(l.Dir, r))
	}
	if opts.settings != "" {
		b, err := os.ReadFile(opts.settings)
		if err != nil {
			return fmt.Errorf("run: settings: %w", err)
		}
		var m map[string]any
		if err := strictjson.Unmarshal(b, &m); err != nil {
			return fmt.Errorf("run: settings %s: %w", opts.settings, err)
		}
		hopts.Settings = b
	}
	if hopts.StorageDir == "" {
		tmp, err := tempdir.New("", "airvsx-storage-", log)
		if err != nil {
			return fmt.Errorf("run: %w", err)
		}
		defer tmp.Remove()
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
		return fmt.Errorf("run: %w", err)
	}
	out := runOutput{Command: opts.command, Events: []host.Event{}, Activated: pool.Startup().Activated}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if cerr := pool.Close(cctx); cerr != nil {
			log.Warn("stopping the extension hosts", "err", cerr)
		}
		recordActivations(cctx, log, l.Dir, pool.Activated())
	}()
	for _, s := range pool.Hosts() {
		h := s.Host()
		log.Info("extension host ready", "node", h.Info().Node, "pid", h.Info().PID)
	}
	for _, f := range pool.Startup().Failed {
		log.Warn("activation failed", "extension", f.Extension, "err", f.Error)
	}
	for _, e := range pool.Drain() {
		log.Info("event at start", "extension", e.Extension, "kind", e.Kind, "text", e.Text)
	}
	for _, doc := range opts.open {
		lang, file, _ := strings.Cut(doc, ":")
		dctx, cancel := context.WithTimeout(ctx, opts.timeout)
		activated, events, err := pool.OpenDocument(dctx, lang, file)
		cancel()
		out.Events = append(out.Events, events...)
		if err != nil {
			writeRunEvents(g.stderr, out.Events)
			return fmt.Errorf("run: %w", timedOut(err, "opening a "+lang+" document", opts.timeout))
		}
		log.Info("document opened", "language", lang, "activated", strings.Join(activated, ", "))
	}
	if opts.command != "" {
		cctx, cancel := context.WithTimeout(ctx, opts.timeout)
		res, err := pool.ExecuteCommand(cctx, opts.command, commandArgs(args)...)
		cancel()
		err = timedOut(err, "command "+opts.command, opts.timeout)
		if res != nil {
			out.Events = append(out.Events, res.Events...)
		}
		out.Events = append(out.Events, lateEvents(ctx, log, pool, out.Events, opts.wait)...)
		if err != nil {
			writeRunEvents(g.stderr, out.Events)
			if errors.Is(err, host.ErrNotFound) {
				for _, r := range disabled {
					if slices.Contains(r.Activation, "onCommand:"+opts.command) {
						return fmt.Errorf("run: %w (%s provides it but is disabled: %s)", err, r.ID, r.Reason)
					}
				}
				if known := knownCommands(hopts.Extensions); len(known) > 0 {
					return fmt.Errorf("run: %w; the extensions that run declare: %s", err, strings.Join(known, ", "))
				}
			}
			return fmt.Errorf("run: %w", err)
		}
		out.Result = res.Value
	}
	if opts.json {
		return g.printJSON(out)
	}
	writeRunEvents(g.stdout, out.Events)
	if opts.command != "" {
		_, err = fmt.Fprintf(g.stdout, "result: %s\n", termtext.Escape(string(out.Result)))
	}
	return err
}

// defaultRunTimeout is run's --timeout.
const defaultRunTimeout = 2 * time.Minute

// errTimedOut is wrapped when a command or document did not finish
// within --timeout.
var errTimedOut = errors.New("timed out")

// timedOut turns a deadline that ended what into an error naming it and
// the flag; other errors are returned as they are.
func timedOut(err error, what string, d time.Duration) error {
	if !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("%s did not finish within %v (--timeout; give a longer one if it needs the time): %w", what, d, errTimedOut)
}

// lateEvents waits wait, then returns the events the hosts reported that
// are not among seen (those the command's result carries): what the
// command caused after it returned, and whatever else happened meanwhile.
// Without a wait they are only logged.
func lateEvents(ctx context.Context, log *slog.Logger, pool *host.Pool, seen []host.Event, wait time.Duration) []host.Event {
	if wait > 0 {
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
	}
	var late []host.Event
	for _, e := range pool.Drain() {
		if slices.ContainsFunc(seen, e.Equal) {
			continue
		}
		if wait > 0 {
			late = append(late, e)
		} else {
			log.Info("event after the command returned (see --wait)", "extension", e.Extension, "kind", e.Kind, "text", e.Text)
		}
	}
	return late
}

// recordActivations sets the last activation time, in installed.json, of
// the extensions the hosts activated.
func recordActivations(ctx context.Context, log *slog.Logger, dir string, activated []string) {
	ids := index.ValidIDs(activated)
	if len(ids) == 0 {
		return
	}
	if err := install.MarkActivated(ctx, dir, ids, time.Now(), install.DirOptions{Logger: log}); err != nil {
		log.Warn("recording the last activation", "err", err)
	}
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

// knownCommands lists the commands the extensions declare (their
// onCommand activation events, contributes.commands included), sorted, at
// most 12 and then "…".
func knownCommands(exts []host.Extension) []string {
	var ids []string
	for _, e := range exts {
		for _, ev := range e.ActivationEvents {
			if id, ok := strings.CutPrefix(ev, "onCommand:"); ok {
				ids = append(ids, termtext.Escape(id))
			}
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) > 12 {
		ids = append(ids[:12], "…")
	}
	return ids
}

// commandArgs reads each argument as JSON when it parses, else as a string.
func commandArgs(args []string) []any {
	out := make([]any, 0, len(args))
	for _, a := range args {
		var v json.RawMessage
		if json.Unmarshal([]byte(a), &v) == nil {
			out = append(out, v)
		} else {
			out = append(out, a)
		}
	}
	return out
}

// writeRunEvents prints events one a line: [extension] kind: text.
func writeRunEvents(w io.Writer, events []host.Event) {
	for _, e := range events {
		who := e.Extension
		if who == "" {
			who = "host"
		}
		kind := e.Kind
		switch {
		case e.Level != "":
			kind += " " + e.Level
		case e.Name != "":
			kind += " " + e.Name
		}
		line := fmt.Sprintf("[%s] %s", who, kind)
		if e.Text != "" {
			line += ": " + e.Text
		}
		fmt.Fprintln(w, termtext.Escape(line))
	}
}
