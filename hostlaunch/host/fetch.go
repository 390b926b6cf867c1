package host

// The network broker: "net/fetch" is an extension's fetch(), allowed when
// the URL's host is among its AllowedHosts and made by Options.Fetch
// (hostlaunch/netbroker in the binary), so this package never links an
// HTTP client.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// Limits of one brokered fetch.
const (
	// FetchTimeout bounds a fetch, redirects and body included.
	FetchTimeout = 30 * time.Second
	// MaxFetchBody caps a response body: 16 MiB; a larger one is an
	// error.
	MaxFetchBody = 16 << 20
	// maxFetchRequestBody caps a request body: 8 MiB, so that its base64
	// fits in one message from the host.
	maxFetchRequestBody = 8 << 20
)

// Fetcher makes the HTTP requests the network broker allowed.
type Fetcher interface {
	// Fetch makes r and returns the response, its body read whole. It
	// follows redirects only to URLs HostAllowed(r.AllowedHosts, …)
	// accepts (a *HostNotAllowedError otherwise), gives up after
	// FetchTimeout and refuses a body over MaxFetchBody.
	Fetch(ctx context.Context, r FetchRequest) (FetchResponse, error)
}

// FetchRequest is one request an extension may make.
type FetchRequest struct {
	Method string
	URL    *url.URL
	// Header holds the request's headers, canonical or not.
	Header map[string][]string
	Body   []byte
	// AllowedHosts is the asking extension's list, for redirects.
	AllowedHosts []string
	// Reserve, when not nil, must be told of every chunk of the response
	// body before the fetcher keeps it; its error ends the fetch with that
	// error (the launcher's bound on what a host makes it hold).
	Reserve func(n int) error
}

// FetchResponse is its answer.
type FetchResponse struct {
	Status     int
	StatusText string
	Header     map[string][]string
	Body       []byte
	// URL is the URL of the response, after redirects.
	URL string
}

// HostNotAllowedError is a URL the broker refuses: its scheme is not http
// or https, or its host and port are not among Allowed.
type HostNotAllowedError struct {
	Extension string
	URL       string
	Allowed   []string
	// Redirect says the URL came from a redirect.
	Redirect bool
}

// Error names the URL, the extension's hosts and what to change.
func (e *HostNotAllowedError) Error() string {
	what := "fetch " + e.URL
	if e.Redirect {
		what = "follow a redirect to " + e.URL
	}
	who := e.Extension
	if who == "" {
		who = "the extension"
	}
	if len(e.Allowed) == 0 {
		return fmt.Sprintf("network: %s may not %s: its policy lists no hosts; add the host to hosts in the policy's capabilities rule that grants it network", who, what)
	}
	return fmt.Sprintf("network: %s may not %s: its host is not among the hosts its policy lists, [%s]; add it to hosts in the policy's capabilities rule that grants it network", who, what, strings.Join(e.Allowed, " "))
}

// HostAllowed reports whether u may be fetched under allowed (entries as
// policies.ParseHost writes them): its scheme is http or https, it has
// no user information, and its host and port match an entry: "host:port"
// exactly, "host" with the scheme's default port (80 or 443), "*.domain"
// any subdomain of domain (not domain itself). Names compare without
// case and without a final dot.
func HostAllowed(allowed []string, u *url.URL) bool {
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.Opaque != "" {
		return false
	}
	host, port := canonHost(u.Hostname()), u.Port()
	if host == "" {
		return false
	}
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	for _, a := range allowed {
		name, p := splitEntry(a)
		if p == "" {
			p = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		if p != port {
			continue
		}
		if suffix, ok := strings.CutPrefix(name, "*."); ok {
			if strings.HasSuffix(host, "."+suffix) {
				return true
			}
		} else if canonHost(name) == host {
			return true
		}
	}
	return false
}

// splitEntry splits an allowed-hosts entry into its name (brackets of an
// IPv6 address removed) and port ("" when it has none).
func splitEntry(a string) (name, port string) {
	if rest, ok := strings.CutPrefix(a, "["); ok {
		name, port, _ = strings.Cut(rest, "]")
		return name, strings.TrimPrefix(port, ":")
	}
	name, port, _ = strings.Cut(a, ":")
	return name, port
}

// canonHost lower-cases a host name, drops a final dot and writes an IP
// address in its canonical form.
func canonHost(h string) string {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip.Unmap().String()
	}
	return h
}

