package retry

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		v    string
		want time.Duration
		ok   bool
	}{
		{"seconds", "7", 7 * time.Second, true},
		{"zero", "0", 0, true},
		{"leading zeros", "007", 7 * time.Second, true},
		{"spaces", " 12\t", 12 * time.Second, true},
		{"IMF-fixdate", now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{"RFC 850", now.Add(time.Minute).Format(time.RFC850), time.Minute, true},
		{"asctime", now.Add(time.Hour).Format(time.ANSIC), time.Hour, true},
		{"past date", now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"max", strconv.Itoa(1 << 31), MaxDelay, true},
		{"past max", strconv.Itoa(1<<31 + 1), MaxDelay, true},
		{"huge", "99999999999999999", MaxDelay, true},
		{"overflowing", strings.Repeat("9", 400), MaxDelay, true},
		{"far date", "Fri, 31 Dec 9999 23:59:59 GMT", MaxDelay, true},
		{"empty", "", 0, false},
		{"blank", "  ", 0, false},
		{"negative", "-1", 0, false},
		{"plus", "+5", 0, false},
		{"fraction", "1.5", 0, false},
		{"inner space", "1 0", 0, false},
		{"hex", "0x10", 0, false},
		{"word", "soon", 0, false},
		{"non-ASCII digits", "٣", 0, false},
		{"date without zone", "Fri, 02 Jan 2026 03:04:05", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseRetryAfter(tt.v, now)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tt.v, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestParseSeconds(t *testing.T) {
	tests := []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{"3", 3 * time.Second, true},
		{"2147483647", 2147483647 * time.Second, true},
		{"2147483648", MaxDelay, true},
		{"18446744073709551616", MaxDelay, true},
		{"", 0, false},
		{" 3", 0, false},
		{"3s", 0, false},
		{"-0", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseSeconds(tt.v)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseSeconds(%q) = %v, %v; want %v, %v", tt.v, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzParseRetryAfter checks the parser against the rules: a delay is
// never negative nor past MaxDelay; digits are read exactly (up to
// MaxDelay); any other value is accepted exactly when net/http's ParseTime
// reads it as a date, and then means the time from now to that date.
func FuzzParseRetryAfter(f *testing.F) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, s := range []string{"0", "120", " 7 ", "-1", "+5", "1.5", "99999999999999999999",
		now.Format(http.TimeFormat), now.Add(time.Hour).Format(time.RFC850), now.Format(time.ANSIC),
		"Fri, 31 Dec 9999 23:59:59 GMT", "Mon, 01 Jan 0001 00:00:00 GMT", "soon", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := ParseRetryAfter(v, now)
		if d < 0 || d > MaxDelay || !ok && d != 0 {
			t.Fatalf("ParseRetryAfter(%q) = %v, %v; want 0 ≤ d ≤ %v, 0 when not ok", v, d, ok, MaxDelay)
		}
		tv := strings.TrimSpace(v)
		if tv != "" && strings.Trim(tv, "0123456789") == "" {
			want := MaxDelay
			if n, err := strconv.ParseInt(tv, 10, 64); err == nil && n < int64(MaxDelay/time.Second) {
				want = time.Duration(n) * time.Second
			}
			if !ok || d != want {
				t.Fatalf("ParseRetryAfter(%q) = %v, %v; want %v, true", v, d, ok, want)
			}
			return
		}
		date, err := http.ParseTime(tv)
		if ok != (err == nil) {
			t.Fatalf("ParseRetryAfter(%q) ok = %v; http.ParseTime error %v", v, ok, err)
		}
		if ok {
			if want := min(max(date.Sub(now), 0), MaxDelay); d != want {
				t.Fatalf("ParseRetryAfter(%q) = %v; want %v (date %v)", v, d, want, date)
			}
		}
	})
}
