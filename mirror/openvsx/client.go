package openvsx

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/airvsx/airvsx/internal/certpool"
	"github.com/airvsx/airvsx/internal/retry"
	"github.com/airvsx/airvsx/internal/safefile"
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
	// DefaultHeaderTimeout is ClientOptions.HeaderTimeout's default.
	DefaultHeaderTimeout = 30 * time.Second
)

// ClientOptions configures a Client. Only BaseURL is required.
type ClientOptions struct {
	// BaseURL is the upstream registry, e.g. https://open-vsx.org: an
	// absolute http or https URL without userinfo, query or fragment (a
	// path prefix is kept). Required: there is no implicit upstream.
	BaseURL string
	// UserAgent is sent on every request. Default DefaultUserAgent.
	UserAgent string
	// Rate is the most requests per second the client sends to the
	// upstream, across all its calls and their retries and redirect hops.
	// Requests to the storage the upstream redirects its files to are not
	// paced (Open VSX rate-limits its API paths, not its storage); the
	// callers' concurrency bounds them. Default 2 (Open VSX's free tier
	// allows under 3).
	Rate float64
	// Burst is how many requests may go at once before Rate applies.
	// Default 1.
	Burst int
	// MaxRetries is how many times a request is retried after a 429, a 5xx,
	// a connection error that may heal (a reset, a timeout), a truncated
	// body or a stalled download. Errors retrying cannot fix (connection
	// refused, no such host, TLS that does not verify; see ConnError) are
	// never retried. Default 5; negative means no retries.
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
	// Downloads have no total timeout (a large package over a slow link
	// must still arrive); they are abandoned (and retried) when no body
	// byte arrives for Timeout: "no body bytes from URL for 60s". Default
	// 60s.
	Timeout time.Duration
	// HeaderTimeout bounds the wait for each request's response headers,
	// from the moment it is sent (the connection and TLS handshake
	// included; the transport NewClient builds also gives up connecting
	// after 30s): an upstream that accepts the connection and never
	// answers fails the attempt with "no response headers from URL within
	// 30s", and the attempt is retried like a reset. Timeout, if less,
	// bounds the headers instead. Default 30s.
	HeaderTimeout time.Duration
	// RedirectHosts, when set, lists the only hosts (besides the
	// upstream's) a file URL may redirect to. Default: any host, as Open
	// VSX moves its storage host. API requests never leave the upstream.
	RedirectHosts []string
	// ControlURL, when set, is the one URL besides the upstream's the
	// client may fetch: the extension control list (FetchControl), which
	// the admin names explicitly (it may be on another host, as Open VSX's
	// is on GitHub). An absolute http or https URL without userinfo.
	// Default "": FetchControl refuses.
	ControlURL string
	// Logger receives retries (info, with the host and the cause), capped
	// waits (warn) and every request (debug). Default nil: discard.
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
	controlURL    string // ClientOptions.ControlURL
	controlOrigin string
	userAgent     string
	maxRetries    int
	waitMin       time.Duration
	waitMax       time.Duration
	maxHint       time.Duration
	stall         time.Duration // Timeout
	headerTimeout time.Duration
	redirectHosts []string
	log           *slog.Logger
	api, dl, loc  *http.Client
	limiter       *rate.Limiter
	sleep         func(ctx context.Context, d time.Duration) error
	now           func() time.Time

	mu         sync.Mutex
	pauseUntil time.Time

	egress  egressLog
	cache   etagCache
	storage storageOrigins // where the upstream redirected file URLs (Locate)
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
	if opts.Rate < 0 || opts.Burst < 0 || opts.RetryWaitMin < 0 || opts.RetryWaitMax < 0 || opts.Timeout < 0 || opts.HeaderTimeout < 0 {
		return nil, errors.New("client options: Rate, Burst, RetryWaitMin, RetryWaitMax, Timeout and HeaderTimeout must not be negative")
	}
	c := &Client{
		baseURL:       strings.TrimSuffix(u.String(), "/"),
		origin:        originOf(u),
		userAgent:     cmpOr(opts.UserAgent, DefaultUserAgent),
		maxRetries:    opts.MaxRetries,
		waitMin:       cmpOr(opts.RetryWaitMin, DefaultRetryWaitMin),
		waitMax:       cmpOr(opts.RetryWaitMax, DefaultRetryWaitMax),
		stall:         cmpOr(opts.Timeout, DefaultTimeout),
		headerTimeout: cmpOr(opts.HeaderTimeout, DefaultHeaderTimeout),
		log:           opts.Logger,
		sleep:         opts.sleep,
		now:           opts.now,
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
	if opts.ControlURL != "" {
		cu, err := url.Parse(opts.ControlURL)
		if err != nil || (cu.Scheme != "http" && cu.Scheme != "https") || cu.Host == "" || cu.User != nil {
			return nil, fmt.Errorf("control list URL %q: want an absolute http or https URL without userinfo", opts.ControlURL)
		}
		c.controlURL, c.controlOrigin = cu.String(), originOf(cu)
	}
	for _, h := range opts.RedirectHosts {
		c.redirectHosts = append(c.redirectHosts, strings.ToLower(h))
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.sleep == nil {
		c.sleep = retry.Sleep
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
	c.loc = &http.Client{Transport: rt, Jar: jar, Timeout: c.stall,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return c, nil
}

// newTransport is http.DefaultTransport's settings with the proxy from
// the environment (or the test's) and the system CAs plus caFile.
func newTransport(caFile string, proxy func(*http.Request) (*url.URL, error)) (*http.Transport, error) {
	t := http.DefaultTransport.(*http.Transport).Clone()
	// Keep every connection the sync's requests use open between them:
	// the default keeps two per host, so with --concurrency 8 most
	// requests would dial (and shake hands over TLS) again.
	t.MaxIdleConnsPerHost = t.MaxIdleConns
	t.Proxy = http.ProxyFromEnvironment
	if proxy != nil {
		t.Proxy = proxy
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := safefile.ReadFile(caFile, 4<<20)
		if err != nil {
			return nil, fmt.Errorf("CA file: %w", err)
		}
		pool, ok := certpool.WithSystem(pem)
		if !ok {
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

// checkURL accepts a URL on the upstream only, or on a storage origin
// the upstream redirected to (Locate).
func (c *Client) checkURL(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("GET %q: %w", rawURL, err)
	}
	if !u.IsAbs() || u.User != nil || !c.mayFetch(u) {
		return fmt.Errorf("GET %s: not on upstream %s: %w", redact(u), c.baseURL, ErrRefused)
	}
	return nil
}

// Fetch returns the body of a small file at rawURL (a .sha256, a .sigzip,
// a public key), which must be on the upstream or on a storage origin it
// redirected to (Locate); redirects to its storage host are followed. It
// fails with ErrTooLarge if the body exceeds maxBytes, and with an
// *HTTPError for a non-2xx answer (ErrNotFound for 404) after retries.
func (c *Client) Fetch(ctx context.Context, rawURL string, maxBytes int64) ([]byte, error) {
	if err := c.checkURL(rawURL); err != nil {
		return nil, err
	}
	b, _, err := c.do(ctx, request{url: rawURL, kind: kindFile, max: maxBytes})
	return b, err
}

// Download streams the file at rawURL (a .vsix), which must be on the
// upstream or on a storage origin it redirected to (Locate), following
// redirects to its storage host, into w and returns the bytes written. A retry starts from scratch: when w can be rewound
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

// FetchControl returns the extension control list at
// ClientOptions.ControlURL (at most maxBytes), the one file the client
// fetches off the upstream, rate limited, retried and logged like the
// others. It refuses when no ControlURL was given.
func (c *Client) FetchControl(ctx context.Context, maxBytes int64) ([]byte, error) {
	if c.controlURL == "" {
		return nil, fmt.Errorf("control list: no URL given (the client fetches none implicitly): %w", ErrRefused)
	}
	b, _, err := c.do(ctx, request{url: c.controlURL, kind: kindFile, max: maxBytes})
	return b, err
}

// ControlURL returns ClientOptions.ControlURL.
func (c *Client) ControlURL() string { return c.controlURL }

// Rate returns the most requests per second the client sends to the
// upstream (ClientOptions.Rate, or its default).
func (c *Client) Rate() float64 { return float64(c.limiter.Limit()) }

// BaseURL returns the upstream's base URL, without a trailing slash.
func (c *Client) BaseURL() string { return c.baseURL }
