package ocistore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/airvsx/airvsx/internal/retry"
)

// request is one registry request, made again from scratch by every
// retry: body (when set) returns its content from the first byte.
type request struct {
	method string
	rpath  string // registry repository, for its credentials; "" for the catalog
	url    *url.URL
	header http.Header
	body   func() (io.Reader, int64, error) // content and its length (-1: unknown)
	// ok are the statuses that end the request; others are errors (a
	// 429 or 5xx is retried first).
	ok []int
	// noRetry makes one attempt only (a streamed body cannot be sent
	// again; its caller retries from a rewound source).
	noRetry bool
}

// ErrUnauthorized is wrapped by the error of a request the registry
// refused for want of credentials (401) or of rights (403).
var ErrUnauthorized = errors.New("the registry refused the credentials")

// statusError is a response the request did not want.
type statusError struct {
	method, url string
	host        string // the registry's, named by the advice on a 401 or 403
	status      int
	body        string
}

func (e *statusError) Error() string {
	msg := fmt.Sprintf("%s %s: %s", e.method, e.url, http.StatusText(e.status))
	if e.status == 0 || http.StatusText(e.status) == "" {
		msg = fmt.Sprintf("%s %s: status %d", e.method, e.url, e.status)
	}
	if hint := authHint(e.status, e.host); hint != "" {
		return msg + ": " + hint
	}
	if e.body != "" {
		msg += ": " + e.body
	}
	return msg
}

// Unwrap returns ErrUnauthorized for a 401 or 403.
func (e *statusError) Unwrap() error {
	if e.status == http.StatusUnauthorized || e.status == http.StatusForbidden {
		return ErrUnauthorized
	}
	return nil
}

// authHint is what a user told a registry refused a request (status 401
// or 403; "" for any other) should do about it.
func authHint(status int, host string) string {
	const where = "the docker configuration ($DOCKER_CONFIG/config.json, else ~/.docker/config.json) and its credential helpers"
	switch status {
	case http.StatusUnauthorized:
		return fmt.Sprintf("registry %s wants credentials and got none it accepts: log in (docker login %s, or oras login) or check the credentials for it in %s", host, host, where)
	case http.StatusForbidden:
		return fmt.Sprintf("registry %s refused these credentials for this repository: check the account's rights there, or log in as another (docker login %s); credentials come from %s", host, host, where)
	}
	return ""
}

// contentError is an error from the content being uploaded: it is not
// retried.
type contentError struct{ err error }

func (e *contentError) Error() string { return e.err.Error() }
func (e *contentError) Unwrap() error { return e.err }

// endpoint returns the URL of path (starting "/v2/") on the registry.
func (s *Store) endpoint(path string, query url.Values) *url.URL {
	u := *s.base
	u.Path = path
	u.RawQuery = query.Encode()
	return &u
}

// do makes r, retrying after network errors, 429 and 5xx responses with
// retry.Backoff (a Retry-After is a floor), and returns the response whose status is
// one of r.ok; the caller closes its body. Any other status is a
// *statusError. At most Options.Concurrency requests run at once.
func (s *Store) do(ctx context.Context, r request) (*http.Response, error) {
	t, err := s.transport(ctx, r.rpath)
	if err != nil {
		return nil, err
	}
	retries := s.opts.Retries
	switch {
	case retries == 0:
		retries = 5
	case retries < 0:
		retries = 0
	}
	backoff := retry.Backoff{Min: s.opts.Backoff, Max: time.Minute, MaxWait: s.opts.MaxRetryAfter}
	if backoff.Min <= 0 {
		backoff.Min = time.Second
	}
	if backoff.MaxWait <= 0 {
		backoff.MaxWait = 2 * time.Minute
	}
	redirects := 0
	for attempt := 0; ; attempt++ {
		resp, hint, err := s.once(ctx, t, r)
		if err == nil && isRedirect(resp.StatusCode) && !slices.Contains(r.ok, resp.StatusCode) {
			// A redirect is followed only by a GET or HEAD, and only to
			// the registry's own host.
			drain(resp)
			if r.method != http.MethodGet && r.method != http.MethodHead {
				return nil, &statusError{method: r.method, url: r.url.Redacted(), status: resp.StatusCode}
			}
			next, lerr := s.location(resp)
			if lerr != nil {
				return nil, lerr
			}
			if redirects++; redirects > 5 {
				return nil, fmt.Errorf("%s %s: more than 5 redirects", r.method, r.url.Redacted())
			}
			r.url = next
			attempt--
			continue
		}
		if err == nil {
			return resp, nil
		}
		var ce *contentError
		if hint < 0 || r.noRetry || attempt >= retries || errors.As(err, &ce) || ctx.Err() != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("%s %s: %w", r.method, r.url.Redacted(), context.Cause(ctx))
			}
			return nil, err
		}
		wait := backoff.Wait(attempt, hint)
		s.log.Debug("retrying", "url", r.url.Redacted(), "attempt", attempt+1, "wait", wait, "err", err)
		if err := retry.Sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("%s %s: %w", r.method, r.url.Redacted(), err)
		}
	}
}

// once makes one attempt. hint < 0 means do not retry; hint > 0 is what a
// Retry-After asked for; 0 means no more than the usual backoff.
func (s *Store) once(ctx context.Context, t http.RoundTripper, r request) (*http.Response, time.Duration, error) {
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, -1, context.Cause(ctx)
	}
	defer func() { <-s.sem }()
	var body io.Reader
	size := int64(0)
	if r.body != nil {
		b, n, err := r.body()
		if err != nil {
			return nil, -1, &contentError{err}
		}
		body, size = b, n
	}
	var sent *closeSignal
	if body != nil && size != 0 {
		// The transport may still read the body after RoundTrip has
		// returned (a response before the whole body was sent); the
		// content is not rewound or reused before it closes the body.
		sent = &closeSignal{r: body, done: make(chan struct{})}
		body = sent
		defer func() { <-sent.done }()
	}
	req, err := http.NewRequestWithContext(ctx, r.method, r.url.String(), body)
	if err != nil {
		if sent != nil {
			sent.Close()
		}
		return nil, -1, err
	}
	if body != nil {
		req.ContentLength = size
	} else if r.body != nil {
		req.Body = http.NoBody
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	resp, err := t.RoundTrip(req)
	if err != nil {
		var ce *contentError
		if errors.As(err, &ce) {
			return nil, -1, ce
		}
		return nil, 0, fmt.Errorf("%s %s: %w", r.method, r.url.Redacted(), err)
	}
	if slices.Contains(r.ok, resp.StatusCode) || isRedirect(resp.StatusCode) && resp.Header.Get("Location") != "" {
		return resp, 0, nil
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	resp.Body.Close()
	se := &statusError{method: r.method, url: r.url.Redacted(), host: s.base.Host, status: resp.StatusCode, body: string(b)}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		hint, _ := retry.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		return nil, hint, se
	}
	return nil, -1, se
}

// closeSignal is a request body that says when the transport has closed
// it (done).
type closeSignal struct {
	r    io.Reader
	once sync.Once
	done chan struct{}
}

func (c *closeSignal) Read(p []byte) (int, error) { return c.r.Read(p) }

func (c *closeSignal) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

// isRedirect reports whether status sends the client elsewhere.
func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// hasStatus reports whether err is a *statusError with one of codes.
func hasStatus(err error, codes ...int) bool {
	var se *statusError
	if !errors.As(err, &se) {
		return false
	}
	for _, c := range codes {
		if se.status == c {
			return true
		}
	}
	return false
}
