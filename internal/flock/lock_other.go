//go:build !unix

package flock

import "os"

// TryLock does nothing where flock is missing: there, one writer at a
// time is the caller's business.
func TryLock(*os.File, error) error { return nil }
