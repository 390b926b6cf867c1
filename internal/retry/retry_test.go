package retry

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestBackoffWait(t *testing.T) {
	tests := []struct {
		name     string
		b        Backoff
		n        int
		hint     time.Duration
		lo, hi   time.Duration // the wait is within [lo, hi]
		wantBoth bool          // both bounds are reached (a wait without jitter room)
	}{
		{"first retry", Backoff{Min: time.Second, Max: time.Minute}, 0, 0, time.Second, 2 * time.Second, false},
		{"third retry", Backoff{Min: time.Second, Max: time.Minute}, 2, 0, time.Second, 8 * time.Second, false},
		{"capped by Max", Backoff{Min: time.Second, Max: 5 * time.Second}, 10, 0, time.Second, 5 * time.Second, false},
		{"many retries", Backoff{Min: time.Second, Max: 30 * time.Second}, 1000, 0, time.Second, 30 * time.Second, false},
		{"negative retry", Backoff{Min: time.Second, Max: time.Minute}, -3, 0, time.Second, 2 * time.Second, false},
		{"Min over Max", Backoff{Min: time.Hour, Max: time.Minute}, 0, 0, time.Minute, time.Minute, true},
		{"no jitter room", Backoff{Min: time.Second, Max: time.Second}, 4, 0, time.Second, time.Second, true},
		{"zero value", Backoff{}, 3, 0, 0, 0, true},
		{"hint is a floor", Backoff{Min: time.Second, Max: 2 * time.Second}, 0, time.Hour, time.Hour, time.Hour, true},
		{"short hint", Backoff{Min: time.Second, Max: 2 * time.Second}, 0, time.Millisecond, time.Second, 2 * time.Second, false},
		{"hint capped", Backoff{Min: time.Second, Max: 2 * time.Second, MaxWait: 8 * time.Second}, 0, time.Hour, 8 * time.Second, 8 * time.Second, true},
		{"backoff capped", Backoff{Min: time.Hour, Max: time.Hour, MaxWait: 10 * time.Millisecond}, 0, 0, 10 * time.Millisecond, 10 * time.Millisecond, true},
		{"hint bounded", Backoff{}, 0, 1 << 62, MaxDelay, MaxDelay, true},
		{"negative hint", Backoff{Min: time.Second, Max: time.Second}, 0, -time.Hour, time.Second, time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			least, most := time.Duration(1<<63-1), time.Duration(-1<<63)
			for range 2000 {
				d := tt.b.Wait(tt.n, tt.hint)
				if d < tt.lo || d > tt.hi {
					t.Fatalf("%+v.Wait(%d, %v) = %v; want within [%v, %v]", tt.b, tt.n, tt.hint, d, tt.lo, tt.hi)
				}
				least, most = min(least, d), max(most, d)
			}
			if tt.wantBoth && (least != tt.lo || most != tt.hi) {
				t.Errorf("%+v.Wait(%d, %v) ranged over [%v, %v]; want [%v, %v]", tt.b, tt.n, tt.hint, least, most, tt.lo, tt.hi)
			}
		})
	}
}

// TestBackoffJitter: retries are spread, not all at Min nor all at the
// ceiling.
func TestBackoffJitter(t *testing.T) {
	b := Backoff{Min: time.Second, Max: time.Minute}
	seen := map[time.Duration]bool{}
	for range 100 {
		seen[b.Wait(3, 0)] = true
	}
	if len(seen) < 50 {
		t.Errorf("100 waits took %d values; want them spread between %v and %v", len(seen), b.Min, 16*time.Second)
	}
}

func TestSleep(t *testing.T) {
	if err := Sleep(t.Context(), time.Millisecond); err != nil {
		t.Errorf("Sleep(1ms) = %v", err)
	}
	if err := Sleep(t.Context(), 0); err != nil {
		t.Errorf("Sleep(0) = %v", err)
	}
	stop := errors.New("stopped by the test")
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(stop)
	start := time.Now()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, stop) {
		t.Errorf("Sleep(cancelled, 1h) = %v; want the cause %v", err, stop)
	}
	if err := Sleep(ctx, 0); !errors.Is(err, stop) {
		t.Errorf("Sleep(cancelled, 0) = %v; want the cause %v", err, stop)
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("a cancelled Sleep took %v", d)
	}
}
