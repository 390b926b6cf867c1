package host

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// SuperviseOptions configure a Supervisor.
type SuperviseOptions struct {
	// Backoff is the wait before restart n (from 0); default 1 s·2ⁿ, at
	// most 30 s.
	Backoff func(n int) time.Duration
	// MaxRestarts within Window (default 3 within a minute); past it the
	// supervisor stops restarting and waits for a manual restart.
	MaxRestarts int
	Window      time.Duration
	// Disable is told of an extension whose activation crashed the host
	// twice in a row (to record it, as install.Disable does); restarted
	// hosts leave it out either way.
	Disable func(ctx context.Context, id, reason string) error
}

// CrashLoopReason is why an extension is disabled after its activation
// crashed the host twice in a row.
const CrashLoopReason = "its activation crashed the extension host twice in a row"

// Supervisor keeps a host running: when it ends it is restarted with
// backoff, the extensions that were activating are blamed, and one blamed
// twice in a row is disabled.
type Supervisor struct {
	opts Options
	so   SuperviseOptions

	mu       sync.Mutex
	h        *Host
	crashes  map[string]int    // consecutive activation crashes
	disabled map[string]string // id -> reason
	restarts []time.Time
	before   []string // activated by the hosts before this one
}

// Supervise launches a supervised host.
func Supervise(ctx context.Context, opts Options, so SuperviseOptions) (*Supervisor, error) {
	opts = opts.withDefaults()
	if so.Backoff == nil {
		so.Backoff = func(n int) time.Duration { return min(time.Second<<min(n, 5), 30*time.Second) }
	}
	if so.MaxRestarts <= 0 {
		so.MaxRestarts = 3
	}
	if so.Window <= 0 {
		so.Window = time.Minute
	}
	s := &Supervisor{opts: opts, so: so, crashes: map[string]int{}, disabled: map[string]string{}}
	h, err := s.launch(ctx)
	if err != nil {
		return nil, err
	}
	s.h = h
	return s, nil
}

// launch starts a host without the disabled extensions; when it ends
// while an activation runs at start, the activation is blamed and the
// host started again (within the restart limit).
func (s *Supervisor) launch(ctx context.Context) (*Host, error) {
	for {
		s.mu.Lock()
		opts := s.opts
		opts.Extensions = slices.DeleteFunc(slices.Clone(s.opts.Extensions), func(e Extension) bool { _, off := s.disabled[e.ID]; return off })
		s.mu.Unlock()
		h, err := Launch(ctx, opts)
		var se *StartError
		if err == nil || !errors.As(err, &se) || len(se.Activating) == 0 {
			return h, err
		}
		if werr := s.crashed(ctx, se.Activating); werr != nil {
			return nil, errors.Join(err, werr)
		}
	}
}

// Host returns the current host.
func (s *Supervisor) Host() *Host {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.h
}

// Disabled returns the extensions the supervisor disabled, with why.
func (s *Supervisor) Disabled() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.disabled))
	for k, v := range s.disabled {
		out[k] = v
	}
	return out
}

// ExecuteCommand runs a command on the current host. When the host ends
// during the call it is restarted; when an activation was running (so the
// command had not), the command is tried again, up to twice.
func (s *Supervisor) ExecuteCommand(ctx context.Context, id string, args ...any) (*Result, error) {
	for attempt := 0; ; attempt++ {
		h := s.Host()
		r, err := h.ExecuteCommand(ctx, id, args...)
		if r != nil {
			s.activated(r.Events)
		}
		if !errors.Is(err, ErrExited) {
			return r, s.explain(err, id)
		}
		blamed := h.Activating()
		if rerr := s.restart(ctx, h, blamed); rerr != nil {
			return r, errors.Join(err, rerr)
		}
		if len(blamed) == 0 || attempt == 2 {
			return r, err
		}
	}
}

