package openvsx

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// closedAddr returns a loopback address nothing listens on: a port that
// was just listened on and closed.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// TestDeadUpstreamFailsFast: an upstream nothing listens on fails every
// kind of call at its first attempt, with an error that names the host and
// the cause, and no wait.
func TestDeadUpstreamFailsFast(t *testing.T) {
	addr := closedAddr(t)
	base := "http://" + addr
	tests := []struct {
		name string
		call func(c *Client) error
	}{
		{"sitemap", func(c *Client) error { _, err := c.Sitemap(t.Context()); return err }},
		{"extension", func(c *Client) error { _, err := c.ExtensionVersion(t.Context(), helloID, "", "1.0.0"); return err }},
		{"file", func(c *Client) error {
			_, err := c.Fetch(t.Context(), base+"/api/a/b/1.0.0/file/x.sha256", 100)
			return err
		}},
		{"download", func(c *Client) error {
			f, err := os.Create(t.TempDir() + "/dl")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			_, err = c.Download(t.Context(), base+"/api/a/b/1.0.0/file/x.vsix", 100, f)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The default MaxRetries (5): nothing but the cause keeps it
			// from retrying.
			c, clk := newTestClient(t, base, func(o *ClientOptions) { o.MaxRetries = 0 })
			err := tt.call(c)
			var ce *ConnError
			if !errors.As(err, &ce) || !errors.Is(err, ErrUnreachable) {
				t.Fatalf("err = %v; want a *ConnError matching ErrUnreachable", err)
			}
			for _, want := range []string{addr, "connection refused"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("err = %q; want it to name %q", err, want)
				}
			}
			if ce.Host != addr || ce.Attempts != 1 {
				t.Errorf("ConnError host %q attempts %d; want %q and 1", ce.Host, ce.Attempts, addr)
			}
			if eg := c.Egress(); len(eg) != 1 || eg[0].Attempt != 1 || !strings.Contains(eg[0].Error, "connection refused") {
				t.Errorf("egress %+v; want one attempt that records the refusal", eg)
			}
			if s := clk.slept(); len(s) != 0 {
				t.Errorf("slept %v; want no retry wait", s)
			}
		})
	}
}

// failingTransport fails every request with err.
type failingTransport struct{ err error }

