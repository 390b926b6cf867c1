// Command airvsx mirrors VS Code extensions from Open VSX into a signed
// registry, verifies registries and single packages offline, renders a
// registry's catalog as a static site, copies registries between places,
// installs extensions from a registry and runs them in an extension host
// inside a kernel sandbox.
//
// Every command is a thin adapter over a library package; see
// docs/architecture.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/airvsx/airvsx/hostlaunch/sandbox"
)

func main() {
	sandbox.Helper() // the extension host's sandbox helper: never returns when selected
	os.Exit(Main())
}

// stopGrace is how long a command has, after SIGINT or SIGTERM cancelled
// its context, to stop and remove its temporary files before the process
// ends anyway (at once on a second signal).
const stopGrace = 1500 * time.Millisecond

// Main runs the CLI with the process's arguments and standard streams and
// returns the exit status. Tests call it through testscript.
//
// SIGINT and SIGTERM cancel the command's context: its work stops and
// cleans up. A command stuck in a call no context reaches (a password
// prompt) is ended stopGrace later, or at a second signal, with the
// terminal's state restored and exit status 2.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	finished := make(chan struct{})
	defer close(finished)
	go backstop(ctx, finished, terminalRestorer(os.Stdin))
	return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// backstop ends the process when ctx was cancelled by a signal and the
// command has not finished within stopGrace or a second signal came.
func backstop(ctx context.Context, finished <-chan struct{}, restore func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	select {
	case <-ctx.Done():
	case <-finished:
		return
	}
	select {
	case <-finished:
		return
	case <-time.After(stopGrace):
	case <-drainOne(sigs):
	}
	restore()
	fmt.Fprintf(os.Stderr, "airvsx: stopped by a signal; the command did not finish within %s, so it may have left temporary files (names with .tmp-) behind\n", stopGrace)
	os.Exit(exitError)
}

// drainOne returns a channel that receives once a second signal arrives
// on sigs (the first is the one that cancelled the context).
func drainOne(sigs <-chan os.Signal) <-chan os.Signal {
	out := make(chan os.Signal, 1)
	go func() {
		<-sigs // the first
		out <- <-sigs
	}()
	return out
}

// terminalRestorer returns a function that puts the terminal on f back in
// the state it is in now (a password prompt turns echo off), or does
// nothing when f is not a terminal.
func terminalRestorer(f *os.File) func() {
	fd := int(f.Fd())
	if !term.IsTerminal(fd) {
		return func() {}
	}
	st, err := term.GetState(fd)
	if err != nil {
		return func() {}
	}
	return func() { term.Restore(fd, st) }
}
