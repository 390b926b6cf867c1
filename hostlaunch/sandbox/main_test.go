package sandbox

import (
	"os"
	"strings"
	"testing"
)

// children are functions a test runs in a re-executed test binary: the
// child runs children[$AIRVSX_TEST_CHILD] (or, where the environment is
// not the test's to set, as in a brokered program, the one its first
// argument names: childArg+NAME) and exits.
var children = map[string]func(){}

// childEnv names the child function a re-executed test binary runs;
// childArg starts an argument that does.
const (
	childEnv = "AIRVSX_TEST_CHILD"
	childArg = "-airvsx.child="
)

func TestMain(m *testing.M) {
	Helper() // the sandbox helper mode: never returns when selected
	name := os.Getenv(childEnv)
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], childArg) {
		name = strings.TrimPrefix(os.Args[1], childArg)
	}
	if name != "" {
		f, ok := children[name]
		if !ok {
			os.Stderr.WriteString("no test child " + name + "\n")
			os.Exit(3)
		}
		f()
		os.Exit(0)
	}
	os.Exit(m.Run())
}
