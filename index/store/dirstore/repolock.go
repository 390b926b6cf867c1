package dirstore

import "sync"

// repoLocks serializes the read-modify-write of each repository's
// index.json (and the making of its layout) without serializing
// repositories against each other: a copy makes hundreds of layouts at
// once, each waiting on its own fsyncs.
type repoLocks struct {
	mu    sync.Mutex
	locks map[string]*repoLock
}

// repoLock is one repository's lock and how many goroutines hold or wait
// for it (the entry is dropped when none do).
type repoLock struct {
	sync.Mutex
	refs int
}

// lock locks repo and returns the function that unlocks it.
func (r *repoLocks) lock(repo string) (unlock func()) {
	r.mu.Lock()
	if r.locks == nil {
		r.locks = map[string]*repoLock{}
	}
	l := r.locks[repo]
	if l == nil {
		l = &repoLock{}
		r.locks[repo] = l
	}
	l.refs++
	r.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		r.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(r.locks, repo)
		}
		r.mu.Unlock()
	}
}
