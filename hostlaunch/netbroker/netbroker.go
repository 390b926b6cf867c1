package netbroker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/airvsx/airvsx/hostlaunch/host"
)

// maxRedirects is how many redirects one fetch follows.
const maxRedirects = 10

// Options configure a Broker; the zero value works.
type Options struct {
	// Timeout bounds one fetch, redirects and body included. Default
	// host.FetchTimeout (30 s).
	Timeout time.Duration
	// MaxBody caps a response body. Default host.MaxFetchBody (16 MiB).
	MaxBody int64
	// Transport makes the requests; nil means a transport of the
	// broker's own, which uses no proxy.
	Transport http.RoundTripper
}

// Broker is a host.Fetcher.
type Broker struct {
	timeout   time.Duration
	maxBody   int64
	transport http.RoundTripper
}

// New returns a Broker.
func New(opts Options) *Broker {
	b := &Broker{timeout: opts.Timeout, maxBody: opts.MaxBody, transport: opts.Transport}
	if b.timeout <= 0 {
		b.timeout = host.FetchTimeout
	}
	if b.maxBody <= 0 {
		b.maxBody = host.MaxFetchBody
	}
	if b.transport == nil {
		b.transport = &http.Transport{
			Proxy:                  nil, // never HTTP_PROXY and friends
			DialContext:            (&net.Dialer{Timeout: b.timeout, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:    10 * time.Second,
			ResponseHeaderTimeout:  b.timeout,
			MaxResponseHeaderBytes: 1 << 20,
			ForceAttemptHTTP2:      true,
			IdleConnTimeout:        90 * time.Second,
		}
	}
	return b
}

var _ host.Fetcher = (*Broker)(nil)

// Fetch makes r, following redirects only among r.AllowedHosts, and reads
// the whole response body, telling r.Reserve of each chunk first.
func (b *Broker) Fetch(ctx context.Context, r host.FetchRequest) (host.FetchResponse, error) {
	if r.URL == nil {
		return host.FetchResponse{}, errors.New("fetch: no URL")
	}
	// The host checked r.URL; checking again costs nothing.
	if !host.HostAllowed(r.AllowedHosts, r.URL) {
		return host.FetchResponse{}, &host.HostNotAllowedError{URL: r.URL.Redacted(), Allowed: r.AllowedHosts}
	}
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if len(r.Body) > 0 {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.URL.String(), body)
	if err != nil {
		return host.FetchResponse{}, fmt.Errorf("fetch %s: %w", r.URL.Redacted(), err)
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	client := &http.Client{
		Transport: b.transport,
		CheckRedirect: func(next *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("stopped after %d redirects", maxRedirects)
			}
			if !host.HostAllowed(r.AllowedHosts, next.URL) {
				return &host.HostNotAllowedError{URL: next.URL.Redacted(), Allowed: r.AllowedHosts, Redirect: true}
			}
			return nil
		},
	}
	resp, err := client.Do(req)
	if err != nil {
		var hn *host.HostNotAllowedError
		if errors.As(err, &hn) {
			return host.FetchResponse{}, hn
		}
		return host.FetchResponse{}, err
	}
	defer resp.Body.Close()
	// Sized once from Content-Length when it is within the cap, so a large
	// body is not copied again and again as a growing buffer would be; the
	// size is reserved before the buffer is made.
	size := int64(0)
	if resp.ContentLength > 0 && resp.ContentLength <= b.maxBody {
		size = resp.ContentLength
	}
	var src io.Reader = io.LimitReader(resp.Body, b.maxBody+1)
	if r.Reserve != nil {
		if err := r.Reserve(int(size)); err != nil {
			return host.FetchResponse{}, err
		}
		src = &reserving{r: src, reserve: r.Reserve, reserved: size}
	}
	got := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	_, err = got.ReadFrom(src)
	data := got.Bytes()
	if err != nil {
		return host.FetchResponse{}, fmt.Errorf("fetch %s: read the body: %w", resp.Request.URL.Redacted(), err)
	}
	if int64(len(data)) > b.maxBody {
		return host.FetchResponse{}, fmt.Errorf("fetch %s: the response body is larger than %d bytes", resp.Request.URL.Redacted(), b.maxBody)
	}
	return host.FetchResponse{
		Status:     resp.StatusCode,
		StatusText: strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)+" "),
		Header:     resp.Header,
		Body:       data,
		URL:        resp.Request.URL.String(),
	}, nil
}

// reserving tells reserve of every chunk read from r, past the reserved
// bytes told of already, before passing it on.
type reserving struct {
	r        io.Reader
	reserve  func(n int) error
	reserved int64
}

func (r *reserving) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		more := int64(n) - r.reserved
		r.reserved = max(r.reserved-int64(n), 0)
		if more > 0 {
			if rerr := r.reserve(int(more)); rerr != nil {
				return 0, rerr
			}
		}
	}
	return n, err
}
