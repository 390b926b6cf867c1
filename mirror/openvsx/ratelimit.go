package openvsx

// Pacing: the request rate limit, the pause a 429 imposes on every request,
// and the wait before a retry.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/airvsx/airvsx/internal/retry"
)

// epochThreshold tells an X-RateLimit-Reset that is a Unix time (GitHub
// style) from one that counts seconds (Open VSX's Bucket4j filter): no
// reset is more than 30 years away.
const epochThreshold = 1_000_000_000

// waitTurn blocks until the client may send a request to u: past any
// pause a 429 imposed, then, for a request to the upstream itself, one
// token of the rate limiter. Requests to the storage the upstream sends
// its files to are not paced: Open VSX limits its API paths (/api/,
// /vscode/), not its storage.
func (c *Client) waitTurn(ctx context.Context, u *url.URL) error {
	c.mu.Lock()
	until := c.pauseUntil
	c.mu.Unlock()
	if d := until.Sub(c.now()); d > 0 {
		if err := c.sleep(ctx, d); err != nil {
			return err
		}
	}
	if originOf(u) != c.origin {
		return nil
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
// for a retried status): retry.Backoff between RetryWaitMin and
// RetryWaitMax, or longer if a 429 or 5xx carries a hint (Retry-After,
// X-Rate-Limit-Retry-After-Seconds, X-RateLimit-Reset), which is capped at
// 4·RetryWaitMax. It logs the retry with the host and why: the status, the
// error, or both.
func (c *Client) retryWait(n int, resp *http.Response, err error, rawURL string) time.Duration {
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
	var hint time.Duration
	if resp != nil {
		status := resp.StatusCode
		attrs = append(attrs, "status", status)
		if status == http.StatusTooManyRequests || status >= 500 {
			if h, ok := retryHint(resp.Header, c.now()); ok {
				if h > c.maxHint {
					c.log.Warn("upstream asks to wait longer than allowed; capping the wait",
						"url", rawURL, "status", status, "asked", h, "wait", c.maxHint)
				}
				hint = h
			}
		}
	}
	wait := retry.Backoff{Min: c.waitMin, Max: c.waitMax, MaxWait: c.maxHint}.Wait(n, hint)
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
// be a Unix time is read as one). Every delay is at most retry.MaxDelay.
func retryHint(h http.Header, now time.Time) (time.Duration, bool) {
	if d, ok := retry.ParseRetryAfter(h.Get("Retry-After"), now); ok {
		return d, true
	}
	if d, ok := retry.ParseSeconds(strings.TrimSpace(h.Get("X-Rate-Limit-Retry-After-Seconds"))); ok {
		return d, true
	}
	if v := strings.TrimSpace(h.Get("X-RateLimit-Reset")); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= epochThreshold {
			return min(max(time.Unix(n, 0).Sub(now), 0), retry.MaxDelay), true
		}
		if d, ok := retry.ParseSeconds(v); ok {
			return d, true
		}
	}
	return 0, false
}