func (f failingTransport) RoundTrip(*http.Request) (*http.Response, error) { return nil, f.err }

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// TestConnErrorRetries: a connection error is retried only when its cause
// may heal; the error and every retry log line name the host and the cause.
func TestConnErrorRetries(t *testing.T) {
	const maxRetries = 3
	dial := func(err error) error {
		return &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", err)}
	}
	tests := []struct {
		name     string
		err      error
		category error // nil: transient
		cause    string
	}{
		{"refused", dial(syscall.ECONNREFUSED), ErrUnreachable, "connection refused"},
		{"no such host", &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "up.example", IsNotFound: true}}, ErrUnreachable, "no such host"},
		{"unknown CA", &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}, ErrTLS, "TLS certificate does not verify: x509: certificate signed by unknown authority"},
		{"wrong host", x509.HostnameError{Certificate: &x509.Certificate{}, Host: "up.example"}, ErrTLS, "TLS certificate does not verify"},
		{"plain http", tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}, ErrTLS, "does not answer in TLS"},
		{"alert", tls.AlertError(40), ErrTLS, "TLS handshake failed"},
		{"proxy refused", &net.OpError{Op: "proxyconnect", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 3128}, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, ErrUnreachable, "via proxy 10.0.0.1:3128: connection refused"},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, nil, "connection reset"},
		{"closed early", io.EOF, nil, "connection closed before the response"},
		{"timeout", &net.OpError{Op: "dial", Net: "tcp", Err: timeoutErr{}}, nil, "timeout: i/o timeout"},
		{"DNS server down", &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "server misbehaving", Name: "up.example", IsTemporary: true}}, nil, "name lookup failed: server misbehaving"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			c, clk := newTestClient(t, "https://up.example:8443", func(o *ClientOptions) {
				o.MaxRetries = maxRetries
				o.HTTPClient = &http.Client{Transport: failingTransport{tt.err}}
				o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			})
			_, err := c.Sitemap(t.Context())
			var ce *ConnError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v; want a *ConnError", err)
			}
			wantAttempts := 1
			if tt.category == nil {
				wantAttempts = maxRetries + 1
			}
			if got := len(c.Egress()); got != wantAttempts || ce.Attempts != wantAttempts {
				t.Errorf("%d requests, ConnError.Attempts %d; want %d", got, ce.Attempts, wantAttempts)
			}
			if len(clk.slept()) != wantAttempts-1 {
				t.Errorf("slept %v; want %d waits", clk.slept(), wantAttempts-1)
			}
			if tt.category != nil && !errors.Is(err, tt.category) || tt.category == nil && (ce.Permanent() || errors.Is(err, ErrUnreachable) || errors.Is(err, ErrTLS)) {
				t.Errorf("err = %v (permanent %v); want category %v", err, ce.Permanent(), tt.category)
			}
			for _, want := range []string{"https://up.example:8443/sitemap.xml", "cannot reach up.example:8443", tt.cause} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("err = %q; want it to contain %q", err, want)
				}
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("err = %v; want it to wrap %v", err, tt.err)
			}
			retries := 0
			for line := range strings.Lines(logs.String()) {
				if !strings.Contains(line, "msg=retrying") {
					continue
				}
				retries++
				if !strings.Contains(line, "host=up.example:8443") || !strings.Contains(line, "cause=") || strings.Contains(line, "status=0") {
					t.Errorf("retry log line %q; want the host and the cause", line)
				}
			}
			if retries != wantAttempts-1 {
				t.Errorf("%d retry log lines; want %d:\n%s", retries, wantAttempts-1, logs.String())
			}
		})
	}
}

// TestUntrustedCertificateFailsFast: a TLS server whose certificate the
// client does not trust is not retried.
func TestUntrustedCertificateFailsFast(t *testing.T) {
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request %s reached the handler", r.URL)
	}))
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake the client aborts
	ts.StartTLS()
	t.Cleanup(ts.Close)
	c, _ := newTestClient(t, ts.URL, func(o *ClientOptions) { o.MaxRetries = 0 })
	_, err := c.Sitemap(t.Context())
	if !errors.Is(err, ErrTLS) || !strings.Contains(err.Error(), "certificate") || !strings.Contains(err.Error(), ts.Listener.Addr().String()) {
		t.Fatalf("err = %v; want ErrTLS naming the certificate and %s", err, ts.Listener.Addr())
	}
	if n := len(c.Egress()); n != 1 {
		t.Errorf("%d requests; want 1", n)
	}
}

// TestRetriedFaultsLogTheirCause: a 503 and a truncated body are retried,
// and their retry log lines say why.
func TestRetriedFaultsLogTheirCause(t *testing.T) {
	var n atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		case 2:
			w.Header().Set("Content-Length", "100")
			io.WriteString(w, "<urlset>")
		default:
			io.WriteString(w, "<urlset></urlset>")
		}
	}))
	t.Cleanup(ts.Close)
	var logs bytes.Buffer
	c, _ := newTestClient(t, ts.URL, func(o *ClientOptions) { o.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	if _, err := c.Sitemap(t.Context()); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for line := range strings.Lines(logs.String()) {
		if strings.Contains(line, "msg=retrying") {
			lines = append(lines, line)
		}
	}
	if len(lines) != 2 || !strings.Contains(lines[0], "status=503") ||
		!strings.Contains(lines[1], "status=200") || !strings.Contains(lines[1], "cause=") || !strings.Contains(lines[1], "unexpected EOF") {
		t.Errorf("retry log lines:\n%s\nwant the 503, then the truncated body", strings.Join(lines, ""))
	}
}
