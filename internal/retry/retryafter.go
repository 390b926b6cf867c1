package retry

import (
	"strings"
	"time"
)

// MaxDelay bounds every delay the parsers return: 2³¹ seconds (68 years),
// far past any cap a client applies and far below time.Duration's limit.
const MaxDelay = (1 << 31) * time.Second

// ParseRetryAfter reads a Retry-After value (RFC 9110 §10.2.3) received at
// now: delta-seconds or an HTTP-date, surrounding spaces ignored. It
// returns the delay the server asks for, at most MaxDelay, and 0 for a
// date already past; ok is false for an empty or unreadable value (a
// sign, a fraction, a word).
func ParseRetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if d, ok := ParseSeconds(v); ok {
		return d, true
	}
	// The HTTP-date forms RFC 9110 §5.6.7 tells a recipient to accept
	// (IMF-fixdate, then the obsolete RFC 850 and asctime forms), the ones
	// net/http's ParseTime reads.
	for _, f := range [...]string{"Mon, 02 Jan 2006 15:04:05 GMT", time.RFC850, time.ANSIC} {
		if t, err := time.Parse(f, v); err == nil {
			return min(max(t.Sub(now), 0), MaxDelay), true
		}
	}
	return 0, false
}

// ParseSeconds reads delta-seconds: one or more ASCII digits, no sign, no
// spaces. A value past MaxDelay is MaxDelay.
func ParseSeconds(v string) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	const maxSeconds = int64(MaxDelay / time.Second)
	var n int64
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = min(n*10+int64(c-'0'), maxSeconds)
	}
	return time.Duration(n) * time.Second, true
}
