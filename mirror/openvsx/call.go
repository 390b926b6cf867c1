package openvsx

// One client call: its attempts through retryablehttp, the retry policy,
// each attempt's body read and checked inside the retry loop, and the error
// the call ends with.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/airvsx/airvsx/internal/copybuf"
)

// request describes one client call.
type request struct {
	url    string
	kind   callKind
	method string // "" is GET
	max    int64  // most body bytes accepted
	accept string // Accept header, if any
	etag   bool   // conditional GET served from the ETag cache
	// open returns the writer for one attempt's body; nil collects the body
	// and returns it.
	open func() (io.Writer, error)
	// location receives the redirect target of a kindLocate call ("" for
	// a 2xx answer).
	location *string
}

// permanentError marks an error that retrying cannot fix.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

func permanent(err error) error { return &permanentError{err} }

// checkRetry returns the retry policy of one call. It is retryablehttp's
// (retry 429 and 5xx except 501; not scheme, header or redirect-limit
// errors) with these changes: refused and permanent errors end the call;
// a request that got no answer is retried only when its cause may heal
// (a reset, a timeout, a stall, a connection closed early), not when
// nothing listens, the host does not exist or TLS does not verify
// (classify). The error of each attempt is kept in cl for the retry log.
func checkRetry(cl *call) retryablehttp.CheckRetry {
	return func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		cl.lastErr = err
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		var p *permanentError
		if err != nil && (errors.As(err, &p) || errors.Is(err, ErrRefused)) {
			return false, err
		}
		if err != nil && resp == nil {
			ce := newConnError(cl.url, err)
			cl.lastErr = ce
			return !ce.Permanent(), ce
		}
		return retryablehttp.ErrorPropagatedRetryPolicy(ctx, resp, err)
	}
}

// errWriter remembers the error of the writer, so a failed write is told
// from a failed read.
type errWriter struct {
	w   io.Writer
	err error
}

func (w *errWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil && w.err == nil {
		w.err = err
	}
	return n, err
}

// do makes one call: attempts through retryablehttp, each attempt's body
// read (and checked against Content-Length and r.max) inside the retry
// loop, so a truncated body is retried like a failed request.
func (c *Client) do(ctx context.Context, r request) ([]byte, int64, error) {
	if r.max <= 0 {
		return nil, 0, fmt.Errorf("GET %s: size limit %d must be positive", r.url, r.max)
	}
	limit := r.max
	if limit < math.MaxInt64 {
		limit++
	}
	cl := &call{kind: r.kind, url: r.url}
	ctx = withCall(ctx, cl)
	method := r.method
	if method == "" {
		method = http.MethodGet
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, method, r.url, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("GET %s: %w", r.url, err)
	}
	if r.accept != "" {
		req.Header.Set("Accept", r.accept)
	}
	var cached *cacheEntry
	if r.etag {
		if e := c.cache.get(r.url); e != nil {
			cached = e
			req.Header.Set("If-None-Match", e.etag)
		}
	}
	b := &bodyRead{c: c, r: r, cached: cached, limit: limit,
		tooLarge: permanent(fmt.Errorf("GET %s: body exceeds %d bytes: %w", r.url, r.max, ErrTooLarge))}
	req.SetResponseHandler(b.handle)
	resp, err := c.retrier(ctx, cl, r).Do(req)
	if err != nil {
		return nil, 0, err
	}
	resp.Body.Close()
	if r.open != nil {
		return nil, b.n, nil
	}
	return b.buf.Bytes(), b.n, nil
}

// bodyRead reads one attempt's response body for do: into buf, or into
// the writer r.open returns, checked against Content-Length and r.max.
type bodyRead struct {
	c        *Client
	r        request
	cached   *cacheEntry // the cached answer the request's ETag names
	limit    int64       // r.max + 1: a longer body is too large
	tooLarge error
	buf      bytes.Buffer
	n        int64 // the body's length, once read
}

