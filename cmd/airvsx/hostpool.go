package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/airvsx/airvsx/hostlaunch/host"
	"github.com/airvsx/airvsx/hostlaunch/netbroker"
	"github.com/airvsx/airvsx/hostlaunch/session"
)

// poolOptions are what run and host share: where the extensions are and
// how their hosts run.
type poolOptions struct {
	extensions string
	workspace  []string
	settings   string
	storage    string
	node       string
	heartbeat  time.Duration
	auditLog   string
	degraded   bool
	// needInstalled refuses an extensions directory with nothing
	// installed (run: it has nothing to run), before anything is written
	// in it.
	needInstalled bool
	// command is run's --command: when only a disabled extension
	// declares it, Load's warning about that extension is left to run's
	// error, which names it and why (so it is told once:
	// session.Options.Command).
	command string
}

func (o runOptions) poolOptions() poolOptions {
	return poolOptions{extensions: o.extensions, workspace: o.workspace, settings: o.settings, storage: o.storage,
		node: o.node, heartbeat: o.heartbeat, auditLog: o.auditLog, degraded: o.degraded, needInstalled: true,
		command: o.command}
}

// openSession starts the session run and host share (session.Open): the
// installed extensions in the kernel sandbox, with the network broker
// wired in (only the binary links it) and ui answering the extensions'
// questions (nil dismisses them), after the extension control lists
// (checkControl). Its errors say what to do next.
func openSession(ctx context.Context, g *globals, opts poolOptions, ui host.UI) (*session.Session, error) {
	// The extension control lists first: an installed extension they
	// refuse stops everything before any host starts.
	if err := checkControl(ctx, g.logger(), opts.extensions); err != nil {
		return nil, err
	}
	s, err := session.Open(ctx, session.Options{
		Extensions: opts.extensions, Workspace: opts.workspace, Settings: opts.settings, Storage: opts.storage,
		Node: opts.node, Heartbeat: opts.heartbeat, AuditLog: opts.auditLog, AllowDegraded: opts.degraded,
		NeedInstalled: opts.needInstalled, Command: opts.command,
		Fetch: netbroker.New(netbroker.Options{}), UI: ui, Logger: g.logger(),
	})
	var serr *session.SandboxError
	switch {
	case err == nil:
		return s, nil
	case errors.Is(err, session.ErrNothingInstalled):
		return nil, fmt.Errorf("%w: %s", err,
			commandLine("airvsx", "install", "ID", "--registry", "PLACE", "--key", "PREFIX.pub", "--extensions", opts.extensions))
	case errors.As(err, &serr):
		return nil, fmt.Errorf("%w; no extension was started (run on a Linux kernel with unprivileged user namespaces, Landlock ABI 4 or newer and seccomp, or accept the risk with --insecure-degraded-isolation)", err)
	}
	return nil, noExtensionsHint(err, opts.extensions)
}

// answers is run's host.UI: the --answer values, in order, one per
// question. A quick pick's answer is an item's label (or #N, its index
// from 0; several comma-separated for a multiple pick), an input box's
// the text, a message's a choice's title; "-" dismisses. With no answer
// left, a question is dismissed.
type answers struct {
	list []string
	log  *slog.Logger
	mu   sync.Mutex // questions of several hosts may come at once
	next int
}

// Answer implements host.UI: the answers are taken in the order the
// questions come.
func (a *answers) Answer(ctx context.Context, q host.Question) (json.RawMessage, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.next >= len(a.list) {
		a.log.Warn("a question was dismissed (no --answer left; give one per question, in order)", "kind", q.Kind, "extension", q.Extension)
		return nil, nil
	}
	ans := a.list[a.next]
	a.next++
	if ans == "-" {
		return nil, nil
	}
	var p struct {
		Items []json.RawMessage `json:"items"`
	}
	json.Unmarshal(q.Params, &p)
	label := func(raw json.RawMessage) string {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		var it struct {
			Label string `json:"label"`
		}
		json.Unmarshal(raw, &it)
		return it.Label
	}
	find := func(want string) (int, bool) {
		if n, ok := strings.CutPrefix(want, "#"); ok {
			i, err := strconv.Atoi(n)
			return i, err == nil && i >= 0 && i < len(p.Items)
		}
		for i, it := range p.Items {
			if label(it) == want {
				return i, true
			}
		}
		return 0, false
	}
	switch q.Kind {
	case host.InputBox:
		return json.Marshal(map[string]string{"value": ans})
	case host.Message:
		i, ok := find(ans)
		if !ok {
			return nil, fmt.Errorf("--answer %q is none of the message's choices", ans)
		}
		return json.Marshal(map[string]int{"selected": i})
	default:
		var sel []int
		for _, want := range strings.Split(ans, ",") {
			i, ok := find(want)
			if !ok {
				return nil, fmt.Errorf("--answer %q: no item %q in the quick pick", ans, want)
			}
			sel = append(sel, i)
		}
		return json.Marshal(map[string][]int{"selected": sel})
	}
}
