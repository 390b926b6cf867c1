package host

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Groups splits extensions into the sets that share a host process: one
// per distinct set of effective capabilities (with the hosts and programs
// the brokers allow), so the kernel sandbox can
// give each process only what its extensions are granted. Extensions
// linked by dependencies stay together (a dependency's exports are
// objects in its process), so such a group has the union of their
// capabilities. Groups come in a stable order: fewest capabilities first.
func Groups(exts []Extension) [][]Extension {
	// Components linked by dependencies, by union-find.
	parent := make([]int, len(exts))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	byID := map[string]int{}
	for i, e := range exts {
		byID[strings.ToLower(e.ID)] = i
	}
	for i, e := range exts {
		for _, d := range e.Dependencies {
			if j, ok := byID[strings.ToLower(d)]; ok {
				parent[find(i)] = find(j)
			}
		}
	}
	// The union of each component's capabilities, allowed hosts and
	// programs, then one group per distinct union. (The brokers take the
	// extension's name from the host, so extensions that share a process
	// must share what the brokers would grant them.)
	union := map[int][]string{}
	for i, e := range exts {
		u := append(union[find(i)], e.Capabilities...)
		for _, h := range e.AllowedHosts {
			u = append(u, "host "+strings.ToLower(h))
		}
		for _, p := range e.Programs {
			u = append(u, "program "+p)
		}
		union[find(i)] = u
	}
	idx := map[string]int{}
	var out [][]Extension
	for i, e := range exts {
		k := capKey(union[find(i)])
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

// ExecuteCommand runs command id in the host whose extensions wait for
// it (onCommand), else in each host in turn until one has it.
func (p *Pool) ExecuteCommand(ctx context.Context, id string, args ...any) (*Result, error) {
	order := make([]int, 0, len(p.hosts))
	for i, g := range p.exts {
		if slices.ContainsFunc(g, func(e Extension) bool { return slices.Contains(e.ActivationEvents, "onCommand:"+id) }) {
			order = append(order, i)
		}
	}
	for i := range p.hosts {
		if !slices.Contains(order, i) {
			order = append(order, i)
		}
	}
	var events []Event
	var err error
	for _, i := range order {
		var r *Result
		r, err = p.hosts[i].ExecuteCommand(ctx, id, args...)
		if r != nil {
			events = append(events, r.Events...)
		}
		if !unclaimed(err) {
			if err != nil {
				return &Result{Events: events}, err
			}
			r.Events = events
			return r, nil
		}
	}
	return &Result{Events: events}, err
}

// unclaimed says err is a command no extension of the host knows of, so
// another host may have it.
func unclaimed(err error) bool {
	var ce *CommandError
	return errors.As(err, &ce) && ce.Kind == NotFound && ce.Extension == "" && !errors.As(err, new(*DisabledError))
}

// OpenDocument tells every host; it returns the extensions activated.
func (p *Pool) OpenDocument(ctx context.Context, language, path string) ([]string, []Event, error) {
	var activated []string
	var events []Event
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
