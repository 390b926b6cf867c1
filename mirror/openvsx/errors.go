package openvsx

// Errors the client returns: the sentinels callers match with errors.Is,
// and the *HTTPError of an upstream's non-2xx answer.

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode"
)

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
