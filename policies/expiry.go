package policies

import (
	"fmt"
	"regexp"
	"strconv"
	"time"
)

const (
	// DefaultCatalogExpires is how long a signed catalog stays valid when
	// the policy does not say: 90 days.
	DefaultCatalogExpires = 90 * 24 * time.Hour
	// MinCatalogExpires is the shortest catalog.expires accepted: 1 minute.
	MinCatalogExpires = time.Minute
	// MaxCatalogExpires is the longest catalog.expires accepted: 5 years
	// of 365 days (1825d).
	MaxCatalogExpires = 5 * 365 * 24 * time.Hour
)

var expiryPattern = regexp.MustCompile(`^([0-9]+)([dhm])$`)

// ParseExpiry parses a catalog lifetime: a whole number followed by one
// unit, "d" (24 hours), "h" or "m" (minutes): "90d", "36h", "30m". The
// result lies within [MinCatalogExpires, MaxCatalogExpires].
func ParseExpiry(s string) (time.Duration, error) {
	m := expiryPattern.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("duration %q: want a whole number and one unit d, h or m (e.g. 90d, 36h, 30m)", s)
	}
	unit := map[string]time.Duration{"d": 24 * time.Hour, "h": time.Hour, "m": time.Minute}[m[2]]
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n > int64(MaxCatalogExpires/unit) {
		return 0, fmt.Errorf("duration %q: longer than the maximum %s", s, FormatExpiry(MaxCatalogExpires))
	}
	d := time.Duration(n) * unit
	if d < MinCatalogExpires {
		return 0, fmt.Errorf("duration %q: must be at least %s", s, FormatExpiry(MinCatalogExpires))
	}
	return d, nil
}

// FormatExpiry writes d in the largest unit of ParseExpiry that divides it
// exactly ("90d", "36h", "90m"). Durations that are not whole minutes are
// rounded down to minutes.
func FormatExpiry(d time.Duration) string {
	switch {
	case d%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	default:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
}
