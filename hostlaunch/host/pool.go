package host

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Groups splits extensions into the sets that share a host process: one
// per distinct grant (effective capabilities, with the hosts and programs
// the brokers allow), so the kernel sandbox gives each process only what
// its extensions are granted and no extension ever uses a grant the
// policy did not give it: extensions that share a process share
// everything. A dependency with other grants runs in another host; its
// exports are out of its dependents' reach there. Groups come in a stable
// order: fewest capabilities first.
func Groups(exts []Extension) [][]Extension {
	idx := map[string]int{}
	var out [][]Extension
	for _, e := range exts {
		k := grantKey(e)
		g, ok := idx[k]
		if !ok {
			g = len(out)
			idx[k] = g
			out = append(out, nil)
		}
		out[g] = append(out[g], e)
	}
	slices.SortStableFunc(out, func(a, b []Extension) int { return len(groupCaps(a)) - len(groupCaps(b)) })
	return out
}

// grantKey is what e is granted, as a map key: its capabilities, allowed
// hosts and programs.
func grantKey(e Extension) string {
	k := slices.Clone(e.Capabilities)
	for _, h := range e.AllowedHosts {
		k = append(k, "host "+strings.ToLower(h))
	}
	for _, p := range e.Programs {
		k = append(k, "program "+p)
	}
	return capKey(k)
}

// capKey is a capability set as a map key.
func capKey(caps []string) string {
	c := slices.Clone(caps)
	slices.Sort(c)
	return strings.Join(slices.Compact(c), ",")
}

