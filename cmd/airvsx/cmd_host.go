package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/airvsx/airvsx/hostlaunch/driver"
	"github.com/airvsx/airvsx/hostlaunch/install"
)

type hostOptions struct {
	poolOptions
	stdio bool
}

func newHostCommand(g *globals) *cobra.Command {
	var opts hostOptions
	cmd := &cobra.Command{
		Use: "host --stdio --extensions DIR [--workspace W]",
		Example: `  # serve the installed extensions to an editor or a daemon over stdin/stdout
  airvsx host --stdio --extensions ./exts --workspace .`,
		Short: "Serve the extension hosts to an editor over JSON-RPC (the driver)",
		Long: `Host starts the extension hosts as run does (the same extensions, grants,
sandbox and brokers) and serves them over stdin and stdout with the driver
protocol: JSON-RPC 2.0, one JSON message per line. The client opens,
changes, saves and closes documents, asks the language features
(completion, hover, definition, references, symbols, code actions, code
lenses, formatting, ...), reads diagnostics and tree views, executes
commands, and answers the quick picks, input boxes and messages
extensions ask ("ui/*" requests from the server); everything the hosts
report streams as "event" notifications. The protocol is described in
docs/driver.md.

It runs until the client sends "shutdown" or closes stdin, then
deactivates everything and stops the hosts. Logs go to stderr; stdout
carries only protocol messages.

Exit status: 0 after a shutdown or end of input, 2 usage or I/O error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !opts.stdio {
				return usagef("host: --stdio is required (the driver speaks over stdin and stdout; it is the only transport)")
			}
			if opts.extensions == "" {
				return usagef("host: --extensions DIR is required")
			}
			return runHost(cmd.Context(), g, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.stdio, "stdio", false, "speak the driver protocol over stdin and stdout")
	f.StringVar(&opts.extensions, "extensions", "", "the extensions directory")
	f.StringSliceVar(&opts.workspace, "workspace", nil, "a workspace folder (repeat for more)")
	f.StringVar(&opts.settings, "settings", "", "a JSON settings file for workspace.getConfiguration")
	f.StringVar(&opts.storage, "storage", "", "keep the extensions' storage here (default: a temporary directory)")
	f.StringVar(&opts.node, "node", "", "the node executable (default: node on PATH)")
	f.DurationVar(&opts.heartbeat, "heartbeat", 5*time.Second, "how often each host must answer a ping; one that leaves two unanswered is killed")
	f.StringVar(&opts.auditLog, "audit-log", "", "append one JSON line per brokered spawn or fetch, and per broker refusal, to this file")
	f.BoolVar(&opts.degraded, "insecure-degraded-isolation", false, "run even where a kernel sandbox layer is missing (logged, and shown by list)")
	return cmd
}

func runHost(ctx context.Context, g *globals, opts hostOptions) error {
	srv := driver.New(g.stdout, g.logger())
	sess, err := openSession(ctx, g, opts.poolOptions, srv)
	if err != nil {
		return fmt.Errorf("host: %w", err)
	}
	defer sess.Close(ctx)
	pool := sess.Pool()
	info := driver.Info{APIVersion: install.APIVersion, Extensions: []string{}, Activated: append([]string{}, pool.Startup().Activated...)}
	for _, e := range sess.Extensions() {
		info.Extensions = append(info.Extensions, e.ID)
	}
	for _, f := range pool.Startup().Failed {
		info.Failed = append(info.Failed, f.Extension+": "+f.Error)
	}
	if err := srv.Serve(ctx, g.stdin, pool, info); err != nil {
		return fmt.Errorf("host: %w", err)
	}
	return nil
}
