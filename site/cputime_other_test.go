//go:build !linux

package site

import "time"

// cpuTime returns the wall time f takes (the thread's CPU time is
// measured on Linux only).
func cpuTime(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
