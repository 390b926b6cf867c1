package openvsx

// Storage: where the upstream keeps its files. Open VSX answers a file
// URL with a redirect to its storage (a CDN); Locate asks for that
// redirect without following it, so that a caller can fetch the other
// files of the same version from the same place without asking the API
// host again. Only a storage origin the upstream itself redirected to in
// this client's life may be asked directly.

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// storageOrigins holds the origins the upstream redirected file URLs to.
type storageOrigins struct {
	mu      sync.Mutex
	origins []string
}

func (s *storageOrigins) add(origin string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.origins, origin) {
		s.origins = append(s.origins, origin)
	}
}

func (s *storageOrigins) has(origin string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.origins, origin)
}

// mayDial reports whether a request (not a redirect hop) may go to u:
// the upstream, a storage origin the upstream redirected to, or the
// control list's origin (ClientOptions.ControlURL).
func (c *Client) mayDial(u *url.URL) bool {
	return c.mayFetch(u) || (c.controlOrigin != "" && originOf(u) == c.controlOrigin)
}

// mayFetch reports whether Fetch, Download and Locate may ask for u: the
// upstream or a storage origin it redirected to. The control list's
// origin is not among them: a file URL the upstream names there is
// refused, and only FetchControl asks it, for its one URL.
func (c *Client) mayFetch(u *url.URL) bool {
	o := originOf(u)
	return o == c.origin || c.storage.has(o)
}

// Locate asks the upstream where the file at rawURL (an API file URL, on
// the upstream) lives, with one HEAD request whose redirect is not
// followed, and returns the redirect's target. It returns "" when the
// upstream serves the file itself (a 2xx), or answers no HEAD (405, 501):
// its files are then fetched from their API URLs. The target must be one
// the client would follow for a file (the rules of
// ClientOptions.RedirectHosts, no userinfo, no https to http); its origin
// may then be asked directly, by Fetch and Download, for the rest of the
// client's life. Locate is retried like any request; a non-2xx, non-3xx
// answer is an *HTTPError.
func (c *Client) Locate(ctx context.Context, rawURL string) (string, error) {
	if err := c.checkURL(rawURL); err != nil {
		return "", err
	}
	var loc string
	if _, _, err := c.do(ctx, request{url: rawURL, kind: kindLocate, method: http.MethodHead, max: 1, location: &loc}); err != nil {
		return "", err
	}
	return loc, nil
}

// located checks the redirect a Locate got, and resolves it: the target
// must be one the file calls would follow from rawURL. Its origin is
// then a storage origin.
func (c *Client) located(rawURL string, resp *http.Response) (string, error) {
	to, err := resp.Location()
	if err != nil {
		return "", fmt.Errorf("HEAD %s: %d without a usable Location: %v: %w", rawURL, resp.StatusCode, err, ErrRefused)
	}
	from, err := url.Parse(rawURL)
	if err != nil {
		return "", err
	}
	if err := c.fileRedirectAllowed(from, from, to); err != nil {
		return "", err
	}
	c.storage.add(originOf(to))
	return to.String(), nil
}

// fileRedirectAllowed is the redirect policy of file calls for one hop
// from from to to, of a call that started at orig (see checkRedirect).
func (c *Client) fileRedirectAllowed(orig, from, to *url.URL) error {
	refuse := func(why string) error {
		return fmt.Errorf("refusing redirect from %s to %s: %s: %w", redact(from), redact(to), why, ErrRefused)
	}
	if to.User != nil {
		return refuse("userinfo in URL")
	}
	switch to.Scheme {
	case "https":
	case "http":
		if orig.Scheme != "http" {
			return refuse("downgrade from https to http")
		}
		if !strings.EqualFold(orig.Host, to.Host) && !isLoopback(orig.Hostname()) {
			return refuse("plain http to another host")
		}
	default:
		return refuse("scheme " + to.Scheme)
	}
	if len(c.redirectHosts) > 0 && originOf(to) != c.origin &&
		!slices.Contains(c.redirectHosts, strings.ToLower(to.Hostname())) {
		return refuse("host not in RedirectHosts")
	}
	return nil
}
