package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/hostlaunch/host"
	"github.com/airvsx/airvsx/hostlaunch/session"
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
	answers    []string
	save       bool
	format     bool
}

// runLong is run's help text.
const runLong = `Run starts Node.js extension host processes for the enabled extensions of
DIR/installed.json (their records' seals and their files checked as list
checks them: an extension whose record airvsx did not write gets no grant
and does not run), one process per distinct set of effective capabilities
(extensions linked by dependencies share one), activates those that start
eagerly ("*", workspaceContains, onStartupFinished; a dependency first,
also in another host), waits (within --timeout) for them to finish and
prints each, in an order that does not depend on their timing, a
dependency before its dependents, and, with --command,
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

When an extension is refused a capability it is not granted, run names the
extension, the capability and what it tried, the policy's capabilities
item that would grant it and the install command that applies the policy:
as the error when the run fails, as a warning on stderr when it does not.

Events an extension reports after its command has returned (from a timer or
a child process it started) are printed only with --wait.

Storage (globalStorage, workspace storage, logs, globalState and
workspaceState) goes to --storage, or to a temporary directory removed at
exit. Results go to stdout, logs to stderr.

A command (and each --open) has --timeout to finish (2m by default); past
it run exits 1, naming it. The activations at start have --timeout too;
past it run warns and goes on.

The workspace folders and the storage directory may not contain, or lie
in, the extensions directory or airvsx's state directory (an extension
could rewrite its own grants through them), and the workspace may not
contain or lie in the storage (every extension's state is there): run
refuses them, naming both.

Exit status: 0 success, 1 the command is unknown, an activation failed, the
command threw, timed out or the host died, 2 usage or I/O error (no node,
nothing installed, a damaged installed.json, a workspace that overlaps what
no extension may write).`

