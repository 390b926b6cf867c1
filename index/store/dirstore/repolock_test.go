package dirstore

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRepoLocks checks that one repository's holders exclude each other,
// that another repository is not held up by them, and that no entry is
// left once nobody holds or waits for a lock.
func TestRepoLocks(t *testing.T) {
	var (
		r      repoLocks
		inside atomic.Int32
		shared atomic.Bool // two goroutines held a/b at once
		wg     sync.WaitGroup
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				unlock := r.lock("a/b")
				if inside.Add(1) > 1 {
					shared.Store(true)
				}
				inside.Add(-1)
				unlock()
			}
		}()
	}
	unlockA := r.lock("a/b")
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.lock("c/d")() // another repository: not blocked by a/b
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("locking c/d waited for a/b's holder")
	}
	unlockA()
	wg.Wait()
	if shared.Load() {
		t.Error("two goroutines held a/b's lock at once")
	}
	if len(r.locks) != 0 {
		t.Errorf("%d lock entries left, want 0", len(r.locks))
	}
}
