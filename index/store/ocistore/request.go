package ocistore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

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

// statusOf turns the *transport.Error of an unwanted response (what
// go-containerregistry's remote package and transport.CheckError return)
// into the store's *statusError; other errors are returned as they are.
func (s *ociStore) statusOf(err error) error {
	var te *transport.Error
	if !errors.As(err, &te) {
		return err
	}
	se := &statusError{host: s.base.Host, status: te.StatusCode}
	if te.Request != nil {
		se.method, se.url = te.Request.Method, te.Request.URL.Redacted()
	}
	if len(te.Errors) > 0 {
		ds := make([]string, len(te.Errors))
		for i, d := range te.Errors {
			ds[i] = d.String()
		}
		se.body = strings.Join(ds, "; ")
		return se
	}
	// "... unexpected status code N Text[: body| (HEAD ...)]": the body.
	_, rest, _ := strings.Cut(te.Error(), fmt.Sprintf("%d %s", te.StatusCode, http.StatusText(te.StatusCode)))
	if body, ok := strings.CutPrefix(rest, ": "); ok {
		se.body = body
	}
	return se
}

// hasStatus reports whether err is a *statusError with one of codes.
func hasStatus(err error, codes ...int) bool {
	var se *statusError
	return errors.As(err, &se) && slices.Contains(codes, se.status)
}

// contentError is an error from the content being uploaded: it is not
// retried.
type contentError struct{ err error }

func (e *contentError) Error() string { return e.err.Error() }
func (e *contentError) Unwrap() error { return e.err }

// endpoint returns the URL of path (starting "/v2/") on the registry.
func (s *ociStore) endpoint(path string, query url.Values) *url.URL {
	u := *s.base
	u.Path = path
	u.RawQuery = query.Encode()
	return &u
}

// repo is the go-containerregistry name of a registry repository.
func (s *ociStore) repo(rpath string) name.Repository { return s.reg.Repo(rpath) }

// remote returns the options of a go-containerregistry remote call on
// rpath: its authenticated transport (a *transport.Wrapper, which remote
// uses as it is: no second ping, and no retry of its own over the
// store's) and ctx.
func (s *ociStore) remote(ctx context.Context, rpath string) ([]remote.Option, error) {
	t, err := s.transport(ctx, rpath)
	if err != nil {
		return nil, err
	}
	return []remote.Option{remote.WithTransport(t), remote.WithContext(ctx), remote.WithPageSize(1000)}, nil
}

// send makes a request by hand on rpath's authenticated transport (a GET
// or HEAD following redirects the store allows) and returns its response
// when its status is one of ok; the caller closes the body. Any other
// status is a *statusError.
func (s *ociStore) send(ctx context.Context, rpath, method string, u *url.URL, header http.Header, body io.Reader, size int64, ok ...int) (*http.Response, error) {
	t, err := s.transport(ctx, rpath)
	if err != nil {
		closeBody(body)
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		closeBody(body)
		return nil, err
	}
	if body != nil {
		req.ContentLength = size
	}
	for k, v := range header {
		req.Header[k] = v
	}
	var resp *http.Response
	if method == http.MethodGet || method == http.MethodHead {
		resp, err = (&http.Client{Transport: t}).Do(req)
	} else {
		resp, err = t.RoundTrip(req)
	}
	if err != nil {
		var ce *contentError
		if ctx.Err() != nil && !errors.As(err, &ce) {
			return nil, fmt.Errorf("%s %s: %w", method, u.Redacted(), context.Cause(ctx))
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the client's "Get URL:" again
		}
		if strings.HasPrefix(err.Error(), method+" ") {
			return nil, err
		}
		return nil, fmt.Errorf("%s %s: %w", method, u.Redacted(), err)
	}
	if err := transport.CheckError(resp, ok...); err != nil {
		resp.Body.Close()
		return nil, s.statusOf(err)
	}
	return resp, nil
}

// closeBody closes a request body that is an io.Closer, as a transport
// does with the body of a request it gets.
func closeBody(body io.Reader) {
	if c, ok := body.(io.Closer); ok {
		c.Close()
	}
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
