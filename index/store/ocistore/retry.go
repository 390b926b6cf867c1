package ocistore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/airvsx/airvsx/internal/retry"
)

// retrying is the transport under the store's authentication (go-
// containerregistry's token and basic transports): it makes a request
// again after a network error, a 429 or a 5xx, holds at most cap(sem)
// requests in flight, and checks every redirect a client follows
// against the store's rules (see Store.redirectable).
//
// By hand rather than ggcr's transport.NewRetry (and remote's
// WithRetryBackoff): ggcr's retry ignores Retry-After, whose wait the
// store honours (up to Options.MaxRetryAfter), and paces with its own
// backoff, where the project has one (internal/retry) shared with the
// Open VSX client.
type retrying struct {
	next     http.RoundTripper
	sem      chan struct{}
	retries  int
	backoff  retry.Backoff
	log      *slog.Logger
	redirect func(*http.Request) error
}

// onceKey marks a context whose requests are made once, never again.
type onceKey struct{}

// once returns ctx with its requests made only once.
func once(ctx context.Context) context.Context { return context.WithValue(ctx, onceKey{}, true) }

func (t *retrying) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Response != nil {
		// A client follows a redirect: only where the store may go.
		if err := t.redirect(req); err != nil {
			closeBody(req.Body)
			return nil, err
		}
	}
	ctx := req.Context()
	// A body that cannot be had again (a streamed upload) is sent once;
	// its caller starts over from the rewound content.
	again := ctx.Value(onceKey{}) == nil && (req.Body == nil || req.Body == http.NoBody || req.GetBody != nil)
	for attempt := 0; ; attempt++ {
		resp, hint, err := t.roundTrip(req)
		if hint < 0 || !again || attempt >= t.retries || ctx.Err() != nil {
			return resp, err
		}
		if resp != nil {
			err = fmt.Errorf("%s %s: %s", req.Method, req.URL.Redacted(), resp.Status)
			drain(resp)
		}
		wait := t.backoff.Wait(attempt, hint)
		t.log.Debug("retrying", "url", req.URL.Redacted(), "attempt", attempt+1, "wait", wait, "err", err)
		if err := retry.Sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("%s %s: %w", req.Method, req.URL.Redacted(), err)
		}
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			req = req.Clone(ctx)
			req.Body = body
		}
	}
}

// roundTrip makes one attempt. hint < 0 means do not retry; hint > 0 is
// what a Retry-After asked for; 0 means no more than the usual backoff.
func (t *retrying) roundTrip(req *http.Request) (*http.Response, time.Duration, error) {
	select {
	case t.sem <- struct{}{}:
	case <-req.Context().Done():
		closeBody(req.Body)
		return nil, -1, context.Cause(req.Context())
	}
	defer func() { <-t.sem }()
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		var ce *contentError
		if errors.As(err, &ce) {
			return nil, -1, err
		}
		return nil, 0, err
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		hint, _ := retry.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		return resp, hint, nil
	}
	return resp, -1, nil
}

// redirectable checks a redirect a client is about to follow (req, made
// from req.Response): only a GET or HEAD, at most 5 in a row, to the
// registry's own host, or to one Options.AlsoDial names over the scheme
// the Location gives, plain HTTP only as Insecure allows it for that host.
func (s *ociStore) redirectable(req *http.Request) error {
	from := req.Response.Request
	n := 0
	for r := req; r.Response != nil; r = r.Response.Request {
		from = r.Response.Request
		n++
	}
	what := fmt.Sprintf("%s %s", from.Method, from.URL.Redacted())
	switch {
	case req.Method != http.MethodGet && req.Method != http.MethodHead:
		return fmt.Errorf("%s: redirected (%s); only a GET or HEAD follows a redirect", what, req.Response.Status)
	case n > 5:
		return fmt.Errorf("%s: more than 5 redirects", what)
	}
	u := req.URL
	if u.Host == s.base.Host {
		return nil // its scheme is the registry's (ggcr's scheme transport)
	}
	if !dialable(s.opts.AlsoDial, hostPort(u)) {
		return fmt.Errorf("%s: Location %s names another host; the store dials only %s (name that host with --also-dial)",
			what, u.Redacted(), s.base.Host)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && s.opts.Insecure && (s.opts.AllowInsecureRemote || localHost(u.Host)):
	default:
		return fmt.Errorf("%s: Location %s: plain HTTP to another host needs --insecure (and --allow-insecure-remote unless it is a loopback or private address)",
			what, u.Redacted())
	}
	return nil
}

// drain reads what is left of a response body (a little) and closes it,
// so its connection can be reused.
func drain(resp *http.Response) {
	io.CopyN(io.Discard, resp.Body, 4096)
	resp.Body.Close()
}

// hostPort is u's host with its port (the scheme's default when none).
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "443"
	if u.Scheme == "http" {
		port = "80"
	}
	return net.JoinHostPort(u.Hostname(), port)
}
