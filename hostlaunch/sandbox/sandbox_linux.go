//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
)

// New probes the kernel's layers and returns a Sandbox, or an error
// wrapping ErrMissingLayer that names what is missing.
func New(opts Options) (*Sandbox, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Sandbox{opts: opts, log: log, layers: probe()}
	if m := s.layers.Missing(); len(m) > 0 {
		if !opts.AllowDegraded {
			return nil, fmt.Errorf("%w: %v", ErrMissingLayer, m)
		}
		log.Warn("running extensions with DEGRADED isolation (--insecure-degraded-isolation)", "missing", m)
	}
	return s, nil
}

func probe() Layers {
	return Layers{} // TODO
}

func (s *Sandbox) command(_ context.Context, hs helperSpec) (*exec.Cmd, error) {
	b, err := json.Marshal(hs)
	if err != nil {
		return nil, err
	}
	return exec.Command("/proc/self/exe", helperArg, string(b)), nil
}

// Helper runs the sandbox helper when the process was started as one
// (argv[1] is the helper's marker) and never returns then; otherwise it
// returns at once. Call it first thing in main (and TestMain).
func Helper() {
	if len(os.Args) < 3 || os.Args[1] != helperArg {
		return
	}
	os.Exit(127)
}
