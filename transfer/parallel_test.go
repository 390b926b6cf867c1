package transfer

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// TestParallel: every index is done once, on no more goroutines than
// asked; the first error is returned and stops the rest; a cancelled
// context is an error.
func TestParallel(t *testing.T) {
	boom := errors.New("boom")
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tc := range []struct {
		name      string
		ctx       context.Context
		n         int
		failAt    int // -1: none
		want      error
		wantAllOf bool // every index done exactly once
	}{
		{"none", t.Context(), 0, -1, nil, true},
		{"all", t.Context(), 100, -1, nil, true},
		{"error", t.Context(), 1000, 3, boom, false},
		{"cancelled", cancelled, 10, -1, context.Canceled, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const workers = 4
			var running, peak, calls atomic.Int64
			done := make([]atomic.Int64, tc.n)
			err := parallel(tc.ctx, tc.n, workers, func(ctx context.Context, i int) error {
				calls.Add(1)
				r := running.Add(1)
				defer running.Add(-1)
				for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
				}
				done[i].Add(1)
				if i == tc.failAt {
					return boom
				}
				return nil
			})
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("parallel = %v, want %v", err, tc.want)
			}
			if p := peak.Load(); p > workers {
				t.Errorf("%d calls ran at once, want at most %d", p, workers)
			}
			for i := range done {
				if n := done[i].Load(); n > 1 || (tc.wantAllOf && n != 1) {
					t.Errorf("index %d done %d times", i, n)
				}
			}
			if tc.failAt >= 0 && calls.Load() == int64(tc.n) {
				t.Errorf("all %d indexes were done after the error at %d; want the rest stopped", tc.n, tc.failAt)
			}
		})
	}
}
