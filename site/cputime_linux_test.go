package site

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// cpuTime runs f on a locked OS thread and returns the CPU time that
// thread spent in it (user and system), which a loaded machine does not
// inflate the way it does wall time.
func cpuTime(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var before, after unix.Rusage
	if unix.Getrusage(unix.RUSAGE_THREAD, &before) != nil {
		start := time.Now()
		f()
		return time.Since(start)
	}
	f()
	if unix.Getrusage(unix.RUSAGE_THREAD, &after) != nil {
		return 0
	}
	used := func(r *unix.Rusage) time.Duration {
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	return used(&after) - used(&before)
}
