package sandbox

import (
	"os"
	"testing"
)

// children are functions a test runs in a re-executed test binary: the
// child runs children[$AIRVSX_TEST_CHILD] and exits.
var children = map[string]func(){}

// childEnv names the child function a re-executed test binary runs.
const childEnv = "AIRVSX_TEST_CHILD"

func TestMain(m *testing.M) {
	Helper() // the sandbox helper mode: never returns when selected
	if name := os.Getenv(childEnv); name != "" {
		f, ok := children[name]
		if !ok {
			os.Stderr.WriteString("no test child " + name + "\n")
			os.Exit(3)
		}
		f()
		os.Exit(0)
	}
	code := m.Run()
	removeProbe()
	os.Exit(code)
}
