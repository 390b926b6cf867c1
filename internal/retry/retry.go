// Package retry is the one retry pacing of airvsx's network clients (the
// Open VSX client in mirror/openvsx and the OCI-registry store): the backoff
// between attempts, the reading of a server's Retry-After, and a sleep
// that ends with its context.
//
// The rules:
//
//   - The wait before retry n (0 for the first) is a random time between
//     Min and min(Max, Min·2^(n+1)) (exponential backoff with full jitter
//     above Min, so clients that failed together do not retry together).
//   - A server's hint (Retry-After) is a floor: the wait is never shorter
//     than what the server asked for.
//   - Every wait, a hint's included, is at most MaxWait.
//   - A Retry-After is delta-seconds (digits only) or an HTTP-date; any
//     other value is no hint. A delay is never more than MaxDelay, so no
//     value can overflow a time.Duration; a date in the past is no wait.
//
// The package only computes and sleeps: it makes no requests (only
// mirror/openvsx and the OCI-registry store may dial out).
package retry

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff is the wait between the attempts of one request. The zero value
// never waits (but for hints).
type Backoff struct {
	// Min is the least wait before any retry. When it is more than Max,
	// Max is used instead.
	Min time.Duration
	// Max caps the backoff (not a hint).
	Max time.Duration
	// MaxWait caps every wait, a server's hint included. 0: no cap but
	// MaxDelay.
	MaxWait time.Duration
}

// Wait returns the wait before retry n (0 for the first retry) when the
// server asked for hint (0: no hint): a random time between Min and
// min(Max, Min·2^(n+1)), at least hint, at most MaxWait.
func (b Backoff) Wait(n int, hint time.Duration) time.Duration {
	lo := max(min(b.Min, b.Max), 0)
	ceil := max(b.Max, 0)
	n = max(n, 0)
	if c := lo << (n + 1); n < 30 && c < ceil && c > 0 {
		ceil = c
	}
	wait := lo
	if ceil > lo {
		wait += rand.N(ceil - lo + 1)
	}
	wait = max(wait, min(hint, MaxDelay))
	if b.MaxWait > 0 {
		wait = min(wait, b.MaxWait)
	}
	return wait
}

// Sleep waits d, or until ctx is done, when it returns the context's cause.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
