package mirror

// Progress: the counts a long sync reports as it goes, for a progress line.

import "sync"

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
}

// Done is how many items are finished, stored or rejected. It reaches
// Planned when every item was fetched; a run that fails stops short.
func (p Progress) Done() int { return p.Stored + p.Rejected }

// progress keeps a run's counts and passes each change to fn, one call at
// a time, in the order of the changes. A nil *progress does nothing.
type progress struct {
	mu sync.Mutex
	p  Progress
	fn func(Progress)
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
	pr.fn(pr.p)
}

// found counts an item the planner found, before the plan is done.
func (pr *progress) found(bytes int64) {
	pr.update(func(p *Progress) { p.Planned++; p.PlannedBytes += bytes })
}

// planned records the plan's size.
func (pr *progress) planned(items int, bytes int64) {
	pr.update(func(p *Progress) { p.Planned, p.PlannedBytes = items, bytes })
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
