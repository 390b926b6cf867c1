// Package citool is what a test does when a program that CI installs
// (node, oras, the distribution registry) is missing: on a developer's
// machine the test is skipped; in CI, where the CI environment variable
// is set, it fails, for there the program must be installed.
package citool

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// InCI reports whether the tests run in CI: the CI environment variable
// is set.
func InCI() bool { return os.Getenv("CI") != "" }

// Need returns the path of the program name on PATH. Without one, tb is
// skipped, or failed in CI.
func Need(tb testing.TB, name string) string {
	tb.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if InCI() {
			tb.Fatalf("%s is not on PATH in CI: %v", name, err)
		}
		tb.Skip(name + " is not on PATH")
	}
	return p
}

// Condition is Need for a testscript condition, given the error of
// looking the program up: true when it was found; where it is missing,
// false outside CI (the script skips) and in CI an error saying msg.
func Condition(err error, msg string) (bool, error) {
	if err == nil {
		return true, nil
	}
	if InCI() {
		return false, fmt.Errorf("%s: %w", msg, err)
	}
	return false, nil
}
