//go:build linux && !amd64 && !arm64

package sandbox

// seccompTestSpec is nil: there is no filter for this architecture, and
// the tests check that seccompProgram says so.
func seccompTestSpec() *seccompSpec { return nil }
