//go:build !unix

package store

import "os"

// lockFile does nothing where flock is missing: there, one writer at a
// time is the caller's business.
func lockFile(*os.File) error { return nil }