// Activate activates extension id in the current host, as ExecuteCommand
// runs a command: when the host ends meanwhile it is restarted, the
// activation that was running blamed, and tried again up to twice. An
// extension the supervisor disabled is a *DisabledError.
func (s *Supervisor) Activate(ctx context.Context, id string) ([]Event, error) {
	var all []Event
	for attempt := 0; ; attempt++ {
		s.mu.Lock()
		reason, off := s.disabled[id]
		s.mu.Unlock()
		if off {
			return all, &DisabledError{Err: &CommandError{Kind: ActivationFailed, Extension: id, Message: "activate " + id}, Extension: id, Reason: reason}
		}
		h := s.Host()
		events, err := h.Activate(ctx, id)
		all = append(all, events...)
		s.activated(events)
		if !errors.Is(err, ErrExited) {
			return all, err
		}
		blamed := h.Activating()
		if rerr := s.restart(ctx, h, blamed); rerr != nil {
			return all, errors.Join(err, rerr)
		}
		if len(blamed) == 0 || attempt == 2 {
			return all, err
		}
	}
}

// activated resets the crash count of extensions that activated.
func (s *Supervisor) activated(events []Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range events {
		if e.Kind == KindActivated {
			delete(s.crashes, e.Extension)
		}
	}
}

// explain adds, to a command not found, the disabled extension that
// would have provided it.
func (s *Supervisor) explain(err error, command string) error {
	if !errors.Is(err, ErrNotFound) {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.opts.Extensions {
		if reason, ok := s.disabled[e.ID]; ok && slices.Contains(e.ActivationEvents, "onCommand:"+command) {
			return &DisabledError{Err: err, Extension: e.ID, Reason: reason}
		}
	}
	return err
}

// restart closes old, blames the extensions that were activating when it
// ended and launches a new host.
func (s *Supervisor) restart(ctx context.Context, old *Host, blamed []string) error {
	old.Close(ctx)
	if err := s.crashed(ctx, blamed); err != nil {
		return err
	}
	h, err := s.launch(ctx)
	if err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	// A restarted host's start is over: its onStartupFinished extensions
	// follow at once, held or not.
	go h.FinishStartup(context.WithoutCancel(ctx))
	s.mu.Lock()
	s.before = append(s.before, old.Activated()...)
	s.h = h
	s.mu.Unlock()
	return nil
}

// crashed records a host's end: it counts the restart (refusing past the
// limit), disables the extensions blamed twice in a row, and waits the
// backoff.
func (s *Supervisor) crashed(ctx context.Context, blamed []string) error {
	s.mu.Lock()
	now := time.Now()
	s.restarts = slices.DeleteFunc(s.restarts, func(t time.Time) bool { return now.Sub(t) > s.so.Window })
	if len(s.restarts) >= s.so.MaxRestarts {
		s.mu.Unlock()
		return fmt.Errorf("the extension host ended %d times within %v: not restarting it", len(s.restarts)+1, s.so.Window)
	}
	wait := s.so.Backoff(len(s.restarts))
	s.restarts = append(s.restarts, now)
	var disable []string
	for _, id := range blamed {
		s.crashes[id]++
		if s.crashes[id] >= 2 {
			s.disabled[id] = CrashLoopReason
			disable = append(disable, id)
		}
	}
	s.mu.Unlock()
	var errs []error
	for _, id := range disable {
		s.opts.Logger.Warn("extension disabled", "extension", id, "reason", CrashLoopReason)
		if s.so.Disable != nil {
			if err := s.so.Disable(ctx, id, CrashLoopReason); err != nil {
				errs = append(errs, fmt.Errorf("disable %s: %w", id, err))
			}
		}
	}
	s.opts.Logger.Warn("restarting the extension host", "after", wait, "blamed", strings.Join(blamed, ", "))
	select {
	case <-time.After(wait):
	case <-ctx.Done():
		errs = append(errs, ctx.Err())
	}
	return errors.Join(errs...)
}

// Activated lists the extensions activated by this supervisor's hosts,
// the current one and those before it, in order.
func (s *Supervisor) Activated() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append(slices.Clone(s.before), s.h.Activated()...)
}

// Close closes the current host.
func (s *Supervisor) Close(ctx context.Context) error { return s.Host().Close(ctx) }

// DisabledError is a command not found because the extension providing
// it was disabled.
type DisabledError struct {
	Err       error
	Extension string
	Reason    string
}

// Error says the command is missing and which disabled extension has it.
func (e *DisabledError) Error() string {
	return fmt.Sprintf("%v (%s provides it but was disabled: %s)", e.Err, e.Extension, e.Reason)
}

// Unwrap returns the not-found error.
func (e *DisabledError) Unwrap() error { return e.Err }
