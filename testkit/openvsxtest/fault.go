package openvsxtest

import (
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/airvsx/airvsx/testkit/collect"
)

// Fault is a misbehaviour the server can inject on chosen paths.
type Fault int

// The faults. Each replaces (or, for Slow, delays) one response.
const (
	// TooManyRequests answers 429 with "Retry-After: 1",
	// X-RateLimit-Limit/Remaining/Reset headers and open-vsx.org's RFC 9457
	// JSON body (RateLimitBody).
	TooManyRequests Fault = iota + 1
	// Unavailable answers 503.
	Unavailable
	// Reset closes the connection without a response (SO_LINGER 0, so the
	// client sees a reset where the OS allows it). Note that Go's
	// http.Transport retries an idempotent request once, on a new
	// connection, when a reused keep-alive connection dies before the
	// response: inject Reset twice (or use a client without keep-alives) for
	// the client to see the error.
	Reset
	// Truncated declares the full Content-Length, sends the first half of
	// the body and closes the connection: the client reads an unexpected EOF.
	Truncated
	// WrongSHA256 makes a .sha256 file answer another hash (lowercase hex,
	// well-formed). It applies only to .sha256 responses.
	WrongSHA256
	// BadSignature makes a .sigzip hold a well-formed 64-byte Ed25519
	// signature, made with the right key over other bytes, that does not
	// verify for the package. It applies only to .sigzip responses.
	BadSignature
	// Slow waits Options.SlowDelay (or until the client gives up) before
	// answering normally.
	Slow
)

// Always, as the times argument of Server.Fault, injects the fault on
// every matching request.
const Always = -1

// String returns the fault's name.
func (f Fault) String() string {
	switch f {
	case TooManyRequests:
		return "TooManyRequests"
	case Unavailable:
		return "Unavailable"
	case Reset:
		return "Reset"
	case Truncated:
		return "Truncated"
	case WrongSHA256:
		return "WrongSHA256"
	case BadSignature:
		return "BadSignature"
	case Slow:
		return "Slow"
	case 0:
		return "none"
	}
	return "Fault(" + strconv.Itoa(int(f)) + ")"
}

// RateLimitBody is the body of a TooManyRequests response, verbatim from
// open-vsx.org's ovsx.rate-limit.default-http-response-body.
const RateLimitBody = `{
  "type": "https://open-vsx.org/probs/rate-limit-exceeded",
  "title": "Too Many Requests",
  "status": 429,
  "detail": "A request rate limit has been exceeded for your current usage tier. Open VSX enforces tier-based limits to ensure reliable service. If this is unexpected for your use case, please contact us.",
  "documentation": "https://github.com/EclipseFdn/open-vsx.org/wiki/Rate-Limiting",
  "contact": "infrastructure@eclipse-foundation.org"
}`

// RequestLog is one request the server answered.
type RequestLog struct {
	Method string
	Path   string
	// Query is the raw query string.
	Query string
	// Status is the status sent; 0 when the connection was reset.
	Status int
	// Fault is the fault injected, 0 if none.
	Fault Fault
}

type faultRule struct {
	pattern string
	fault   Fault
	left    int // Always: no limit
}

// matches reports whether p matches the rule's pattern (see Server.Fault).
func (r *faultRule) matches(p string) bool {
	if strings.ContainsAny(r.pattern, "*?[") {
		if ok, _ := path.Match(r.pattern, p); ok {
			return true
		}
		if !strings.Contains(r.pattern, "/") {
			ok, _ := path.Match(r.pattern, path.Base(p))
			return ok
		}
		return false
	}
	return strings.HasPrefix(p, r.pattern)
}

// applies reports whether the fault can act on a response of kind k.
func (r *faultRule) applies(k kind) bool {
	switch r.fault {
	case WrongSHA256:
		return k == kindSHA256
	case BadSignature:
		return k == kindSigzip
	}
	return true
}

// state is the handler's mutable part: fault rules and the request log.
type state struct {
	mu     sync.Mutex
	faults []*faultRule
	log    collect.List[RequestLog]
}

func (s *state) addFault(pattern string, f Fault, times int) {
	if times == 0 || (times < 0 && times != Always) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &faultRule{pattern: pattern, fault: f, left: times})
}

// take consumes one injection of the first rule, in the order added, that
// matches p and applies to k.
func (s *state) take(p string, k kind) Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.faults {
		if r.left == 0 || !r.matches(p) || !r.applies(k) {
			continue
		}
		if r.left > 0 {
			r.left--
		}
		return r.fault
	}
	return 0
}
