package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Result is a command's result and the events it caused before returning.
type Result struct {
	Value  json.RawMessage `json:"value"`
	Events []Event         `json:"events"`
}

// Info returns what the host announced in its handshake.
func (h *Host) Info() Info { return h.info }

// Startup returns what the host activated at its start ("*" and
// workspaceContains extensions).
func (h *Host) Startup() Startup { return h.startupRes }

// Events delivers every event within the rate cap, caused by a request or
// not. It is buffered; when nobody reads it, events are dropped (Dropped).
func (h *Host) Events() <-chan Event { return h.events }

// Dropped counts the events Events could not buffer.
func (h *Host) Dropped() int64 { return h.dropped.Load() }

// Done is closed when the host process has ended; Err then says why.
func (h *Host) Done() <-chan struct{} { return h.done }

// Err is why the host ended, or nil while it runs.
func (h *Host) Err() error {
	select {
	case <-h.done:
		return h.exitErr
	default:
		return nil
	}
}

// ExecuteCommand runs command id with args (each encoded as JSON),
// activating the extensions of this host waiting for onCommand:id first
// (Activate). A command no one provides is a *CommandError matching
// ErrNotFound; a failed activation one matching ErrActivation, naming the
// extension.
func (h *Host) ExecuteCommand(ctx context.Context, id string, args ...any) (*Result, error) {
	if args == nil {
		args = []any{}
	}
	events, err := h.activateAll(ctx, h.waiting("onCommand:"+id), nil)
	if err != nil {
		return &Result{Events: events}, fmt.Errorf("command %s: %w", id, err)
	}
	var r struct {
		Value json.RawMessage `json:"value"`
	}
	more, err := h.call(ctx, "executeCommand", map[string]any{"command": id, "args": args}, &r)
	events = append(events, more...)
	var ce *CommandError
	if errors.As(err, &ce) && ce.Kind == NotFound && ce.Extension == "" {
		// The host knows no such command; if extensions of this host
		// activated on it, they are to blame.
		var decl []string
		for _, e := range h.opts.Extensions {
			if slices.Contains(e.ActivationEvents, "onCommand:"+id) {
				decl = append(decl, e.ID)
			}
		}
		if len(decl) > 0 {
			ce.Extension, ce.Message = decl[0], fmt.Sprintf("command %s was not registered by %s, which activated on it", id, strings.Join(decl, ", "))
		}
	}
	if err != nil {
		return &Result{Events: events}, fmt.Errorf("command %s: %w", id, err)
	}
	return &Result{Value: r.Value, Events: events}, nil
}

// Close deactivates the extensions (within DeactivateTimeout), closes the
// channel, kills what is left of the process group and removes the host's
// scripts. It returns the deactivation failures.
func (h *Host) Close(ctx context.Context) error {
	var errs []error
	defer h.wsfs.close()
	defer h.spawns.close()
	h.closeOnce.Do(func() {
		if h.cmd != nil && h.Err() == nil {
			dctx, cancel := context.WithTimeout(ctx, h.opts.DeactivateTimeout+500*time.Millisecond)
			var r struct {
				Deactivated []struct {
					Extension string `json:"extension"`
					Error     string `json:"error"`
				} `json:"deactivated"`
			}
			if _, err := h.call(dctx, "shutdown", map[string]any{"deadlineMs": h.opts.DeactivateTimeout.Milliseconds()}, &r); err != nil {
				errs = append(errs, fmt.Errorf("deactivate: %w", err))
			}
			cancel()
			for _, d := range r.Deactivated {
				if d.Error != "" {
					errs = append(errs, fmt.Errorf("deactivate %s: %s", d.Extension, d.Error))
				}
			}
		}
		h.closing.Store(true)
		if h.conn != nil {
			h.conn.f.Close() // the host exits when its channel closes
		}
		if h.cmd != nil {
			select {
			case <-h.done:
			case <-time.After(time.Second):
			}
			// Whatever is left in the group (the host, or what it
			// spawned) goes.
			if err := syscall.Kill(-h.cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
				errs = append(errs, fmt.Errorf("kill host: %w", err))
			}
			<-h.done
		}
		if err := h.hostTmp.Remove(); err != nil {
			errs = append(errs, err)
		}
		h.audits.close()
		if h.tmp != "" {
			if err := os.RemoveAll(h.tmp); err != nil {
				errs = append(errs, err)
			}
		}
	})
	return errors.Join(errs...)
}
