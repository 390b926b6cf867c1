//go:build linux && !amd64 && !arm64

package sandbox

// seccompTestSpec is nil: there is no filter for this architecture, and
// the tests check that seccompProgram says so.
func seccompTestSpec() *seccompSpec { return nil }

// forkNr is the fork system call's number (-1: unknown here).
const forkNr = -1
