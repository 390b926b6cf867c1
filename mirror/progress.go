package mirror

// Progress: the counts a long sync reports as it goes, for a progress line.

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Progress is how far a sync has got, passed to Options.Progress. Within a
// run every field only grows.
type Progress struct {
	// Planned is how many items the run fetches (Plan.New), and
	// PlannedBytes their size as upstream announced it (Plan.FetchBytes;
	// 0 when upstream does not say). Both grow while the planner finds
	// items (fetching starts at once) and are final when the plan is.
	Planned      int
	PlannedBytes int64
	// Downloaded counts the items whose package is here, downloaded (or
	// read back from the store, for an entry a killed run left), and
	// DownloadedBytes their size. An item rejected before its package
	// arrived (too large) is never counted.
	Downloaded      int
	DownloadedBytes int64
	// Stored counts the items verified and stored, and StoredBytes the
	// size of their packages.
	Stored      int
	StoredBytes int64
	// Rejected counts the items quarantined.
	Rejected int
	// PlanDone is set once the plan is made: Planned and PlannedBytes
	// are final. Until then the sync is planning.
	PlanDone bool
	// InFlight lists the requests upstream in flight, oldest first: what
	// a sync that seems stalled waits on.
	InFlight []InFlight
	// Heartbeat is set on the calls Options.ProgressEvery makes, when
	// nothing changed but time went by.
	Heartbeat bool
}

// InFlight is one request upstream in flight (its retries included).
type InFlight struct {
	// What names it: an item ("ns.name@version[@platform]", its
	// package download), or what the planner or the fetch asks for
	// ("versions of ns.name", "sha256 of ns.name@version").
	What string
	// Since is when it was sent (its first attempt).
	Since time.Time
	// Counted is set for a package download, whose Bytes and LastByte
	// say how it goes: Bytes received in the current attempt, the last
	// at LastByte (zero before the first).
	Counted  bool
	Bytes    int64
	LastByte time.Time
}

// Idle is how long f has received nothing by now: since its last byte,
// or since it was sent.
func (f InFlight) Idle(now time.Time) time.Duration {
	if f.LastByte.After(f.Since) {
		return now.Sub(f.LastByte)
	}
	return now.Sub(f.Since)
}

// Done is how many items are finished, stored or rejected. It reaches
// Planned when every item was fetched; a run that fails stops short.
func (p Progress) Done() int { return p.Stored + p.Rejected }

// progress keeps a run's counts and passes each change to fn, one call at
// a time, in the order of the changes. A nil *progress does nothing.
type progress struct {
	mu      sync.Mutex
	p       Progress
	fn      func(Progress)
	flights map[*flight]bool
}

// flight is a request in flight, as progress follows it. Its counts are
// updated without the progress lock, as the bytes arrive.
type flight struct {
	what    string
	since   time.Time
	counted bool
	bytes   atomic.Int64
	last    atomic.Int64 // UnixNano of the last byte; 0 for none
}

func newProgress(fn func(Progress)) *progress {
	if fn == nil {
		return nil
	}
	return &progress{fn: fn}
}

func (pr *progress) update(f func(*Progress)) {
	if pr == nil {
		return
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	f(&pr.p)
	p := pr.p
	p.InFlight = pr.inFlight()
	pr.fn(p)
}

// inFlight lists the flights, oldest first. The caller holds pr.mu.
func (pr *progress) inFlight() []InFlight {
	var out []InFlight
	for f := range pr.flights {
		in := InFlight{What: f.what, Since: f.since, Counted: f.counted, Bytes: f.bytes.Load()}
		if ns := f.last.Load(); ns != 0 {
			in.LastByte = time.Unix(0, ns)
		}
		out = append(out, in)
	}
	slices.SortFunc(out, func(a, b InFlight) int {
		if c := a.Since.Compare(b.Since); c != 0 {
			return c
		}
		return strings.Compare(a.What, b.What)
	})
	return out
}

// begin records a request in flight until its end is called; counted
// says its bytes are counted (flight.received).
func (pr *progress) begin(what string, counted bool) (*flight, func()) {
	if pr == nil {
		return nil, func() {}
	}
	f := &flight{what: what, since: time.Now(), counted: counted}
	pr.mu.Lock()
	if pr.flights == nil {
		pr.flights = map[*flight]bool{}
	}
	pr.flights[f] = true
	pr.mu.Unlock()
	return f, func() {
		pr.mu.Lock()
		delete(pr.flights, f)
		pr.mu.Unlock()
	}
}

// received counts n bytes that arrived; restart starts the count over (a
// retry). A nil *flight counts nothing.
func (f *flight) received(n int) {
	if f == nil || n <= 0 {
		return
	}
	f.bytes.Add(int64(n))
	f.last.Store(time.Now().UnixNano())
}

func (f *flight) restart() {
	if f != nil {
		f.bytes.Store(0)
	}
}

// heartbeat calls fn with the counts and what is in flight every every,
// until the returned stop is called (which waits for a call under way).
// every <= 0 starts nothing.
func (pr *progress) heartbeat(every time.Duration) (stop func()) {
	if pr == nil || every <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				pr.mu.Lock()
				p := pr.p
				p.InFlight = pr.inFlight()
				p.Heartbeat = true
				pr.fn(p)
				pr.mu.Unlock()
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// found counts an item the planner found, before the plan is done.
func (pr *progress) found(bytes int64) {
	pr.update(func(p *Progress) { p.Planned++; p.PlannedBytes += bytes })
}

// planned records the plan's size.
func (pr *progress) planned(items int, bytes int64) {
	pr.update(func(p *Progress) { p.Planned, p.PlannedBytes, p.PlanDone = items, bytes, true })
}

// downloaded records a package that arrived.
func (pr *progress) downloaded(bytes int64) {
	pr.update(func(p *Progress) { p.Downloaded++; p.DownloadedBytes += bytes })
}

// stored records an item stored.
func (pr *progress) stored(bytes int64) {
	pr.update(func(p *Progress) { p.Stored++; p.StoredBytes += bytes })
}

// rejected records an item quarantined.
func (pr *progress) rejected() {
	pr.update(func(p *Progress) { p.Rejected++ })
}
