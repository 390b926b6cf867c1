package openvsxtest

import (
	"fmt"
	"time"
)

// FormatTimestamp formats t as Open VSX prints publish times: Java's
// LocalDateTime.toString of the UTC time plus "Z". Zero parts are dropped,
// so the precision varies: "2024-06-18T03:29:07.108336Z",
// "2024-06-18T03:29:07.100Z", "2024-06-18T03:29:07Z", "2024-06-18T03:29Z".
func FormatTimestamp(t time.Time) string {
	t = t.UTC()
	s := t.Format("2006-01-02T15:04")
	sec, nano := t.Second(), t.Nanosecond()
	if sec != 0 || nano != 0 {
		s += fmt.Sprintf(":%02d", sec)
		switch {
		case nano == 0:
		case nano%1_000_000 == 0:
			s += fmt.Sprintf(".%03d", nano/1_000_000)
		case nano%1_000 == 0:
			s += fmt.Sprintf(".%06d", nano/1_000)
		default:
			s += fmt.Sprintf(".%09d", nano)
		}
	}
	return s + "Z"
}

// ParseTimestamp parses a timestamp in the form FormatTimestamp writes and
// rejects any other spelling of the same instant, so a fixture cannot carry
// a timestamp upstream would never print.
func ParseTimestamp(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		var err2 error
		if t, err2 = time.Parse("2006-01-02T15:04Z07:00", s); err2 != nil {
			return time.Time{}, fmt.Errorf("timestamp %q: %w", s, err)
		}
	}
	if c := FormatTimestamp(t); c != s {
		return time.Time{}, fmt.Errorf("timestamp %q: upstream would print %q", s, c)
	}
	return t, nil
}
