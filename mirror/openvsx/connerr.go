package openvsx

// Connection errors: a request that got no HTTP answer is classified by its
// cause, so that what retrying cannot fix (nothing listens at the address,
// the host does not exist, TLS does not verify) ends the call at its first
// attempt, and every retry log line and error names the host and the cause.

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"
)

// Categories of *ConnError, matched with errors.Is.
var (
	// ErrUnreachable is matched by a *ConnError that retrying cannot fix
	// because nothing can be reached: the connection was refused, or the
	// host name does not resolve.
	ErrUnreachable = errors.New("upstream unreachable")
	// ErrTLS is matched by a *ConnError whose TLS handshake failed: a
	// certificate that does not verify, or a server that does not speak
	// TLS. Retrying cannot fix it either.
	ErrTLS = errors.New("TLS handshake failed")
)

// ConnError is a request that got no HTTP answer: the connection could not
// be made, or it broke before the response arrived.
type ConnError struct {
	// URL is the URL whose request failed (a redirect hop's, if one
	// failed), without userinfo.
	URL string
	// Host is the host (and port, if the URL has one) the request went to.
	Host string
	// Cause says why, for people: "connection refused", "no such host",
	// "TLS certificate does not verify: x509: …", "connection reset".
	Cause string
	// Attempts is how many attempts the call made before it gave up: 1
	// for a cause retrying cannot fix.
	Attempts int
	// Err is the error of the last attempt.
	Err error

	category error // ErrUnreachable, ErrTLS or nil (transient)
}

// Error returns "GET url: cannot reach host: cause", with the attempts
// when the call was retried.
func (e *ConnError) Error() string {
	s := fmt.Sprintf("GET %s: cannot reach %s: %s", e.URL, e.Host, e.Cause)
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (gave up after %d attempts)", e.Attempts)
	}
	return s
}

// Unwrap returns the underlying error.
func (e *ConnError) Unwrap() error { return e.Err }

// Is matches the error's category: ErrUnreachable or ErrTLS.
func (e *ConnError) Is(target error) bool {
	return e.category != nil && target == e.category
}

// Permanent reports whether retrying cannot fix the error.
func (e *ConnError) Permanent() bool { return e.category != nil }

// newConnError classifies err, the error of a request that got no answer
// (usually a *url.Error from http.Client.Do), made for rawURL.
func newConnError(rawURL string, err error) *ConnError {
	e := &ConnError{URL: rawURL, Err: err, Attempts: 1}
	var ue *url.Error
	if errors.As(err, &ue) && ue.URL != "" {
		e.URL = ue.URL
	}
	if u, perr := url.Parse(e.URL); perr == nil {
		e.Host = u.Host
		e.URL = redact(u)
	}
	e.Cause, e.category = classify(err)
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "proxyconnect" {
		addr := ""
		if op.Addr != nil {
			addr = " " + op.Addr.String()
		}
		e.Cause = "via proxy" + addr + ": " + e.Cause
	}
	return e
}

// classify returns the cause of a connection error for people, and its
// category when retrying cannot fix it (nil when it may heal).
func classify(err error) (string, error) {
	var (
		dnsErr     *net.DNSError
		verifyErr  *tls.CertificateVerificationError
		unknownCA  x509.UnknownAuthorityError
		badHost    x509.HostnameError
		badCert    x509.CertificateInvalidError
		recordErr  tls.RecordHeaderError
		alertErr   tls.AlertError
		netErr     net.Error
		stalledErr = errors.Is(err, errStalled)
	)
	switch {
	case stalledErr:
		return innermost(err), nil
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused (nothing listens there)", ErrUnreachable
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return "no such host", ErrUnreachable
	case errors.As(err, &verifyErr):
		return "TLS certificate does not verify: " + verifyErr.Err.Error(), ErrTLS
	case errors.As(err, &unknownCA):
		return "TLS certificate does not verify: " + unknownCA.Error(), ErrTLS
	case errors.As(err, &badHost):
		return "TLS certificate does not verify: " + badHost.Error(), ErrTLS
	case errors.As(err, &badCert):
		return "TLS certificate does not verify: " + badCert.Error(), ErrTLS
	case errors.As(err, &recordErr):
		return "TLS handshake failed: the server does not answer in TLS (plain http?)", ErrTLS
	case errors.As(err, &alertErr):
		return "TLS handshake failed: the server sent " + alertErr.Error(), ErrTLS
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset", nil
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed before the response", nil
	case errors.As(err, &netErr) && netErr.Timeout():
		return "timeout: " + innermost(err), nil
	case errors.As(err, &dnsErr):
		return "name lookup failed: " + dnsErr.Err, nil
	}
	return innermost(err), nil
}

// innermost is the message of the error err wraps last: without the
// "Get \"url\": dial tcp …:" prefixes the URL and host already say.
func innermost(err error) string {
	for {
		var next error
		switch e := err.(type) {
		case *url.Error:
			next = e.Err
		case *net.OpError:
			next = e.Err
		}
		if next == nil {
			return err.Error()
		}
		err = next
	}
}
