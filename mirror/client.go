package mirror

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/hashicorp/go-retryablehttp"
	"golang.org/x/time/rate"
)

// Defaults of ClientOptions.
const (
	// DefaultUserAgent is ClientOptions.UserAgent's default.
	DefaultUserAgent = "airvsx (+offline mirror)"
	// DefaultRate is ClientOptions.Rate's default, in requests per second.
	DefaultRate = 2.0
	// DefaultBurst is ClientOptions.Burst's default.
	DefaultBurst = 1
	// DefaultMaxRetries is ClientOptions.MaxRetries's default.
	DefaultMaxRetries = 5
	// DefaultRetryWaitMin is ClientOptions.RetryWaitMin's default.
	DefaultRetryWaitMin = time.Second
	// DefaultRetryWaitMax is ClientOptions.RetryWaitMax's default.
	DefaultRetryWaitMax = 30 * time.Second
	// DefaultTimeout is ClientOptions.Timeout's default.
	DefaultTimeout = 60 * time.Second
)

// ClientOptions configures a Client. Only BaseURL is required.
type ClientOptions struct {
	// BaseURL is the upstream registry, e.g. https://open-vsx.org: an
	// absolute http or https URL without userinfo, query or fragment (a
	// path prefix is kept). Required: there is no implicit upstream.
	BaseURL string
	// UserAgent is sent on every request. Default DefaultUserAgent.
	UserAgent string
	// Rate is the most requests per second the client sends, across all
	// its calls and their retries and redirect hops. Default 2 (Open VSX's
	// free tier allows under 3).
	Rate float64
	// Burst is how many requests may go at once before Rate applies.
	// Default 1.
	Burst int
	// MaxRetries is how many times a request is retried after a 429, a 5xx,
	// a connection error, a truncated body or a stalled download. Default 5;
	// negative means no retries.
	MaxRetries int
	// RetryWaitMin and RetryWaitMax bound the exponential backoff with
	// jitter between retries. Defaults 1s and 30s. A wait the upstream asks
	// for (Retry-After, X-RateLimit-Reset) is honoured up to 4·RetryWaitMax.
	RetryWaitMin, RetryWaitMax time.Duration
	// CAFile is a PEM bundle of extra CA certificates trusted besides the
	// system pool (a site's TLS-inspecting proxy). Default none. Only for
	// the client NewClient builds (HTTPClient nil).
	CAFile string
	// Timeout bounds each API request and small-file fetch, body included.
	// Downloads have no total timeout; they are abandoned (and retried)
	// when no byte arrives for Timeout. Default 60s.
	Timeout time.Duration
	// RedirectHosts, when set, lists the only hosts (besides the
	// upstream's) a file URL may redirect to. Default: any host, as Open
	// VSX moves its storage host. API requests never leave the upstream.
	RedirectHosts []string
	// Logger receives retries (info), capped waits (warn) and every
	// request (debug). Default nil: discard.
	Logger *slog.Logger
	// HTTPClient is the base client whose Transport sends the requests
	// (tests). Its Timeout and CheckRedirect are replaced. Default nil: a
	// transport that honours HTTPS_PROXY, HTTP_PROXY and NO_PROXY
	// (http.ProxyFromEnvironment) and trusts CAFile.
	HTTPClient *http.Client

	// Test hooks. sleep waits (default: a timer honouring ctx), now tells
	// the time for the rate limiter and the egress log (default
	// time.Now), proxy replaces http.ProxyFromEnvironment.
	sleep func(ctx context.Context, d time.Duration) error
	now   func() time.Time
	proxy func(*http.Request) (*url.URL, error)
}

// Client talks to one upstream Open VSX registry. Every request is rate
// limited, retried with backoff, sent only to the upstream (or to the
// storage host a file URL redirects to), and logged (Egress). A Client is
// safe for concurrent use.
type Client struct {
	baseURL       string // without trailing slash
	origin        string
	userAgent     string
	maxRetries    int
	waitMin       time.Duration
	waitMax       time.Duration
	maxHint       time.Duration
	stall         time.Duration
	redirectHosts []string
	log           *slog.Logger
	api, dl       *http.Client
	limiter       *rate.Limiter
	sleep         func(ctx context.Context, d time.Duration) error
	now           func() time.Time

	mu         sync.Mutex
	pauseUntil time.Time

	egress egressLog
	cache  etagCache
}

