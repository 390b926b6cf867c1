package host

import (
	"context"
	"os/exec"
	"slices"
	"testing"
)

// TestCommandFuncWraps: a CommandFunc can put a program between the
// launcher and node (as the sandbox helper will) and the channel on fd 3
// and the environment still arrive; the Spec says what a sandbox must
// allow.
func TestCommandFuncWraps(t *testing.T) {
	env, err := exec.LookPath("env")
	if err != nil {
		t.Skip("no env program")
	}
	root := t.TempDir()
	e := ext(t, root, "a.wrapped", command("a.wrapped", "return process.env.WRAPPED;"))
	e.Capabilities = []string{"network"}
	var got Spec
	wrap := func(_ context.Context, s Spec) (*exec.Cmd, error) {
		got = s
		args := append(append([]string{"-i", "WRAPPED=yes"}, s.Env...), append([]string{s.Node}, s.Args...)...)
		return exec.Command(env, args...), nil
	}
	h := launch(t, root, Options{Command: wrap}, e)
	if r := run(t, h, "a.wrapped.cmd"); string(r.Value) != `"yes"` {
		t.Errorf("value %s, want \"yes\" from the wrapper", r.Value)
	}
	if got.HostDir == "" || !slices.Equal(got.ExtensionDirs, []string{e.Path}) || !slices.Equal(got.Capabilities, []string{"network"}) || !slices.Contains(got.Env, "NODE_CHANNEL_FD=3") {
		t.Errorf("spec %+v", got)
	}
}
