package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/airvsx/airvsx/hostlaunch/host"
	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/hostlaunch/netbroker"
	"github.com/airvsx/airvsx/hostlaunch/sandbox"
	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/internal/strictjson"
	"github.com/airvsx/airvsx/internal/tempdir"
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
	// error, which names it and why (so it is told once).
	command string
}

func (o runOptions) poolOptions() poolOptions {
	return poolOptions{extensions: o.extensions, workspace: o.workspace, settings: o.settings, storage: o.storage,
		node: o.node, heartbeat: o.heartbeat, auditLog: o.auditLog, degraded: o.degraded, needInstalled: true,
		command: o.command}
}

// startPool loads the installed extensions, checks the sandbox, and
// starts the pool of hosts (ui answers their questions; nil dismisses
// them). closePool deactivates and stops everything, records the
// activations and removes what was temporary.
func startPool(ctx context.Context, g *globals, opts poolOptions, ui host.UI) (pool *host.Pool, hopts host.Options, disabled []install.Record, closePool func(), err error) {
	log := g.logger()
	var cleanups []func()
	cleanup := func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}
	defer func() {
		if err != nil {
			cleanup()
		}
	}()
	dopts := install.DirOptions{Logger: log}
	l, err := install.Load(ctx, opts.extensions, dopts)
	if err != nil {
		return nil, hopts, nil, nil, noExtensionsHint(err, opts.extensions)
	}
	for _, w := range l.Warnings {
		if !toldByRun(l.Extensions, opts.command, w) {
			log.Warn(w)
		}
	}
	if opts.needInstalled && len(l.Extensions) == 0 {
		return nil, hopts, nil, nil, fmt.Errorf("nothing installed in %s: %s", opts.extensions,
			commandLine("airvsx", "install", "ID", "--registry", "PLACE", "--key", "PREFIX.pub", "--extensions", opts.extensions))
	}
	sb, err := sandbox.New(sandbox.Options{AllowDegraded: opts.degraded, Logger: log})
	if err != nil {
		return nil, hopts, nil, nil, fmt.Errorf("%w; no extension was started (run on a Linux kernel with unprivileged user namespaces, Landlock ABI 4 or newer and seccomp, or accept the risk with --insecure-degraded-isolation)", err)
	}
	iso := install.Isolation{Time: time.Now().UTC(), Layers: sb.Layers().String(), Degraded: sb.Degraded(), Missing: sb.Layers().Missing()}
	if err := install.RecordIsolation(ctx, l.Dir, iso); err != nil {
		return nil, hopts, nil, nil, err
	}
	hopts = host.Options{Workspace: opts.workspace, Node: opts.node, Logger: log, APIVersion: install.APIVersion, StorageDir: opts.storage, Heartbeat: opts.heartbeat,
		Command: sb.Command, Spawn: sb.Spawn, Protected: []host.Protected{{Path: l.Dir, What: "the extensions directory"}}, UI: ui}
	// The state directory holds the seal of installed.json and the
	// trust state: no sandbox may reach it either.
	if state, err := trust.DefaultStateDir(); err == nil {
		hopts.Protected = append(hopts.Protected, host.Protected{Path: state, What: "airvsx's state directory"})
	}
	// The brokers: fetch through the network broker (the only HTTP client
	// the host's extensions reach); every request audited.
	hopts.Fetch = netbroker.New(netbroker.Options{})
	if opts.auditLog != "" {
		al, aerr := openAuditLog(opts.auditLog)
		if aerr != nil {
			return nil, hopts, nil, nil, aerr
		}
		cleanups = append(cleanups, func() {
			if cerr := al.Close(); cerr != nil {
				log.Warn("closing the audit log", "err", cerr)
			}
		})
		hopts.Audit = al.record
	}
	for _, r := range l.Extensions {
		if !r.Enabled {
			disabled = append(disabled, r)
			continue
		}
		hopts.Extensions = append(hopts.Extensions, extensionOf(l.Dir, r))
	}
	if opts.settings != "" {
		b, err := os.ReadFile(opts.settings)
		if err != nil {
			return nil, hopts, nil, nil, fmt.Errorf("settings: %w", err)
		}
		var m map[string]any
		if err := strictjson.Unmarshal(b, &m); err != nil {
			return nil, hopts, nil, nil, fmt.Errorf("settings %s: %w", opts.settings, err)
		}
		hopts.Settings = b
	}
	if hopts.StorageDir == "" {
		tmp, err := tempdir.New("", "airvsx-storage-", log)
		if err != nil {
			return nil, hopts, nil, nil, err
		}
		cleanups = append(cleanups, func() { tmp.Remove() })
		hopts.StorageDir = tmp.Path
	}
	// An extension whose activation crashes the host twice in a row is
	// disabled in installed.json.
	disable := func(ctx context.Context, id, reason string) error {
		xid, err := index.ParseID(id)
		if err != nil {
			return err
		}
		return install.Disable(ctx, l.Dir, xid, reason, dopts)
	}
	pool, err = host.LaunchPool(ctx, hopts, host.SuperviseOptions{Disable: disable})
	if err != nil {
		return nil, hopts, nil, nil, err
	}
	cleanups = append(cleanups, func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if cerr := pool.Close(cctx); cerr != nil {
			log.Warn("stopping the extension hosts", "err", cerr)
		}
		recordActivations(cctx, log, l.Dir, pool.Activated())
	})
	return pool, hopts, disabled, cleanup, nil
}

// toldByRun reports whether warning w is about a disabled extension of
// records that declares command, which no enabled one declares: run's
// error, command not found, then names that extension and why.
func toldByRun(records []install.Record, command, w string) bool {
	if command == "" {
		return false
	}
	declares := func(r install.Record) bool { return slices.Contains(r.Activation, "onCommand:"+command) }
	if slices.ContainsFunc(records, func(r install.Record) bool { return r.Enabled && declares(r) }) {
		return false
	}
	return slices.ContainsFunc(records, func(r install.Record) bool {
		return !r.Enabled && declares(r) && strings.HasPrefix(w, r.String()+" disabled: ")
	})
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
