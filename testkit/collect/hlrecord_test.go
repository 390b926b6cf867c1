package collect

import (
	"slices"
	"sync"
	"testing"
)

// TestList: what goroutines add concurrently is all there, and All
// returns a copy that later adds do not change.
func TestList(t *testing.T) {
	var l List[int]
	if l.All() != nil {
		t.Fatalf("empty list: %v", l.All())
	}
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Go(func() { l.Add(i) })
	}
	wg.Wait()
	got := l.All()
	slices.Sort(got)
	if len(got) != 100 || got[0] != 0 || got[99] != 99 {
		t.Fatalf("All after 100 adds: %v", got)
	}
	before := l.All()
	l.Add(100)
	if len(before) != 100 || len(l.All()) != 101 {
		t.Errorf("All's copy changed by a later Add: %d, list %d", len(before), len(l.All()))
	}
}
