//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"runtime"

	"github.com/airvsx/airvsx/hostlaunch/host"
)

var errOS = errors.New("not built for " + runtime.GOOS)

// New returns an error wrapping ErrMissingLayer unless opts.AllowDegraded:
// only Linux has the kernel sandbox.
func New(opts Options) (*Sandbox, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	l := Layers{Namespaces: errOS, LandlockErr: errOS, Seccomp: errOS}
	if !opts.AllowDegraded {
		return nil, fmt.Errorf("%w: %v", ErrMissingLayer, l.Missing())
	}
	log.Warn("running extensions with DEGRADED isolation (--insecure-degraded-isolation)", "missing", l.Missing())
	return &Sandbox{opts: opts, log: log, layers: l}, nil
}

// command runs node (or the program) directly: there is no sandbox here.
func (s *Sandbox) command(ctx context.Context, hs helperSpec) (*exec.Cmd, error) {
	if hs.Host != nil {
		return host.Direct(ctx, *hs.Host)
	}
	return host.DirectSpawn(ctx, *hs.Spawn)
}

// Helper does nothing: there is no helper mode outside Linux.
func Helper() {}