func newRunCommand(g *globals) *cobra.Command {
	var opts runOptions
	cmd := &cobra.Command{
		Use: "run --extensions DIR [--workspace W] [--open LANGUAGE[:FILE]] [--command ID [ARG...]] [--wait D]",
		Example: `  # run an installed extension's command in the sandboxed extension host
  airvsx run --extensions ./exts --workspace . --command yaml.showSchema
  # open a document first (activates onLanguage extensions), then wait for their events
  airvsx run --extensions ./exts --workspace . --open python:main.py --wait 2s`,
		Short: "Run installed extensions in a Node.js extension host and execute a command",
		Long:  runLong,
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
	f.StringSliceVar(&opts.open, "open", nil, "open a document before the command, as FILE (its language guessed from its name), LANGUAGE:FILE or LANGUAGE (a new untitled one); it activates the onLanguage extensions, and the last one opened is the active editor's (repeat for more)")
	f.DurationVar(&opts.heartbeat, "heartbeat", 5*time.Second, "how often each host must answer a ping; one that leaves two unanswered is killed")
	f.DurationVar(&opts.timeout, "timeout", defaultRunTimeout, "the deadline of --command, and of each --open: past it run exits 1, naming it")
	f.BoolVar(&opts.json, "json", false, "print the result and events as JSON")
	f.StringVar(&opts.auditLog, "audit-log", "", "append one JSON line per brokered spawn or fetch, and per broker refusal, to this file")
	f.BoolVar(&opts.degraded, "insecure-degraded-isolation", false, "run even where a kernel sandbox layer is missing (logged, and shown by list)")
	f.StringArrayVar(&opts.answers, "answer", nil, "answer the next question an extension asks: a quick pick's item label (or #N; comma-separated for several), an input box's text, a message's choice; - dismisses (repeat, in order)")
	f.BoolVar(&opts.format, "format", false, "format each --open document with the best formatter for its language (applies its edits)")
	f.BoolVar(&opts.save, "save", false, "at the end, save every document an extension changed (written back through the workspace broker)")
	return cmd
}

// runOutput is what run --json prints.
type runOutput struct {
	Command   string          `json:"command,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Events    []host.Event    `json:"events"`
	Activated []string        `json:"activated"`
	// Saved lists the documents --save wrote back.
	Saved []string `json:"saved,omitempty"`
	// Error is why run failed ("" when it did not).
	Error string `json:"error,omitempty"`
}

func runRun(ctx context.Context, g *globals, opts runOptions, args []string) error {
	log := g.logger()
	ui := &answers{list: opts.answers, log: log}
	sess, err := openSession(ctx, g, opts.poolOptions(), ui)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	defer sess.Close(ctx)
	pool := sess.Pool()
	// The activations at start, onStartupFinished ones included, settle
	// first (within --timeout): what run prints of them does not depend
	// on how fast they were.
	sctx, cancel := context.WithTimeout(ctx, opts.timeout)
	startup, serr := pool.Settle(sctx)
	cancel()
	if serr != nil && ctx.Err() != nil {
		return fmt.Errorf("run: %w", ctx.Err())
	}
	if serr != nil {
		log.Warn("the activations at start did not finish within --timeout; run goes on without waiting for the rest", "timeout", opts.timeout)
	}
	out := runOutput{Command: opts.command, Events: []host.Event{}, Activated: append([]string{}, startup.Activated...)}
	for _, s := range pool.Hosts() {
		h := s.Host()
		log.Info("extension host ready", "node", h.Info().Node, "pid", h.Info().PID)
	}
	out.Events = append(out.Events, startEvents(log, startup, pool.Drain())...)
	if err := runSteps(ctx, log, sess, opts, args, &out); err != nil {
		return runFailed(ctx, g, opts, &out, err)
	}
	// An extension refused a capability did not make the run fail (it
	// caught the refusal, or it was refused at start-up): say how to grant
	// it all the same.
	if derr := deniedError(ctx, opts.extensions, out.Events, nil); derr != nil {
		fmt.Fprintf(g.stderr, "airvsx: run: warning: %v\n", derr)
	}
	if opts.json {
		return g.printJSON(out)
	}
	writeRunEvents(g.stdout, out.Events)
	for _, s := range out.Saved {
		fmt.Fprintf(g.stdout, "saved: %s\n", termtext.Escape(s))
	}
	if opts.command != "" {
		_, err = fmt.Fprintf(g.stdout, "result: %s\n", termtext.Escape(string(out.Result)))
	}
	return err
}

// runSteps does what run's flags ask of the session, in order: open the
// documents (--open), format them (--format), execute the command
// (--command; then --wait) and save (--save), each within --timeout. The
// events, the result and what was saved go to out.
func runSteps(ctx context.Context, log *slog.Logger, sess *session.Session, opts runOptions, args []string, out *runOutput) error {
	pool := sess.Pool()
	var opened []string
	for _, doc := range opts.open {
		lang, file := openTarget(doc)
		dctx, cancel := context.WithTimeout(ctx, opts.timeout)
		d, activated, events, err := sess.OpenDocument(dctx, host.Document{LanguageID: lang, Path: file})
		cancel()
		out.Events = append(out.Events, events...)
		if err != nil {
			return timedOut(err, "opening a "+lang+" document", opts.timeout)
		}
		opened = append(opened, d.URI)
		log.Info("document opened", "language", lang, "uri", d.URI, "activated", strings.Join(activated, ", "))
	}
	if opts.format {
		for _, uri := range opened {
			dctx, cancel := context.WithTimeout(ctx, opts.timeout)
			events, err := sess.Format(dctx, uri)
			cancel()
			out.Events = append(out.Events, events...)
			if err != nil {
				return timedOut(err, "formatting "+uri, opts.timeout)
			}
		}
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
			return commandNotFound(err, sess, opts.command)
		}
		out.Result = res.Value
	} else if opts.wait > 0 {
		out.Events = append(out.Events, lateEvents(ctx, log, pool, out.Events, opts.wait)...)
	}
	if opts.save {
		sctx, cancel := context.WithTimeout(ctx, opts.timeout)
		saved, events, err := sess.SaveDirty(sctx)
		cancel()
		out.Events = append(out.Events, events...)
		out.Saved = saved
		if err != nil {
			return timedOut(err, "saving the documents", opts.timeout)
		}
	}
	return nil
}

// openTarget reads an --open value: FILE (its language guessed from its
// name), LANGUAGE:FILE, or LANGUAGE (a new untitled document). A value
// that names an existing file, or holds no colon but a / or a dot, is a
// file.
func openTarget(doc string) (lang, file string) {
	lang, file, ok := strings.Cut(doc, ":")
	if _, err := os.Stat(doc); !ok || err == nil {
		if err == nil || strings.ContainsAny(doc, "/.") {
			lang, file = "", doc // a file; its language guessed from its name
		}
	}
	return lang, file
}

// commandNotFound adds to err, when it says the command is not found,
// why: the disabled extension that provides it, or the commands the
// running extensions declare. Other errors are returned as they are.
func commandNotFound(err error, sess *session.Session, command string) error {
	if !errors.Is(err, host.ErrNotFound) {
		return err
	}
	for _, r := range sess.Disabled() {
		if slices.Contains(r.Activation, "onCommand:"+command) {
			return fmt.Errorf("%w (%s provides it but is disabled: %s)", err, r.ID, r.Reason)
		}
	}
	if known := knownCommands(sess.Extensions()); len(known) > 0 {
		return fmt.Errorf("%w; the extensions that run declare: %s", err, strings.Join(known, ", "))
	}
	return err
}

// runFailed reports err, run's failure: the events (results) go to
// stdout as on success, with --json in the document, which then holds the
// error too; the error goes to stderr.
func runFailed(ctx context.Context, g *globals, opts runOptions, out *runOutput, err error) error {
	// A refusal of the seat belt: one line naming the capability and how
	// to grant it, not the host's error (which may carry a stack).
	if derr := deniedError(ctx, opts.extensions, out.Events, err); derr != nil {
		err = derr
	}
	out.Error = err.Error()
	if opts.json {
		if perr := g.printJSON(out); perr != nil {
			g.logger().Warn("printing the result", "err", perr)
		}
	} else {
		writeRunEvents(g.stdout, out.Events)
	}
	return fmt.Errorf("run: %w", err)
}

// startEvents are the events of the activations at start that go with
// run's results: one activated event per extension, in startup's order
// (the events the hosts reported, drained; one made up when the host's
// was dropped), then what went wrong (failed activations, errors,
// refusals). The rest is logged. A failure the events do not tell is
// logged as a warning: each is told once.
func startEvents(log *slog.Logger, startup host.Startup, drained []host.Event) []host.Event {
	var out, wrong []host.Event
	activated := map[string]host.Event{}
	for _, e := range drained {
		switch e.Kind {
		case host.KindActivated:
			activated[strings.ToLower(e.Extension)] = e
		case host.KindActivationFailed, host.KindError, host.KindDenied:
			wrong = append(wrong, e)
		default:
			log.Info("event at start", "extension", e.Extension, "kind", e.Kind, "text", e.Text)
		}
	}
	for _, id := range startup.Activated {
		e, ok := activated[strings.ToLower(id)]
		if !ok {
			e = host.Event{Kind: host.KindActivated, Extension: id, Time: time.Now()}
		}
		delete(activated, strings.ToLower(id))
		out = append(out, e)
	}
	for _, e := range activated {
		// Activated after Settle gave up waiting: not among startup's.
		log.Info("event at start", "extension", e.Extension, "kind", e.Kind)
	}
	for _, f := range startup.Failed {
		if !slices.ContainsFunc(wrong, func(e host.Event) bool {
			return e.Kind == host.KindActivationFailed && strings.EqualFold(e.Extension, f.Extension)
		}) {
			log.Warn("activation failed", "extension", f.Extension, "err", f.Error)
		}
	}
	return append(out, wrong...)
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
