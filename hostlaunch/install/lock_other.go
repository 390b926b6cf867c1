//go:build !unix

package install

import "os"

// lockDir does nothing where flock is missing: there, one install at a
// time is the caller's business.
func lockDir(*os.File) error { return nil }
