package openvsx

// Egress: what leaves the process. Every request goes through the client's
// transport, which enforces where it may go, spaces it by the rate limit,
// stamps the User-Agent and records it in the egress log.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// maxRedirects is how many redirects one request may follow.
const maxRedirects = 5

// EgressRecord is one HTTP request the client sent. A followed redirect is
// a request of its own, with the same attempt number.
type EgressRecord struct {
	// Time is when the request was sent (UTC).
	Time time.Time `json:"time"`
	// Method is the HTTP method: GET, or HEAD for Locate.
	Method string `json:"method"`
	// URL is the URL requested, without userinfo.
	URL string `json:"url"`
	// Status is the response status; 0 when no response arrived.
	Status int `json:"status"`
	// Bytes is how many body bytes were read.
	Bytes int64 `json:"bytes"`
	// Attempt is 1 for the first try of a call, 2 for its first retry, …
	Attempt int `json:"attempt"`
	// Error is why the request or the reading of its body failed, if it did.
	Error string `json:"error,omitempty"`
}

// egressLog holds every request sent, in order.
type egressLog struct {
	mu   sync.Mutex
	recs []EgressRecord
}

func (l *egressLog) add(r EgressRecord) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recs = append(l.recs, r)
	return len(l.recs) - 1
}

func (l *egressLog) update(i int, f func(*EgressRecord)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f(&l.recs[i])
}

func (l *egressLog) snapshot() []EgressRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.recs)
}

// Egress returns every request the client has sent so far, in order: one
// record per request (each retry and each redirect hop is one). It is safe
// to call while requests are in flight; their byte counts may still grow.
func (c *Client) Egress() []EgressRecord { return c.egress.snapshot() }

// callKind says what a call fetches; it decides the redirect policy and
// the timeouts.
type callKind int

const (
	// kindAPI is a JSON or XML request: no redirect off the upstream, total
	// timeout.
	kindAPI callKind = iota
	// kindFile is a small file: redirects to storage allowed, total timeout.
	kindFile
	// kindDownload is a package: redirects to storage allowed, stall
	// timeout only.
	kindDownload
	// kindLocate is a HEAD of a file URL whose redirect is returned, not
	// followed (Locate): total timeout.
	kindLocate
)

// call is the state of one client call, shared by its attempts and hops
// through the request context.
type call struct {
	kind callKind
	url  string // the URL of the call (before redirects)
	// wait is the next retry's wait and lastErr the last attempt's error;
	// only retryablehttp's loop (CheckRetry, Backoff, PrepareRetry) uses
	// them, one after the other.
	wait    time.Duration
	lastErr error
	mu      sync.Mutex
	attempt int // set before each attempt (retryablehttp's RequestLogHook)
}

func (cl *call) setAttempt(n int) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	cl.attempt = n
}

func (cl *call) currentAttempt() int {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.attempt
}

type callKey struct{}

func withCall(ctx context.Context, cl *call) context.Context {
	return context.WithValue(ctx, callKey{}, cl)
}

func callFrom(ctx context.Context) *call {
	cl, _ := ctx.Value(callKey{}).(*call)
	return cl
}

// transport is the client's RoundTripper around the base transport.
type transport struct {
	c    *Client
	base http.RoundTripper
}

// RoundTrip sends one request: only to the upstream (or, for a redirect
// hop, where checkRedirect allowed), after the rate limiter (requests to
// the upstream only), with the User-Agent, recorded in the egress log.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	c := t.c
	cl := callFrom(req.Context())
	if cl == nil {
		return nil, fmt.Errorf("GET %s: request made outside a client call: %w", redact(req.URL), ErrRefused)
	}
	if req.Response == nil && !c.mayDial(req.URL) {
		// Only redirect hops (req.Response set) may leave the upstream,
		// and requests to a storage origin it redirected to (Locate).
		return nil, fmt.Errorf("GET %s: not on upstream %s: %w", redact(req.URL), c.baseURL, ErrRefused)
	}
	if err := c.waitTurn(req.Context(), req.URL); err != nil {
		return nil, err
	}
	// Every hop gets HeaderTimeout (or Timeout, if less) for its response
	// headers; a download's body then gets Timeout between bytes (an API
	// call's body is bounded by the client's total Timeout).
	idle := time.Duration(0)
	if cl.kind == kindDownload {
		idle = c.stall
	}
	wd := newWatchdog(req.Context(), redact(req.URL), min(c.headerTimeout, c.stall), idle)
	out := req.Clone(wd.ctx)
	out.Header.Set("User-Agent", c.userAgent)
	i := c.egress.add(EgressRecord{
		Time:    c.now().UTC(),
		Method:  req.Method,
		URL:     redact(req.URL),
		Attempt: cl.currentAttempt(),
	})
	resp, err := t.base.RoundTrip(out)
	if err != nil {
		err = wd.explain(err)
		wd.stop()
		c.egress.update(i, func(r *EgressRecord) { r.Error = err.Error() })
		c.log.Debug("request failed", "url", redact(req.URL), "attempt", cl.currentAttempt(), "err", err)
		return nil, err
	}
	wd.headersArrived()
	c.egress.update(i, func(r *EgressRecord) { r.Status = resp.StatusCode })
	c.log.Debug("request", "url", redact(req.URL), "status", resp.StatusCode, "attempt", cl.currentAttempt())
	if resp.StatusCode == http.StatusTooManyRequests {
		if d, ok := retryHint(resp.Header, c.now()); ok {
			c.pause(min(d, c.maxHint))
		}
	}
	resp.Body = &countingBody{rc: resp.Body, log: &c.egress, rec: i, wd: wd}
	return resp, nil
}

