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
	// untitled numbers the untitled documents the pool opens.
	untitled atomic.Int64
}

// LaunchPool starts the hosts of every group of opts.Extensions, each with
// the rest of opts, concurrently. A failure closes those started.
func LaunchPool(ctx context.Context, opts Options, so SuperviseOptions) (*Pool, error) {
	groups := Groups(opts.Extensions)
	if len(groups) == 0 {
		groups = [][]Extension{nil}
	}
	p := &Pool{hosts: make([]*Supervisor, len(groups)), exts: groups}
	errs := make([]error, len(groups))
	var wg sync.WaitGroup
	for i, g := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := opts
			o.Extensions = g
			o.Elsewhere = nil
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
		p.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return p, nil
}

// Hosts returns the supervisors, one per group, in Groups' order.
func (p *Pool) Hosts() []*Supervisor { return p.hosts }

// Startup merges what every host activated at start.
func (p *Pool) Startup() Startup {
	var s Startup
	for _, h := range p.hosts {
		st := h.Host().Startup()
		s.Activated = append(s.Activated, st.Activated...)
		s.Failed = append(s.Failed, st.Failed...)
	}
	return s
}

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
	var events []Event
	for _, g := range p.exts {
		for _, e := range g {
			if slices.Contains(e.ActivationEvents, "onLanguage:"+language) {
				ev, err := p.activateDeps(ctx, e, map[string]bool{})
				events = append(events, ev...)
				if err != nil {
					return activated, events, err
				}
			}
		}
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

// Close closes every host.
func (p *Pool) Close(ctx context.Context) error {
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
