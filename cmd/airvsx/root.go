package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"
)

// globals are the flags every command shares.
type globals struct {
	verbose  bool
	logLevel logLevel
	logJSON  bool
	stdout   io.Writer
	stderr   io.Writer
	stdin    io.Reader
	started  bool // a command's RunE was reached: flags and args were fine
}

// printJSON writes v to stdout as JSON indented by two spaces, with a
// final newline: the output of every command's --json.
func (g *globals) printJSON(v any) error {
	enc := json.NewEncoder(g.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// logger returns the CLI's logger: text or JSON on stderr. By default only
// warnings and errors are logged; -v adds progress (info), --log-level
// chooses the level outright and wins over -v.
func (g *globals) logger() *slog.Logger {
	level := slog.LevelWarn
	if g.verbose {
		level = slog.LevelInfo
	}
	if g.logLevel.set {
		level = g.logLevel.level
	}
	opts := &slog.HandlerOptions{Level: level}
	if g.logJSON {
		return slog.New(slog.NewJSONHandler(g.stderr, opts))
	}
	return slog.New(slog.NewTextHandler(g.stderr, opts))
}

func newRootCommand(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "airvsx",
		Short: "Carry VS Code extensions across an air gap, signed and verified",
		Long: `airvsx mirrors the extensions a policy allows from Open VSX into a signed
registry ("sync"), adds .vsix files that came from elsewhere to it ("add"),
lists it ("ls"), verifies it offline once it has crossed
the air gap ("verify"), renders its catalog as a static HTML site that
opens from file:// ("site"), serves it to the editors of the network as
an Open VSX and VS Code gallery ("serve"), and installs extensions from it into an
extensions directory, verified ("install", "uninstall", "list"). "inspect"
and "verify FILE.vsix" check a single untrusted .vsix; "copy" copies a
registry from one place to another, verifying it on the way; "keygen" writes the
key a registry is signed with; "prune" removes the entries a policy no
longer selects and "gc" deletes the blobs nothing refers to. "run" starts installed extensions in a
Node.js extension host and executes one of their commands, inside a kernel
sandbox that denies network, process spawn and files beyond the workspace
unless an extension's grant allows them; "host" serves the same hosts to an
editor or a daemon over JSON-RPC (documents, language features, questions).

Only "sync" opens network connections, and only to the upstream it is given,
except that every command given a docker:// registry connects to that
registry's host; only "serve" listens.

Exit status: 0 success, 1 the check or operation failed, 2 usage or I/O error.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().BoolVarP(&g.verbose, "verbose", "v", false, "log progress on stderr (same as --log-level info)")
	root.PersistentFlags().Var(&g.logLevel, "log-level", "log messages of this level and above on stderr: debug, info, warn or error (default warn)")
	root.PersistentFlags().BoolVar(&g.logJSON, "log-json", false, "log as JSON lines")
	root.SetOut(g.stdout)
	root.SetErr(g.stderr)
	root.SetIn(g.stdin)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	// Cobra checks flags and arguments before it runs the persistent
	// pre-run hook, so an error before the hook ran is a usage error.
	root.PersistentPreRun = func(*cobra.Command, []string) { g.started = true }
	root.SetHelpCommand(newHelpCommand(root))
	root.AddCommand(
		newVersionCommand(g),
		newInspectCommand(g),
		newKeygenCommand(g),
		newSyncCommand(g),
		newAddCommand(g),
		newLsCommand(g),
		newVerifyCommand(g),
		newSiteCommand(g),
		newServeCommand(g),
		newInstallCommand(g),
		newUninstallCommand(g),
		newListCommand(g),
		newRunCommand(g),
		newHostCommand(g),
		newCopyCommand(g),
		newBundleCommand(g),
		newPruneCommand(g),
		newGCCommand(g),
	)
	return root
}

// run parses args and runs one command; it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g := &globals{stdout: stdout, stderr: stderr, stdin: stdin}
	root := newRootCommand(g)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err != nil && !g.started {
		err = &usageError{err}
	}
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) && cmd != nil && cmd != root {
		// Stopped by a signal: say so, what it left, and how to finish.
		err = interrupted(cmd.Name(), cmd.CommandPath(), err)
	} else if err != nil && cmd != nil && cmd != root {
		err = withVerb(cmd.Name(), err)
	}
	code := report(stderr, err)
	if errors.As(err, new(*usageError)) && cmd != nil {
		// Say where the right usage is written down (help's own usage
		// error is a command it does not know: the list of commands).
		if cmd.Name() == "help" {
			fmt.Fprintf(stderr, "airvsx: see 'airvsx help' for the commands\n")
		} else {
			fmt.Fprintf(stderr, "airvsx: see '%s --help' for its usage\n", cmd.CommandPath())
		}
	}
	return code
}

// interrupted is the error of command verb (run as path) stopped by a
// signal before it finished: what it left, and how to finish. The extension
// hosts of run and host keep nothing: they were stopped and their
// temporary files removed. Every other command writes through temporary
// files and renames, so it left what it had before, or the new state.
func interrupted(verb, path string, err error) error {
	cause := strings.TrimPrefix(err.Error(), verb+": ")
	switch verb {
	case "run", "host":
		return &wordedError{msg: fmt.Sprintf("%s: interrupted (%s): the extension hosts were stopped and their temporary files removed; nothing was left behind", verb, cause), err: err}
	}
	return &wordedError{msg: fmt.Sprintf("%s: interrupted before it finished (%s): what it wrote went through temporary files and renames, so nothing is half-written; run %q again to finish", verb, cause, path), err: err}
}

// withVerb makes err, a failure of the command verb, begin with the
// verb as every command's errors do ("sync: ..."), so that an error
// passed up as it came (a file, a flag, a place) still names the command
// it stopped. Errors that already begin with the verb ("install FILE:
// ...") are returned as they are.
func withVerb(verb string, err error) error {
	if msg := err.Error(); strings.HasPrefix(msg, verb+":") || strings.HasPrefix(msg, verb+" ") {
		return err
	}
	return fmt.Errorf("%s: %w", verb, err)
}

// logLevel is the value of --log-level: one of slog's four level names.
type logLevel struct {
	level slog.Level
	set   bool // given on the command line
}

func (l *logLevel) String() string {
	if !l.set {
		return ""
	}
	return strings.ToLower(l.level.String())
}

// Set accepts debug, info, warn or error, in any case.
func (l *logLevel) Set(s string) error {
	levels := map[string]slog.Level{
		"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError,
	}
	v, ok := levels[strings.ToLower(s)]
	if !ok {
		return fmt.Errorf("unknown level %q: want debug, info, warn or error", s)
	}
	l.level, l.set = v, true
	return nil
}

func (l *logLevel) Type() string { return "level" }

// newHelpCommand is "airvsx help [COMMAND]": a topic that is no command is
// a usage error (exit 2) that suggests the nearest command.
func newHelpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help shows the help of any command: airvsx help COMMAND (the same as airvsx COMMAND --help).",
		RunE: func(cmd *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if err != nil || target == nil || len(rest) > 0 {
				topic := strings.Join(args, " ")
				hint := "airvsx help lists the commands"
				if s := root.SuggestionsFor(args[0]); len(s) > 0 {
					hint = fmt.Sprintf("did you mean %q?", s[0])
				}
				return &usageError{fmt.Errorf("help: no command %q; %s", topic, hint)}
			}
			return target.Help()
		},
	}
}