// countingBody counts the bytes read into the egress record, keeps the
// stall watchdog fed and records read errors.
type countingBody struct {
	rc  io.ReadCloser
	log *egressLog
	rec int
	wd  *watchdog
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.log.update(b.rec, func(r *EgressRecord) { r.Bytes += int64(n) })
		b.wd.kick()
	}
	if err != nil && err != io.EOF {
		err = b.wd.explain(err)
		b.log.update(b.rec, func(r *EgressRecord) {
			if r.Error == "" {
				r.Error = err.Error()
			}
		})
	}
	return n, err
}

func (b *countingBody) Close() error {
	b.wd.stop()
	return b.rc.Close()
}

// errStalled is wrapped by the error of a hop abandoned because the
// upstream went quiet: no response headers within HeaderTimeout, or no
// body bytes for Timeout.
var errStalled = errors.New("stalled")

// watchdog cancels a hop whose response headers do not arrive within its
// header bound, or whose body then sends no byte for its idle bound (0:
// none). The cause of the cancel says which bound and which URL.
type watchdog struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	url    string
	idle   time.Duration

	mu    sync.Mutex
	timer *time.Timer // nil when no bound runs
}

func newWatchdog(parent context.Context, url string, header, idle time.Duration) *watchdog {
	ctx, cancel := context.WithCancelCause(parent)
	w := &watchdog{ctx: ctx, cancel: cancel, url: url, idle: idle}
	if header > 0 {
		w.timer = time.AfterFunc(header, func() {
			cancel(fmt.Errorf("no response headers from %s within %s: %w", url, header, errStalled))
		})
	}
	return w
}

// headersArrived ends the header bound and starts the idle bound.
func (w *watchdog) headersArrived() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	if w.idle > 0 {
		w.timer = time.AfterFunc(w.idle, func() {
			w.cancel(fmt.Errorf("no body bytes from %s for %s: %w", w.url, w.idle, errStalled))
		})
	}
}

// kick restarts the idle bound: body bytes arrived.
func (w *watchdog) kick() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Reset(w.idle)
	}
}

func (w *watchdog) stop() {
	w.mu.Lock()
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	w.cancel(context.Canceled)
}

// explain turns the error of a hop the watchdog cancelled into the
// bound's error (wrapping errStalled).
func (w *watchdog) explain(err error) error {
	if cause := context.Cause(w.ctx); errors.Is(cause, errStalled) {
		return cause
	}
	return err
}

// checkRedirect is the redirect policy. API calls may only be redirected
// within the upstream; file calls may follow the upstream to its storage
// host (RedirectHosts, when set, lists the hosts allowed). Never more than
// maxRedirects hops, never userinfo, never from https to http: a redirect
// to plain http is followed only when the original request was plain http
// to the same host or to a loopback address.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	from := via[len(via)-1].URL
	refuse := func(why string) error {
		return fmt.Errorf("refusing redirect from %s to %s: %s: %w", redact(from), redact(req.URL), why, ErrRefused)
	}
	if len(via) > maxRedirects {
		return refuse(fmt.Sprintf("more than %d redirects", maxRedirects))
	}
	if req.URL.User != nil {
		return refuse("userinfo in URL")
	}
	cl := callFrom(req.Context())
	if cl == nil || cl.kind == kindAPI || cl.kind == kindLocate {
		if originOf(req.URL) != c.origin {
			return refuse("API requests stay on the upstream")
		}
		return nil
	}
	return c.fileRedirectAllowed(via[0].URL, from, req.URL)
}

// originOf is scheme://host:port in lower case, with the default port
// spelled out, so equal origins compare equal.
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// isLoopback reports whether host is localhost or a loopback address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redact returns u as a string without userinfo.
func redact(u *url.URL) string {
	if u.User == nil {
		return u.String()
	}
	v := *u
	v.User = nil
	return v.String()
}