// Errors callers branch on.
var (
	// ErrNotFound is matched (errors.Is) by the *HTTPError of a 404.
	ErrNotFound = errors.New("not found")
	// ErrTooLarge is returned when a body exceeds the size allowed.
	ErrTooLarge = errors.New("response too large")
	// ErrRefused is returned for a request the client will not make: a URL
	// off the upstream, a redirect it does not follow.
	ErrRefused = errors.New("request refused")
)

// HTTPError is an upstream answer with a non-2xx status, after retries.
type HTTPError struct {
	// URL is the URL requested.
	URL string
	// Status is the HTTP status code.
	Status int
	// Body is the start of the response body (at most 512 bytes), with
	// control characters and runs of white space replaced by one space.
	Body string
}

// Error returns "GET url: 404 Not Found: body".
func (e *HTTPError) Error() string {
	s := fmt.Sprintf("GET %s: %d %s", e.URL, e.Status, http.StatusText(e.Status))
	if e.Body != "" {
		s += ": " + e.Body
	}
	return s
}

// Is makes errors.Is(err, ErrNotFound) true for a 404.
func (e *HTTPError) Is(target error) bool {
	return target == ErrNotFound && e.Status == http.StatusNotFound
}

// maxErrorBody is how much of an error body HTTPError keeps.
const maxErrorBody = 512

func newHTTPError(rawURL string, resp *http.Response) *HTTPError {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return &HTTPError{URL: rawURL, Status: resp.StatusCode, Body: sanitize(b)}
}