// handle reads resp's body; an error that must not be retried is marked
// permanent.
func (b *bodyRead) handle(resp *http.Response) error {
	r := b.r
	defer resp.Body.Close()
	if r.kind == kindLocate {
		return b.locate(resp)
	}
	if resp.StatusCode == http.StatusNotModified && b.cached != nil {
		b.buf.Reset()
		b.buf.Write(b.cached.body)
		b.n = int64(b.buf.Len())
		return nil
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return permanent(newHTTPError(r.url, resp))
	}
	if resp.ContentLength > r.max {
		return b.tooLarge
	}
	var w io.Writer = &b.buf
	b.buf.Reset()
	if r.open != nil {
		ow, err := r.open()
		if err != nil {
			return permanent(fmt.Errorf("GET %s: open destination: %w", r.url, err))
		}
		w = ow
	}
	ew := &errWriter{w: w}
	var got int64
	var err error
	if r.kind == kindDownload {
		// Large reads and writes: a package is megabytes, written to a
		// file and hashed as it comes.
		got, err = copybuf.Copy(ew, io.LimitReader(resp.Body, b.limit))
	} else {
		got, err = io.Copy(ew, io.LimitReader(resp.Body, b.limit))
	}
	switch {
	case ew.err != nil:
		return permanent(fmt.Errorf("GET %s: write: %w", r.url, ew.err))
	case err != nil:
		return fmt.Errorf("GET %s: read body: %w", r.url, err)
	case got > r.max:
		return b.tooLarge
	case resp.ContentLength >= 0 && got != resp.ContentLength:
		return fmt.Errorf("GET %s: got %d of %d bytes: %w", r.url, got, resp.ContentLength, io.ErrUnexpectedEOF)
	}
	b.n = got
	if et := resp.Header.Get("ETag"); r.etag && et != "" {
		b.c.cache.put(r.url, et, b.buf.Bytes())
	}
	return nil
}

// locate reads the answer of a kindLocate call: the redirect's target,
// checked (Client.located), or "" for a 2xx, or for a 405 or 501 (an
// upstream without HEAD).
func (b *bodyRead) locate(resp *http.Response) error {
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode <= 299,
		resp.StatusCode == http.StatusMethodNotAllowed, resp.StatusCode == http.StatusNotImplemented:
		*b.r.location = ""
		return nil
	case resp.StatusCode >= 300 && resp.StatusCode <= 399 && resp.StatusCode != http.StatusNotModified:
		loc, err := b.c.located(b.r.url, resp)
		if err != nil {
			return permanent(err)
		}
		*b.r.location = loc
		return nil
	}
	return permanent(newHTTPError(b.r.url, resp))
}

// retrier is the retryablehttp client of one call: the API's or the
// downloads' HTTP client, with the call's retry decisions and waits.
func (c *Client) retrier(ctx context.Context, cl *call, r request) *retryablehttp.Client {
	hc := c.api
	switch r.kind {
	case kindDownload:
		hc = c.dl
	case kindLocate:
		hc = c.loc
	}
	return &retryablehttp.Client{
		HTTPClient: hc,
		RetryMax:   c.maxRetries,
		CheckRetry: checkRetry(cl),
		// retryablehttp sleeps on its own timer; the wait is computed here
		// and slept in PrepareRetry, where the (injectable) sleeper can see
		// the context.
		Backoff: func(_, _ time.Duration, i int, resp *http.Response) time.Duration {
			cl.wait = c.retryWait(i, resp, cl.lastErr, r.url)
			return 0
		},
		PrepareRetry: func(*http.Request) error { return c.sleep(ctx, cl.wait) },
		RequestLogHook: func(_ retryablehttp.Logger, _ *http.Request, i int) {
			cl.setAttempt(i + 1)
		},
		ErrorHandler: func(resp *http.Response, err error, tries int) (*http.Response, error) {
			return nil, c.finalError(ctx, r.url, resp, err, tries)
		},
	}
}

// finalError is the error a call returns once retryablehttp gives up.
func (c *Client) finalError(ctx context.Context, rawURL string, resp *http.Response, err error, tries int) error {
	if ctx.Err() != nil {
		return fmt.Errorf("GET %s: %w", rawURL, context.Cause(ctx))
	}
	var p *permanentError
	if errors.As(err, &p) {
		return p.err
	}
	if errors.Is(err, ErrRefused) {
		return err
	}
	var ce *ConnError
	if errors.As(err, &ce) {
		ce.Attempts = tries
		return ce
	}
	if resp != nil && (resp.StatusCode < 200 || resp.StatusCode > 299) {
		defer resp.Body.Close()
		return newHTTPError(rawURL, resp)
	}
	if err == nil {
		return fmt.Errorf("GET %s: giving up after %d attempts", rawURL, tries)
	}
	return fmt.Errorf("GET %s: giving up after %d attempts: %w", rawURL, tries, err)
}