// groupCaps is the union of a group's capabilities.
func groupCaps(g []Extension) []string {
	var all []string
	for _, e := range g {
		all = append(all, e.Capabilities...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// Pool runs extensions in one supervised host per group (Groups) and
// routes commands and documents to them. An extension's
// commands.executeCommand reaches only the commands of its own host.
type Pool struct {
	hosts []*Supervisor
	exts  [][]Extension
	opts  Options
	// startup is what LaunchPool activated at start; settled is closed
	// once the onStartupFinished activations are done too (finished
	// then holds their failures). stop ends them at Close.
	startup  Startup
	settled  chan struct{}
	finished []StartupFailure
	stop     context.CancelFunc
	// untitled numbers the untitled documents the pool opens.
	untitled atomic.Int64
}

// LaunchPool starts the hosts of every group of opts.Extensions, each with
// the rest of opts, concurrently; a failure closes those started. Each
// host activates its eager extensions; then the pool activates those that
// depend on an extension of another host, after it, and returns. The
// onStartupFinished activations follow, on a goroutine of their own (the
// hosts' first, then those depending on another host's): Settle waits for
// them.
func LaunchPool(ctx context.Context, opts Options, so SuperviseOptions) (*Pool, error) {
	groups := Groups(opts.Extensions)
	if len(groups) == 0 {
		groups = [][]Extension{nil}
	}
	p := &Pool{hosts: make([]*Supervisor, len(groups)), exts: groups, opts: opts, settled: make(chan struct{})}
	errs := make([]error, len(groups))
	var wg sync.WaitGroup
	for i, g := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := opts
			o.Extensions = g
			o.Elsewhere = nil
			o.HoldStartupFinished = true
			for j, other := range groups {
				if j != i {
					o.Elsewhere = append(o.Elsewhere, other...)
				}
			}
			p.hosts[i], errs[i] = Supervise(ctx, o, so)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		close(p.settled)
		p.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	for _, h := range p.hosts {
		st := h.Host().Startup()
		p.startup.Activated = append(p.startup.Activated, st.Activated...)
		p.startup.Failed = append(p.startup.Failed, st.Failed...)
	}
	activated, failed := p.activateCrossHost(ctx, func(e Extension) bool { return eagerAtStart(e, opts.Workspace) })
	p.startup.Activated = append(p.startup.Activated, activated...)
	p.startup.Failed = append(p.startup.Failed, failed...)
	p.startup.Activated = p.startOrder(p.startup.Activated)
	fctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	p.stop = stop
	go func() {
		defer close(p.settled)
		var mu sync.Mutex
		var failed []StartupFailure
		var wg sync.WaitGroup
		for _, h := range p.hosts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f := h.Host().FinishStartup(fctx)
				mu.Lock()
				failed = append(failed, f...)
				mu.Unlock()
			}()
		}
		wg.Wait()
		_, more := p.activateCrossHost(fctx, func(e Extension) bool {
			return !eagerAtStart(e, opts.Workspace) && slices.Contains(e.ActivationEvents, "onStartupFinished")
		})
		p.finished = append(failed, more...)
	}()
	return p, nil
}

// activateCrossHost activates, in Groups' order, the extensions that
// start (start says which) and that the hosts left to the pool: those
// depending on an extension of another host, activated after it
// (activateDeps). It returns those it activated and those that failed.
func (p *Pool) activateCrossHost(ctx context.Context, start func(Extension) bool) ([]string, []StartupFailure) {
	var activated []string
	var failed []StartupFailure
	for i, g := range p.exts {
		for _, e := range g {
			if !start(e) || !p.crossHost(e, i, map[string]bool{}) {
				continue
			}
			if ctx.Err() != nil {
				return activated, failed
			}
			_, err := p.activateDeps(ctx, e, map[string]bool{})
			if err == nil {
				_, err = p.hosts[i].Activate(ctx, e.ID)
			}
			if err != nil {
				failed = append(failed, StartupFailure{e.ID, err.Error()})
				continue
			}
			activated = append(activated, e.ID)
		}
	}
	return activated, failed
}

// crossHost reports whether e, of host home, depends on an extension of
// another host, directly or through extensions of its own host (seen
// breaks cycles): Host.needsElsewhere, seen from the pool.
func (p *Pool) crossHost(e Extension, home int, seen map[string]bool) bool {
	seen[strings.ToLower(e.ID)] = true
	for _, d := range e.Dependencies {
		j := p.hostOf(d)
		if j >= 0 && j != home {
			return true
		}
		if j == home && !seen[strings.ToLower(d)] {
			if p.crossHost(p.exts[j][slices.IndexFunc(p.exts[j], func(x Extension) bool { return strings.EqualFold(x.ID, d) })], home, seen) {
				return true
			}
		}
	}
	return false
}

// Settle waits, until ctx ends, for the activations at start to be done,
// onStartupFinished ones included. It returns what the hosts activated
// (startOrder: an order that does not depend on timing, every dependency
// before its dependents; a command's extensions too, when one ran
// meanwhile) and the activations at start that failed. When ctx ends
// first, it returns ctx's error with what had activated by then.
func (p *Pool) Settle(ctx context.Context) (Startup, error) {
	var err error
	failed := slices.Clone(p.startup.Failed)
	select {
	case <-p.settled:
		failed = append(failed, p.finished...)
	case <-ctx.Done():
		err = ctx.Err()
	}
	return Startup{Activated: p.startOrder(p.Activated()), Failed: failed}, err
}

// startOrder orders activated (extension IDs): the extensions that start
// eagerly first, then the onStartupFinished ones, then any others, each
// kind in Groups' order, each extension after its dependencies.
func (p *Pool) startOrder(activated []string) []string {
	active := map[string]string{}
	for _, id := range activated {
		active[strings.ToLower(id)] = id
	}
	var all []Extension
	for _, g := range p.exts {
		all = append(all, g...)
	}
	rank := func(e Extension) int {
		switch {
		case eagerAtStart(e, p.opts.Workspace):
			return 0
		case slices.Contains(e.ActivationEvents, "onStartupFinished"):
			return 1
		}
		return 2
	}
	slices.SortStableFunc(all, func(a, b Extension) int { return rank(a) - rank(b) })
	var out []string
	seen := map[string]bool{}
	var visit func(id string)
	visit = func(id string) {
		key := strings.ToLower(id)
		if seen[key] {
			return
		}
		seen[key] = true
		if j := p.hostOf(id); j >= 0 {
			e := p.exts[j][slices.IndexFunc(p.exts[j], func(x Extension) bool { return strings.EqualFold(x.ID, id) })]
			for _, d := range e.Dependencies {
				visit(d)
			}
		}
		if a, ok := active[key]; ok {
			out = append(out, a)
		}
	}
	for _, e := range all {
		visit(e.ID)
	}
	for _, id := range activated {
		visit(id) // not among the pool's extensions: kept, last
	}
	return out
}

// Hosts returns the supervisors, one per group, in Groups' order.
func (p *Pool) Hosts() []*Supervisor { return p.hosts }

// Startup is what LaunchPool activated at start ("*" and
// workspaceContains extensions; Settle adds the onStartupFinished ones).
func (p *Pool) Startup() Startup { return p.startup }

// ExecuteCommand runs command id in the one host it belongs to: the
// host of the extension that declares it (onCommand), else the first
// host that registered it. Another host's registration of a declared
// command, or of one a host registered first, is never asked: no host
// answers for another. Dependencies of the waiting extensions that run
// in other hosts are activated first, in their hosts.
func (p *Pool) ExecuteCommand(ctx context.Context, id string, args ...any) (*Result, error) {
	i, ok := p.owner(id)
	if !ok {
		return &Result{}, fmt.Errorf("command %s: %w", id, &CommandError{Kind: NotFound, Message: "command " + id + " not found"})
	}
	var events []Event
	for _, e := range p.exts[i] {
		if slices.Contains(e.ActivationEvents, "onCommand:"+id) {
			ev, err := p.activateDeps(ctx, e, map[string]bool{})
			events = append(events, ev...)
			if err != nil {
				return &Result{Events: events}, fmt.Errorf("command %s: %w", id, err)
			}
		}
	}
	r, err := p.hosts[i].ExecuteCommand(ctx, id, args...)
	if r != nil {
		r.Events = append(events, r.Events...)
		r.Events = append(r.Events, p.Sync(ctx, r.Events)...)
	}
	return r, err
}

// owner is the host command id belongs to (see ExecuteCommand).
func (p *Pool) owner(id string) (int, bool) {
	for i, g := range p.exts {
		if slices.ContainsFunc(g, func(e Extension) bool { return slices.Contains(e.ActivationEvents, "onCommand:"+id) }) {
			return i, true
		}
	}
	for i, h := range p.hosts {
		if h.Host().Registered(id) {
			return i, true
		}
	}
	return 0, false
}

// activateDeps activates, each in its own host, the dependencies of e
// that run in another host than e (and theirs, first), each once.
func (p *Pool) activateDeps(ctx context.Context, e Extension, seen map[string]bool) ([]Event, error) {
	var events []Event
	seen[strings.ToLower(e.ID)] = true
	home := p.hostOf(e.ID)
	for _, d := range e.Dependencies {
		j := p.hostOf(d)
		if j < 0 || seen[strings.ToLower(d)] {
			continue // not installed (its host says so), or a cycle
		}
		dep := p.exts[j][slices.IndexFunc(p.exts[j], func(x Extension) bool { return strings.EqualFold(x.ID, d) })]
		ev, err := p.activateDeps(ctx, dep, seen)
		events = append(events, ev...)
		if err != nil {
			return events, err
		}
		if j != home {
			ev, err := p.hosts[j].Activate(ctx, dep.ID)
			events = append(events, ev...)
			if err != nil {
				return events, err
			}
		}
	}
	return events, nil
}

// activateLanguageDeps activates, each in its own host, the other-host
// dependencies of every extension waiting for documents of language
// (onLanguage:language), and returns the events that came.
func (p *Pool) activateLanguageDeps(ctx context.Context, language string) ([]Event, error) {
	var events []Event
	for _, g := range p.exts {
		for _, e := range g {
			if slices.Contains(e.ActivationEvents, "onLanguage:"+language) {
				ev, err := p.activateDeps(ctx, e, map[string]bool{})
				events = append(events, ev...)
				if err != nil {
					return events, err
				}
			}
		}
	}
	return events, nil
}

// hostOf is the index of the host that runs extension id, or -1.
func (p *Pool) hostOf(id string) int {
	for i, g := range p.exts {
		if slices.ContainsFunc(g, func(e Extension) bool { return strings.EqualFold(e.ID, id) }) {
			return i
		}
	}
	return -1
}

// Groups returns the extensions of each host, in Hosts' order.
func (p *Pool) Groups() [][]Extension { return p.exts }

// OpenDocument tells every host, after activating, each in its own host,
// the other-host dependencies of the extensions it activates; it returns
// the extensions activated.
func (p *Pool) OpenDocument(ctx context.Context, language, path string) ([]string, []Event, error) {
	var activated []string
	events, err := p.activateLanguageDeps(ctx, language)
	if err != nil {
		return activated, events, err
	}
	for _, h := range p.hosts {
		a, ev, err := h.Host().OpenDocument(ctx, language, path)
		activated, events = append(activated, a...), append(events, ev...)
		if err != nil {
			return activated, events, err
		}
	}
	return activated, events, nil
}

// Activated lists the extensions every host activated.
func (p *Pool) Activated() []string {
	var out []string
	for _, h := range p.hosts {
		out = append(out, h.Activated()...)
	}
	return out
}

// Drain returns the events buffered in every current host's Events,
// without waiting.
func (p *Pool) Drain() []Event {
	var out []Event
	for _, s := range p.hosts {
		ch := s.Host().Events()
		for more := true; more; {
			select {
			case e := <-ch:
				out = append(out, e)
			default:
				more = false
			}
		}
	}
	return out
}

// Close ends the activations at start and closes every host.
func (p *Pool) Close(ctx context.Context) error {
	if p.stop != nil {
		p.stop()
	}
	var errs []error
	for i, h := range p.hosts {
		if h != nil {
			if err := h.Close(ctx); err != nil {
				errs = append(errs, fmt.Errorf("host %d (capabilities %q): %w", i, groupCaps(p.exts[i]), err))
			}
		}
	}
	return errors.Join(errs...)
}
