package mirror

// Pacing: the request rate limit, the pause a 429 imposes on every request,
// and the wait before a retry.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// maxHintSeconds bounds the seconds read from a rate-limit header before
// they become a time.Duration, so the conversion cannot overflow.
const maxHintSeconds = 1 << 31

// epochThreshold tells an X-RateLimit-Reset that is a Unix time (GitHub
// style) from one that counts seconds (Open VSX's Bucket4j filter): no
// reset is more than 30 years away.
const epochThreshold = 1_000_000_000

// waitTurn blocks until the client may send a request: past any pause a
// 429 imposed, then one token of the rate limiter.
func (c *Client) waitTurn(ctx context.Context) error {
	c.mu.Lock()
	until := c.pauseUntil
	c.mu.Unlock()
	if d := until.Sub(c.now()); d > 0 {
		if err := c.sleep(ctx, d); err != nil {
			return err
		}
	}
	now := c.now()
	r := c.limiter.ReserveN(now, 1)
	if !r.OK() {
		return fmt.Errorf("rate limiter refuses a request (burst %d)", c.limiter.Burst())
	}
	if d := r.DelayFrom(now); d > 0 {
		if err := c.sleep(ctx, d); err != nil {
			r.CancelAt(c.now())
			return err
		}
	}
	return nil
}

// pause holds every request of the client for d from now (a 429 applies to
// the whole client, not just the request that got it).
func (c *Client) pause(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.now().Add(d); t.After(c.pauseUntil) {
		c.pauseUntil = t
	}
}

// retryWait is how long to wait before retry n (0 for the first retry)
// after resp (nil when no answer arrived) and err (the attempt's error, nil
// for a retried status): a random time between RetryWaitMin and
// min(RetryWaitMax, RetryWaitMin·2^(n+1)), or longer if a 429 or 5xx
// carries a hint (Retry-After, X-Rate-Limit-Retry-After-Seconds,
// X-RateLimit-Reset), which is capped at 4·RetryWaitMax. It logs the retry
// with the host and why: the status, the error, or both.
func (c *Client) retryWait(n int, resp *http.Response, err error, rawURL string) time.Duration {
	ceil := c.waitMax
	if n < 30 && c.waitMin<<(n+1) < ceil && c.waitMin<<(n+1) > 0 {
		ceil = c.waitMin << (n + 1)
	}
	wait := c.waitMin
	if ceil > c.waitMin {
		wait += rand.N(ceil - c.waitMin + 1)
	}
	host, cause := hostOf(rawURL), ""
	var ce *ConnError
	switch {
	case errors.As(err, &ce):
		host, cause = ce.Host, ce.Cause
	case err != nil:
		cause = err.Error()
	case resp == nil:
		cause = "no answer"
	}
	attrs := []any{"url", rawURL, "host", host}
	if resp != nil {
		status := resp.StatusCode
		attrs = append(attrs, "status", status)
		if status == http.StatusTooManyRequests || status >= 500 {
			if hint, ok := retryHint(resp.Header, c.now()); ok {
				if hint > c.maxHint {
					c.log.Warn("upstream asks to wait longer than allowed; capping the wait",
						"url", rawURL, "status", status, "asked", hint, "wait", c.maxHint)
					hint = c.maxHint
				}
				wait = max(wait, hint)
			}
		}
	}
	if cause != "" {
		attrs = append(attrs, "cause", cause)
	}
	attrs = append(attrs, "retry", n+1, "wait", wait)
	c.log.Info("retrying", attrs...)
	return wait
}

// hostOf is the host[:port] of rawURL, or rawURL when it does not parse.
func hostOf(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil && u.Host != "" {
		return u.Host
	}
	return rawURL
}

// retryHint reads how long the upstream asks the client to wait, from (in
// this order) Retry-After (seconds or an HTTP date), the older nginx
// limiter's X-Rate-Limit-Retry-After-Seconds, and X-RateLimit-Reset
// (Open VSX sends seconds until the bucket is full; a value that can only
// be a Unix time is read as one).
func retryHint(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			return seconds(n), true
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(t.Sub(now), 0), true
		}
	}
	if v := strings.TrimSpace(h.Get("X-Rate-Limit-Retry-After-Seconds")); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			return seconds(n), true
		}
	}
	if v := strings.TrimSpace(h.Get("X-RateLimit-Reset")); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			if n >= epochThreshold {
				return max(time.Unix(n, 0).Sub(now), 0), true
			}
			return seconds(n), true
		}
	}
	return 0, false
}

func seconds(n int64) time.Duration {
	return time.Duration(min(n, maxHintSeconds)) * time.Second
}

// sleepCtx waits d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