// fetchRequest is the params of "net/fetch".
type fetchRequest struct {
	brokerRequest
	Method  string      `json:"method"`
	URL     string      `json:"url"`
	Headers [][2]string `json:"headers"`
	Body    string      `json:"body"` // base64
}

// fetchResult is the answer; Body goes as "body", in base64, encoded as
// the reply is written (serveBroker).
type fetchResult struct {
	Status     int         `json:"status"`
	StatusText string      `json:"statusText"`
	Headers    [][2]string `json:"headers"`
	URL        string      `json:"url"`
	Body       []byte      `json:"-"`
}

// serveFetch runs one "net/fetch" request; the response body is held in
// t as it arrives.
func (h *Host) serveFetch(raw json.RawMessage, t *ticket) (any, error) {
	var req fetchRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, fmt.Errorf("fetch: bad request: %w", err)
	}
	a := Audit{Extension: req.Extension, Kind: "fetch", Details: AuditDetails{Method: req.Method, URL: redact(req.URL)}}
	e, deny, err := h.brokered(&a, "network", req.Cause)
	if err != nil {
		return deny(err)
	}
	u, err := url.Parse(req.URL)
	if err != nil {
		return deny(denyf("network: %s: invalid URL %q", e.ID, req.URL))
	}
	if !HostAllowed(e.AllowedHosts, u) {
		return deny(&deniedError{Msg: (&HostNotAllowedError{Extension: e.ID, URL: redact(req.URL), Allowed: e.AllowedHosts}).Error()})
	}
	if h.opts.Fetch == nil {
		return deny(denyf("network: %s: this launcher has no network broker", e.ID))
	}
	body, err := base64.StdEncoding.DecodeString(req.Body)
	if err != nil || len(body) > maxFetchRequestBody {
		return deny(denyf("network: %s: the request body is not base64 of at most %d bytes", e.ID, maxFetchRequestBody))
	}
	header := map[string][]string{}
	for _, kv := range req.Headers {
		header[kv[0]] = append(header[kv[0]], kv[1])
	}
	a.Allowed = true
	ctx, cancel := context.WithTimeout(context.Background(), FetchTimeout)
	defer cancel()
	ctx, stop := h.untilExit(ctx) // the host ended: the answer has nowhere to go
	defer stop()
	reserve := func(n int) error { return t.grow(int64(n)) }
	resp, err := h.opts.Fetch.Fetch(ctx, FetchRequest{Method: req.Method, URL: u, Header: header, Body: body, AllowedHosts: e.AllowedHosts, Reserve: reserve})
	if err != nil {
		var hn *HostNotAllowedError
		if errors.As(err, &hn) {
			hn.Extension = e.ID
			a.Allowed = false
			return deny(&deniedError{Msg: hn.Error()})
		}
		var be *busyError
		if errors.As(err, &be) {
			a.Allowed, a.busy = false, true
			return deny(be)
		}
		a.Details.Reason = err.Error()
		h.audit(a, "network", req.Cause)
		return nil, fmt.Errorf("fetch %s: %w", redact(req.URL), err)
	}
	a.Details.Status, a.Details.Bytes = resp.Status, int64(len(resp.Body))
	h.audit(a, "network", req.Cause)
	out := &fetchResult{Status: resp.Status, StatusText: resp.StatusText, Headers: [][2]string{}, Body: resp.Body, URL: resp.URL}
	for k, vs := range resp.Header {
		for _, v := range vs {
			out.Headers = append(out.Headers, [2]string{k, v})
		}
	}
	return out, nil
}

// redact drops user information from a URL for messages and the audit.
func redact(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return s
}
