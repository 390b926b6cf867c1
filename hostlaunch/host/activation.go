package host

// Activation is the launcher's: it knows each extension's activation
// events and dependencies, decides what to activate and when, and asks
// the host to activate one extension at a time ("activate"). So it knows
// which activation was running when a host ended, and blames only that
// one: a host's own claims ("activating", "activated" for an extension it
// does not run) never enter it.

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Activate activates the extension id of this host: its dependencies
// that run in this host first, each once (a cycle is broken where it
// closes). Dependencies in other hosts are Pool's to activate. A failed
// activation is a *CommandError matching ErrActivation. It returns the
// events the activations caused.
func (h *Host) Activate(ctx context.Context, id string) ([]Event, error) {
	e, ok := h.own(id)
	if !ok {
		return nil, &CommandError{Kind: NotFound, Extension: id, Message: "no extension " + id + " in this host"}
	}
	return h.activateTree(ctx, e, map[string]bool{})
}

// activateTree activates e after its dependencies of this host, skipping
// those in seen (the chain that led here: a cycle).
func (h *Host) activateTree(ctx context.Context, e *Extension, seen map[string]bool) ([]Event, error) {
	key := strings.ToLower(e.ID)
	if seen[key] || h.isActivated(e.ID) {
		return nil, nil
	}
	seen[key] = true
	var events []Event
	for _, d := range e.Dependencies {
		dep, ok := h.own(d)
		if !ok {
			continue // another host's (Pool activates it), or missing: the host says so
		}
		ev, err := h.activateTree(ctx, dep, seen)
		events = append(events, ev...)
		if err != nil {
			return events, err
		}
	}
	ev, err := h.activateOne(ctx, e.ID)
	return append(events, ev...), err
}

// activateOne asks the host to activate id. While it runs, id is among
// Activating; it stays there if the host ends meanwhile (it is blamed).
func (h *Host) activateOne(ctx context.Context, id string) ([]Event, error) {
	h.amu.Lock()
	h.activating[id] = true
	h.amu.Unlock()
	events, err := h.call(ctx, "activate", map[string]any{"extension": id}, nil)
	if errors.Is(err, ErrExited) {
		return events, err
	}
	h.amu.Lock()
	delete(h.activating, id)
	h.amu.Unlock()
	if err == nil {
		h.noteActivated(id)
	}
	return events, err
}

// isActivated reports whether this host activated id.
func (h *Host) isActivated(id string) bool {
	h.amu.Lock()
	defer h.amu.Unlock()
	return slices.Contains(h.activated, id)
}

// waiting lists this host's extensions that event activates and that
// have not activated.
func (h *Host) waiting(event string) []*Extension {
	var out []*Extension
	for i := range h.opts.Extensions {
		e := &h.opts.Extensions[i]
		if slices.Contains(e.ActivationEvents, event) && !h.isActivated(e.ID) {
			out = append(out, e)
		}
	}
	return out
}

// activateAll activates each of exts (dependencies first), collecting
// the events; a failure is told to failed, or, when failed is nil, stops
// it. The host's end stops it always.
func (h *Host) activateAll(ctx context.Context, exts []*Extension, failed func(id string, err error)) ([]Event, error) {
	var events []Event
	for _, e := range exts {
		ev, err := h.activateTree(ctx, e, map[string]bool{})
		events = append(events, ev...)
		if errors.Is(err, ErrExited) || ctx.Err() != nil {
			return events, err
		}
		if err != nil {
			if failed == nil {
				return events, err
			}
			failed(e.ID, err)
		}
	}
	return events, nil
}

// startup activates the extensions that start eagerly: "*" ones and those
// whose workspaceContains glob matches; the onStartupFinished ones follow
// (FinishStartup), at once on a goroutine of their own unless
// HoldStartupFinished. Those that depend, directly or through this host's
// extensions, on an extension of another host are left out: Pool
// activates them, after that dependency.
func (h *Host) startup(ctx context.Context) error {
	var eager []*Extension
	for i := range h.opts.Extensions {
		e := &h.opts.Extensions[i]
		if h.needsElsewhere(e, map[string]bool{}) {
			continue
		}
		switch {
		case eagerAtStart(*e, h.opts.Workspace):
			eager = append(eager, e)
		case slices.Contains(e.ActivationEvents, "onStartupFinished"):
			h.finishing = append(h.finishing, e)
		}
	}
	_, err := h.activateAll(ctx, eager, func(id string, err error) {
		h.startupRes.Failed = append(h.startupRes.Failed, StartupFailure{id, err.Error()})
	})
	h.startupRes.Activated = h.Activated()
	if err != nil {
		return err
	}
	if !h.opts.HoldStartupFinished {
		go h.FinishStartup(context.WithoutCancel(ctx))
	}
	return nil
}

