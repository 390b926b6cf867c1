// Command airvsx mirrors VS Code extensions from Open VSX into a signed
// registry, verifies registries and single packages offline, and renders
// a registry's catalog as a static site. (Installing and running
// extensions in a sandboxed extension host is not built yet; the help
// must not offer it until it is.)
//
// Every command is a thin adapter over a library package; see
// ARCHITECTURE.md in the design notes.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() { os.Exit(Main()) }

// Main runs the CLI with the process's arguments and standard streams and
// returns the exit status. Tests call it through testscript.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}
