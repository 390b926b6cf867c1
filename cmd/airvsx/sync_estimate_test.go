package main

import (
	"testing"
	"time"
)

func TestEstimate(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "under 1s"},
		{900 * time.Millisecond, "under 1s"},
		{18500 * time.Millisecond, "19s"},
		{3723 * time.Second, "1h2m3s"},
		{47 * time.Hour, "47h0m0s"},
		{200_000 * time.Second, "2d8h"},
		{400_000 * time.Second, "4d15h"},
	}
	for _, tt := range tests {
		if got := estimate(tt.d); got != tt.want {
			t.Errorf("estimate(%v) = %q; want %q", tt.d, got, tt.want)
		}
	}
}
