// Package collect holds List, the record of what a callback or a handler
// saw: an append-only list safe for concurrent use, whose readers get a
// copy. Tests and fakes use it where they collect from other goroutines.
package collect

import "sync"

// List is an append-only list of T safe for concurrent use. The zero
// value is an empty list; a List must not be copied after first use.
type List[T any] struct {
	mu    sync.Mutex
	items []T
}

// Add appends x.
func (l *List[T]) Add(x T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = append(l.items, x)
}

// All returns a copy of what was added, in order (nil when nothing was).
func (l *List[T]) All() []T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]T(nil), l.items...)
}