// FinishStartup activates, once, the onStartupFinished extensions of this
// host (those Pool does not activate), outside any request, until ctx
// ends or the host does; later calls wait for the first. It returns the
// activations that failed.
func (h *Host) FinishStartup(ctx context.Context) []StartupFailure {
	h.finishOnce.Do(func() {
		defer close(h.finished)
		ctx, cancel := h.untilExit(ctx)
		defer cancel()
		h.activateAll(ctx, h.finishing, func(id string, err error) {
			h.finishFailed = append(h.finishFailed, StartupFailure{id, err.Error()})
		})
	})
	select {
	case <-h.finished:
		return h.finishFailed
	case <-ctx.Done():
		return nil
	}
}

// eagerAtStart reports whether e activates when a host starts on the
// workspace folders: "*", or a workspaceContains glob that matches.
func eagerAtStart(e Extension, workspace []string) bool {
	if slices.Contains(e.ActivationEvents, "*") {
		return true
	}
	for _, ev := range e.ActivationEvents {
		if glob, ok := strings.CutPrefix(ev, "workspaceContains:"); ok && workspaceContains(workspace, glob) {
			return true
		}
	}
	return false
}

// needsElsewhere reports whether e depends on an extension of another
// host, directly or through the extensions of this host it depends on
// (seen breaks cycles).
func (h *Host) needsElsewhere(e *Extension, seen map[string]bool) bool {
	seen[strings.ToLower(e.ID)] = true
	for _, d := range e.Dependencies {
		if slices.ContainsFunc(h.opts.Elsewhere, func(x Extension) bool { return strings.EqualFold(x.ID, d) }) {
			return true
		}
		if dep, ok := h.own(d); ok && !seen[strings.ToLower(d)] && h.needsElsewhere(dep, seen) {
			return true
		}
	}
	return false
}

// Bounds of the workspaceContains search.
const (
	containsDepth   = 5
	containsEntries = 10000
)

// workspaceContains answers a simple glob ("**/name", "dir/*.ext",
// "name") on the workspace folders, looking at most containsDepth levels
// and containsEntries entries deep, never into node_modules or .git.
func workspaceContains(folders []string, glob string) bool {
	var parts []string
	for _, p := range strings.Split(glob, "**/") {
		var pieces []string
		for _, q := range strings.Split(p, "*") {
			pieces = append(pieces, regexp.QuoteMeta(q))
		}
		parts = append(parts, strings.Join(pieces, "[^/]*"))
	}
	re, err := regexp.Compile("^" + strings.Join(parts, "(?:.*/)?") + "$")
	if err != nil {
		return false
	}
	budget := containsEntries
	for _, f := range folders {
		found := false
		filepath.WalkDir(f, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == f {
				return nil
			}
			if budget--; budget < 0 {
				return filepath.SkipAll
			}
			rel, _ := filepath.Rel(f, p)
			rel = filepath.ToSlash(rel)
			if re.MatchString(rel) {
				found = true
				return filepath.SkipAll
			}
			if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || strings.Count(rel, "/") >= containsDepth-1) {
				return filepath.SkipDir
			}
			return nil
		})
		if found {
			return true
		}
	}
	return false
}

// elsewhereIDs are the IDs of exts (the extensions of other hosts).
func elsewhereIDs(exts []Extension) []string {
	out := make([]string, 0, len(exts))
	for _, e := range exts {
		out = append(out, e.ID)
	}
	return out
}

// commandOwners maps each command an extension declares (onCommand,
// contributes.commands included) to the first extension, of this host or
// another, that declares it: no other extension may register it.
func commandOwners(opts Options) map[string]string {
	out := map[string]string{}
	for _, e := range append(slices.Clone(opts.Extensions), opts.Elsewhere...) {
		for _, ev := range e.ActivationEvents {
			if c, ok := strings.CutPrefix(ev, "onCommand:"); ok {
				if _, taken := out[c]; !taken {
					out[c] = e.ID
				}
			}
		}
	}
	return out
}

// untilExit returns a context that ends with ctx or when the host process
// exits, whichever comes first: work done for the host stops when nothing
// is left to answer. Call cancel when the work is done.
func (h *Host) untilExit(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-h.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
