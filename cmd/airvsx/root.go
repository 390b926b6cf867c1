package main

import (
	"context"
	"io"
	"log/slog"

	"github.com/spf13/cobra"
)

// globals are the flags every command shares.
type globals struct {
	verbose bool
	logJSON bool
	stdout  io.Writer
	stderr  io.Writer
	stdin   io.Reader
	started bool // a command's RunE was reached: flags and args were fine
}

// logger returns the CLI's logger: text or JSON on stderr, debug with -v.
func (g *globals) logger() *slog.Logger {
	level := slog.LevelInfo
	if g.verbose {
		level = slog.LevelDebug
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
registry, carries it across the gap, verifies it offline, renders a static
catalog, and installs and runs extensions in a sandboxed extension host.

Only "sync" opens network connections, and only to the upstream it is given.

Exit status: 0 success, 1 the check or operation failed, 2 usage or I/O error.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().BoolVarP(&g.verbose, "verbose", "v", false, "log debug messages")
	root.PersistentFlags().BoolVar(&g.logJSON, "log-json", false, "log as JSON lines")
	root.SetOut(g.stdout)
	root.SetErr(g.stderr)
	root.SetIn(g.stdin)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	// Cobra checks flags and arguments before it runs the persistent
	// pre-run hook, so an error before the hook ran is a usage error.
	root.PersistentPreRun = func(*cobra.Command, []string) { g.started = true }
	root.AddCommand(
		newVersionCommand(g),
		newInspectCommand(g),
		newKeygenCommand(g),
		newSyncCommand(g),
		newLsCommand(g),
		newVerifyCommand(g),
		newSiteCommand(g),
		newInstallCommand(g),
		newUninstallCommand(g),
		newListCommand(g),
	)
	return root
}

// run parses args and runs one command; it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g := &globals{stdout: stdout, stderr: stderr, stdin: stdin}
	root := newRootCommand(g)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil && !g.started {
		err = &usageError{err}
	}
	return report(stderr, err)
}
