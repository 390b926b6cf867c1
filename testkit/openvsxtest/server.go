package openvsxtest

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/testkit/filetest"
)

// Options configures a fixture server. The zero value serves the
// repository's testdata/vsix with no added latency.
type Options struct {
	// Fixtures is the directory of .vsix files New loads (see LoadFixtures).
	// Default: the repository's testdata/vsix (DefaultDir).
	Fixtures string
	// Latency is added before every response. Default 0.
	Latency time.Duration
	// SlowDelay is how long the Slow fault waits before answering.
	// Default 2s.
	SlowDelay time.Duration
	// Missing lists extension IDs ("ns.name", any case) that upstream does
	// not have: their API paths get upstream's 404 (or its empty page, for
	// /versions and /version-references) instead of failing the test.
	// Default none: every request for an extension without fixtures fails
	// the test.
	Missing []string
	// Legacy serves the pre-2026 ExtensionJson field set: with
	// unrelatedPublisher and namespaceAccess (and NamespaceJson access),
	// without downloadSize and publishedWithTrustedPublishing.
	// Default false: the current upstream shape.
	Legacy bool
	// EagerETags computes every package's ETag (an MD5 of it) when the
	// server is built, so that no download pays for it: for benchmarks,
	// which must measure the client. Default false: on first download.
	EagerETags bool
	// CDN serves the stored files from a second listener, another origin
	// (as open-vsx.org's files are on its CDN host): the API's file URLs
	// redirect there, and the API listener serves no /cdn/ path. Default
	// false: /cdn/ on the API's own listener.
	CDN bool
	// ControlFile, when set, is served at ControlPath, read again on
	// every request, unless Server.SetControl set a list. Default "": no
	// list (404) until SetControl.
	ControlFile string
}

// Server is a fixture Open VSX server on loopback, for tests.
type Server struct {
	// URL is the base URL, e.g. http://127.0.0.1:PORT, with no trailing
	// slash.
	URL string
	// CDNURL is the base URL of the stored files' listener with
	// Options.CDN (its paths start /cdn/); else URL.
	CDNURL string

	h *handler
}

// New starts a fixture server with the fixtures in opts.Fixtures and stops
// it when the test ends. A request the fixtures have no answer for fails
// the test (tb.Errorf) and gets a 404. Invalid fixtures are fatal.
func New(tb testing.TB, opts Options) *Server {
	tb.Helper()
	dir := opts.Fixtures
	if dir == "" {
		dir = DefaultDir()
	}
	fx, err := LoadFixtures(dir)
	if err != nil {
		tb.Fatalf("openvsxtest: %v", err)
	}
	return NewFromFixtures(tb, fx, opts)
}

// ReadFixture returns the bytes of the file name in DefaultDir (a package
// the server serves, or its sidecar), failing the test if it cannot be
// read.
func ReadFixture(tb testing.TB, name string) []byte {
	tb.Helper()
	return filetest.ReadFile(tb, filepath.Join(DefaultDir(), name))
}

// NewFromFixtures is New with fixtures built in code; opts.Fixtures is
// ignored.
func NewFromFixtures(tb testing.TB, fx Fixtures, opts Options) *Server {
	tb.Helper()
	h, err := newHandler(fx, opts, func(r *http.Request) {
		tb.Errorf("openvsxtest: no fixture for %s %s", r.Method, r.URL.RequestURI())
	})
	if err != nil {
		tb.Fatalf("openvsxtest: %v", err)
	}
	if !opts.CDN {
		ts := httptest.NewServer(h)
		tb.Cleanup(ts.Close)
		return &Server{URL: ts.URL, CDNURL: ts.URL, h: h}
	}
	// Each listener answers its own paths only, as the API host and the
	// CDN do.
	cdn := httptest.NewServer(onlyPaths(h, true, tb))
	tb.Cleanup(cdn.Close)
	h.cdnBase = cdn.URL
	ts := httptest.NewServer(onlyPaths(h, false, tb))
	tb.Cleanup(ts.Close)
	return &Server{URL: ts.URL, CDNURL: cdn.URL, h: h}
}

// onlyPaths serves h's /cdn/ paths (cdn) or every other path (!cdn); a
// request for the other listener's paths fails the test with a 404.
func onlyPaths(h *handler, cdn bool, tb testing.TB) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/cdn/") != cdn {
			tb.Errorf("openvsxtest: %s %s sent to the wrong host (CDN: %v)", r.Method, r.URL.RequestURI(), cdn)
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Fault injects f into the next times responses (Always: every response)
// whose path matches pathPattern. A pattern with a meta character (* ? [)
// is matched with path.Match against the whole path, or, if it has no "/",
// against the last path element ("*.sha256"); any other pattern is a path
// prefix ("/cdn/", "/api/airvsx-demo/hello-command"). WrongSHA256 counts
// only .sha256 responses and BadSignature only .sigzip responses; the other
// faults count any response. Rules apply in the order added; a request
// consumes at most one.
func (s *Server) Fault(pathPattern string, f Fault, times int) {
	s.h.st.addFault(pathPattern, f, times)
}

// PeakInFlight is the most requests the server was answering at once.
func (s *Server) PeakInFlight() int { return int(s.h.peak.Load()) }

// Requests returns every request answered so far, in order.
func (s *Server) Requests() []RequestLog { return s.h.st.log.All() }

// Count returns how many requests so far had a path starting with
// pathPrefix; Count("/cdn/") counts file downloads (after redirects).
func (s *Server) Count(pathPrefix string) int {
	n := 0
	for _, l := range s.h.st.log.All() {
		if strings.HasPrefix(l.Path, pathPrefix) {
			n++
		}
	}
	return n
}

// PublicKeyPEM returns the PEM the server publishes at
// /api/-/public-key/{KeyID}.
func (s *Server) PublicKeyPEM() []byte { return PublicKeyPEM() }

// KeyID returns the public id of the signing key (KeyID).
func (s *Server) KeyID() string { return KeyID }
