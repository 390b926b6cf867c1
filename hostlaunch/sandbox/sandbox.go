package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"strings"
	"sync"

	"github.com/airvsx/airvsx/hostlaunch/host"
)

// Options configure New.
type Options struct {
	// AllowDegraded runs without the layers the machine lacks instead of
	// refusing (--insecure-degraded-isolation): the choice is logged.
	AllowDegraded bool
	// Logger receives the sandbox's log; nil discards it.
	Logger *slog.Logger
}

// Layers is what the kernel offers, as probed by New.
type Layers struct {
	// Namespaces: new user, network, mount, PID, IPC and UTS namespaces
	// (nil: available; else why not). With them each process gets a
	// private root too.
	Namespaces error
	// LandlockABI is Landlock's ABI version (0: none), LandlockErr why
	// it is unusable (absent, or older than ABI 4).
	LandlockABI int
	LandlockErr error
	// Seccomp: seccomp filters (nil: available).
	Seccomp error
}

// Missing names the layers that are not available, with why.
func (l Layers) Missing() []string {
	var m []string
	if l.Namespaces != nil {
		m = append(m, "user, network, mount and PID namespaces ("+l.Namespaces.Error()+")")
	}
	if l.LandlockErr != nil {
		m = append(m, "Landlock ("+l.LandlockErr.Error()+")")
	}
	if l.Seccomp != nil {
		m = append(m, "seccomp ("+l.Seccomp.Error()+")")
	}
	return m
}

// String describes the layers in force in one line: those available,
// then those missing.
func (l Layers) String() string {
	var in []string
	if l.Namespaces == nil {
		in = append(in, "user, network (loopback only), mount, PID, IPC and UTS namespaces", "a private root (only node, its libraries, the extensions, the workspace and the storage)")
	}
	if l.LandlockErr == nil {
		ll := fmt.Sprintf("Landlock ABI %d (files, TCP", l.LandlockABI)
		if l.LandlockABI >= landlockScopeABI {
			ll += ", signal and abstract-socket scopes"
		}
		in = append(in, ll+")")
	}
	if l.Seccomp == nil {
		in = append(in, "seccomp (no sockets, processes, namespaces, mounts, ptrace or execveat; foreign system calls kill)")
	}
	in = append(in, "rlimits and a memory watchdog")
	s := strings.Join(in, ", ")
	if m := l.Missing(); len(m) > 0 {
		s += "; missing: " + strings.Join(m, "; ")
	}
	return s
}

// landlockScopeABI is the first Landlock ABI with signal and
// abstract-socket scoping; before it the PID and network namespaces stop
// those.
const landlockScopeABI = 6

// ErrMissingLayer matches New's error when a layer is missing and
// degraded isolation was not allowed.
var ErrMissingLayer = errors.New("kernel sandbox layer missing")

// Sandbox starts processes inside the kernel sandbox.
type Sandbox struct {
	opts   Options
	layers Layers
	log    *slog.Logger

	mu    sync.Mutex
	nodes map[string][2]int // node's major and minor version by path
}

// Layers returns what New probed.
func (s *Sandbox) Layers() Layers { return s.layers }

// Degraded reports whether the sandbox runs without a missing layer.
func (s *Sandbox) Degraded() bool { return len(s.layers.Missing()) > 0 }

var (
	_ host.CommandFunc = (*Sandbox)(nil).Command
	_ host.SpawnFunc   = (*Sandbox)(nil).Spawn
)

// Command is a host.CommandFunc: the host's node started through the
// sandbox helper.
func (s *Sandbox) Command(ctx context.Context, spec host.Spec) (*exec.Cmd, error) {
	return s.command(ctx, helperSpec{Host: &spec})
}

// Spawn is a host.SpawnFunc: a program the broker allowed, started
// through its own sandbox helper with the host's limits.
func (s *Sandbox) Spawn(ctx context.Context, spec host.SpawnSpec) (*exec.Cmd, error) {
	return s.command(ctx, helperSpec{Spawn: &spec})
}