// sanitize makes untrusted bytes safe to print on one line.
func sanitize(b []byte) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || !unicode.IsPrint(r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// NewClient returns a client for opts.BaseURL with opts' defaults filled
// in. It fails on a missing or malformed BaseURL, negative settings, or a
// CAFile without certificates.
func NewClient(opts ClientOptions) (*Client, error) {
	if opts.BaseURL == "" {
		return nil, errors.New("upstream: no base URL (sync needs an explicit upstream)")
	}
	u, err := url.Parse(opts.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("upstream %q: %w", opts.BaseURL, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("upstream %q: want an http or https URL", opts.BaseURL)
	case u.Host == "" || u.Opaque != "":
		return nil, fmt.Errorf("upstream %q: want an absolute URL with a host", opts.BaseURL)
	case u.User != nil:
		return nil, fmt.Errorf("upstream %q: userinfo is not allowed", u.Redacted())
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return nil, fmt.Errorf("upstream %q: query and fragment are not allowed", opts.BaseURL)
	}
	if opts.Rate < 0 || opts.Burst < 0 || opts.RetryWaitMin < 0 || opts.RetryWaitMax < 0 || opts.Timeout < 0 {
		return nil, errors.New("client options: Rate, Burst, RetryWaitMin, RetryWaitMax and Timeout must not be negative")
	}
	c := &Client{
		baseURL:    strings.TrimSuffix(u.String(), "/"),
		origin:     originOf(u),
		userAgent:  cmpOr(opts.UserAgent, DefaultUserAgent),
		maxRetries: opts.MaxRetries,
		waitMin:    cmpOr(opts.RetryWaitMin, DefaultRetryWaitMin),
		waitMax:    cmpOr(opts.RetryWaitMax, DefaultRetryWaitMax),
		stall:      cmpOr(opts.Timeout, DefaultTimeout),
		log:        opts.Logger,
		sleep:      opts.sleep,
		now:        opts.now,
	}
	switch {
	case opts.MaxRetries == 0:
		c.maxRetries = DefaultMaxRetries
	case opts.MaxRetries < 0:
		c.maxRetries = 0
	}
	if c.waitMin > c.waitMax {
		return nil, fmt.Errorf("client options: RetryWaitMin %s is more than RetryWaitMax %s", c.waitMin, c.waitMax)
	}
	c.maxHint = 4 * c.waitMax
	for _, h := range opts.RedirectHosts {
		c.redirectHosts = append(c.redirectHosts, strings.ToLower(h))
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.sleep == nil {
		c.sleep = sleepCtx
	}
	if c.now == nil {
		c.now = time.Now
	}
	c.limiter = rate.NewLimiter(rate.Limit(cmpOr(opts.Rate, DefaultRate)), cmpOr(opts.Burst, DefaultBurst))

	var base http.RoundTripper
	if opts.HTTPClient != nil {
		if opts.CAFile != "" {
			return nil, errors.New("client options: CAFile applies only without HTTPClient")
		}
		base = opts.HTTPClient.Transport
		if base == nil {
			base = http.DefaultTransport
		}
	} else {
		t, err := newTransport(opts.CAFile, opts.proxy)
		if err != nil {
			return nil, err
		}
		base = t
	}
	rt := &transport{c: c, base: base}
	var jar http.CookieJar
	if opts.HTTPClient != nil {
		jar = opts.HTTPClient.Jar
	}
	c.api = &http.Client{Transport: rt, CheckRedirect: c.checkRedirect, Jar: jar, Timeout: c.stall}
	c.dl = &http.Client{Transport: rt, CheckRedirect: c.checkRedirect, Jar: jar}
	return c, nil
}

// newTransport is http.DefaultTransport's settings with the proxy from
// the environment (or the test's) and the system CAs plus caFile.
func newTransport(caFile string, proxy func(*http.Request) (*url.URL, error)) (*http.Transport, error) {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = http.ProxyFromEnvironment
	if proxy != nil {
		t.Proxy = proxy
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("CA file: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA file %s: no PEM certificates", caFile)
		}
		cfg.RootCAs = pool
	}
	t.TLSClientConfig = cfg
	return t, nil
}

func cmpOr[T comparable](a, b T) T {
	var zero T
	if a != zero {
		return a
	}
	return b
}

// request describes one client call.
type request struct {
	url    string
	kind   callKind
	max    int64  // most body bytes accepted
	accept string // Accept header, if any
	etag   bool   // conditional GET served from the ETag cache
	// open returns the writer for one attempt's body; nil collects the body
	// and returns it.
	open func() (io.Writer, error)
}

// permanentError marks an error that retrying cannot fix.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

func permanent(err error) error { return &permanentError{err} }

// checkRetry is retryablehttp's policy (retry connection errors, 429 and
// 5xx except 501; not TLS, scheme or redirect-limit errors), except that
// refused and permanent errors end the call.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	var p *permanentError
	if err != nil && (errors.As(err, &p) || errors.Is(err, ErrRefused)) {
		return false, err
	}
	return retryablehttp.ErrorPropagatedRetryPolicy(ctx, resp, err)
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
	cl := &call{kind: r.kind}
	ctx = withCall(ctx, cl)
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
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
	tooLarge := permanent(fmt.Errorf("GET %s: body exceeds %d bytes: %w", r.url, r.max, ErrTooLarge))
	var buf bytes.Buffer
	var n int64
	req.SetResponseHandler(func(resp *http.Response) error {
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusNotModified && cached != nil {
			buf.Reset()
			buf.Write(cached.body)
			n = int64(buf.Len())
			return nil
		}
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return permanent(newHTTPError(r.url, resp))
		}
		if resp.ContentLength > r.max {
			return tooLarge
		}
		var w io.Writer = &buf
		buf.Reset()
		if r.open != nil {
			ow, err := r.open()
			if err != nil {
				return permanent(fmt.Errorf("GET %s: open destination: %w", r.url, err))
			}
			w = ow
		}
		ew := &errWriter{w: w}
		got, err := io.Copy(ew, io.LimitReader(resp.Body, limit))
		switch {
		case ew.err != nil:
			return permanent(fmt.Errorf("GET %s: write: %w", r.url, ew.err))
		case err != nil:
			return fmt.Errorf("GET %s: read body: %w", r.url, err)
		case got > r.max:
			return tooLarge
		case resp.ContentLength >= 0 && got != resp.ContentLength:
			return fmt.Errorf("GET %s: got %d of %d bytes: %w", r.url, got, resp.ContentLength, io.ErrUnexpectedEOF)
		}
		n = got
		if et := resp.Header.Get("ETag"); r.etag && et != "" {
			c.cache.put(r.url, et, buf.Bytes())
		}
		return nil
	})
	hc := c.api
	if r.kind == kindDownload {
		hc = c.dl
	}
	rc := &retryablehttp.Client{
		HTTPClient: hc,
		RetryMax:   c.maxRetries,
		CheckRetry: checkRetry,
		// retryablehttp sleeps on its own timer; the wait is computed here
		// and slept in PrepareRetry, where the (injectable) sleeper can see
		// the context.
		Backoff: func(_, _ time.Duration, i int, resp *http.Response) time.Duration {
			cl.wait = c.retryWait(i, resp, r.url)
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
	resp, err := rc.Do(req)
	if err != nil {
		return nil, 0, err
	}
	resp.Body.Close()
	if r.open != nil {
		return nil, n, nil
	}
	return buf.Bytes(), n, nil
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
	if resp != nil && (resp.StatusCode < 200 || resp.StatusCode > 299) {
		defer resp.Body.Close()
		return newHTTPError(rawURL, resp)
	}
	if err == nil {
		return fmt.Errorf("GET %s: giving up after %d attempts", rawURL, tries)
	}
	return fmt.Errorf("GET %s: giving up after %d attempts: %w", rawURL, tries, err)
}

// checkURL accepts a URL on the upstream only.
func (c *Client) checkURL(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("GET %q: %w", rawURL, err)
	}
	if !u.IsAbs() || u.User != nil || originOf(u) != c.origin {
		return fmt.Errorf("GET %s: not on upstream %s: %w", redact(u), c.baseURL, ErrRefused)
	}
	return nil
}

// Fetch returns the body of a small file at rawURL (a .sha256, a .sigzip,
// a public key), which must be on the upstream; redirects to its storage
// host are followed. It fails with ErrTooLarge if the body exceeds
// maxBytes, and with an *HTTPError for a non-2xx answer (ErrNotFound for
// 404) after retries.
func (c *Client) Fetch(ctx context.Context, rawURL string, maxBytes int64) ([]byte, error) {
	if err := c.checkURL(rawURL); err != nil {
		return nil, err
	}
	b, _, err := c.do(ctx, request{url: rawURL, kind: kindFile, max: maxBytes})
	return b, err
}

// Download streams the file at rawURL (a .vsix), which must be on the
// upstream, following redirects to its storage host, into w and returns
// the bytes written. A retry starts from scratch: when w can be rewound
// (io.Seeker with Truncate(int64) error, as *os.File) it is sought to 0 and
// truncated before each attempt writes; any other w is retried only while
// nothing has been written to it. The body must match Content-Length when
// the upstream sends it and may not exceed maxBytes (ErrTooLarge). There
// is no total timeout; an attempt that receives nothing for Timeout is
// retried.
func (c *Client) Download(ctx context.Context, rawURL string, maxBytes int64, w io.Writer) (int64, error) {
	if err := c.checkURL(rawURL); err != nil {
		return 0, err
	}
	if w == nil {
		return 0, fmt.Errorf("GET %s: no destination", rawURL)
	}
	_, n, err := c.do(ctx, request{url: rawURL, kind: kindDownload, max: maxBytes, open: restarter(w)})
	return n, err
}

// truncater is a destination Download can start over.
type truncater interface {
	io.Writer
	io.Seeker
	Truncate(size int64) error
}

// restarter returns the per-attempt opener of w: rewind a truncater;
// refuse to restart any other writer once something was written to it.
func restarter(w io.Writer) func() (io.Writer, error) {
	if t, ok := w.(truncater); ok {
		return func() (io.Writer, error) {
			if _, err := t.Seek(0, io.SeekStart); err != nil {
				return nil, err
			}
			if err := t.Truncate(0); err != nil {
				return nil, err
			}
			return t, nil
		}
	}
	mw := &markWriter{w: w}
	return func() (io.Writer, error) {
		if mw.written {
			return nil, errors.New("cannot retry: the destination cannot be rewound")
		}
		return mw, nil
	}
}

// markWriter remembers whether anything was written.
type markWriter struct {
	w       io.Writer
	written bool
}

func (m *markWriter) Write(p []byte) (int, error) {
	n, err := m.w.Write(p)
	if n > 0 {
		m.written = true
	}
	return n, err
}

// BaseURL returns the upstream's base URL, without a trailing slash.
func (c *Client) BaseURL() string { return c.baseURL }

// etagCache keeps the last body of each JSON URL with its ETag, so a 304
// can be answered from memory. It holds at most maxCacheBytes.
type etagCache struct {
	mu    sync.Mutex
	m     map[string]*cacheEntry
	bytes int
}

type cacheEntry struct {
	etag string
	body []byte
}

// maxCacheBytes bounds the ETag cache.
const maxCacheBytes = 32 << 20

func (c *etagCache) get(key string) *cacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key]
}

func (c *etagCache) put(key, etag string, body []byte) {
	if len(body) > maxCacheBytes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*cacheEntry{}
	}
	if old := c.m[key]; old != nil {
		c.bytes -= len(old.body)
		delete(c.m, key)
	}
	for k, e := range c.m { // evict arbitrary entries until the body fits
		if c.bytes+len(body) <= maxCacheBytes {
			break
		}
		c.bytes -= len(e.body)
		delete(c.m, k)
	}
	c.m[key] = &cacheEntry{etag: etag, body: bytes.Clone(body)}
	c.bytes += len(body)
}
