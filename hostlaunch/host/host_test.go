package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCommandActivatesOnCommand(t *testing.T) {
	root := t.TempDir()
	e := ext(t, root, "a.hello", command("a.hello", "vscode.window.showInformationMessage('hi ' + a[0]); return {n: a[1] + 1};"))
	h := launch(t, root, Options{}, e)
	if h.Info().PID == 0 || !strings.HasPrefix(h.Info().Node, "v") {
		t.Errorf("handshake info %+v", h.Info())
	}
	r := run(t, h, "a.hello.cmd", "you", 41)
	if string(r.Value) != `{"n":42}` {
		t.Errorf("value %s, want {\"n\":42}", r.Value)
	}
	if got := texts(r.Events, KindMessage); !slices.Equal(got, []string{"a.hello: hi you"}) {
		t.Errorf("messages %q", got)
	}
	if got := texts(r.Events, KindActivated); len(got) != 1 {
		t.Errorf("activated events %q, want one", got)
	}
	// The second call activates nothing.
	r = run(t, h, "a.hello.cmd", "again", 0)
	if got := texts(r.Events, KindActivated); len(got) != 0 {
		t.Errorf("activated again: %q", got)
	}
}

func TestCommandErrors(t *testing.T) {
	root := t.TempDir()
	throwing := ext(t, root, "a.throws", "exports.activate = () => { throw new Error('boom in activate'); };\n")
	silent := ext(t, root, "a.silent", "exports.activate = () => {};\n")
	h := launch(t, root, Options{}, throwing, silent)
	for _, tc := range []struct {
		cmd, ext string
		is       error
		msg      string
	}{
		{"nobody.cmd", "", ErrNotFound, "command nobody.cmd not found"},
		{"a.throws.cmd", "a.throws", ErrActivation, "boom in activate"},
		{"a.silent.cmd", "a.silent", ErrNotFound, "was not registered by a.silent"},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			_, err := h.ExecuteCommand(t.Context(), tc.cmd)
			var ce *CommandError
			if !errors.As(err, &ce) || !errors.Is(err, tc.is) {
				t.Fatalf("err %v; want a CommandError matching %v", err, tc.is)
			}
			if ce.Extension != tc.ext || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err %q (extension %q); want %q naming %q", err, ce.Extension, tc.msg, tc.ext)
			}
		})
	}
	// The host is still there.
	if h.Err() != nil {
		t.Fatalf("host ended: %v", h.Err())
	}
}

func TestCloseDeactivates(t *testing.T) {
	root := t.TempDir()
	e := ext(t, root, "a.deact", "let dir;\n"+strings.Replace(command("a.deact", "return 1;"), "(ctx) => {", "(ctx) => { dir = ctx.globalStoragePath;", 1)+
		"exports.deactivate = () => require('fs').writeFileSync(dir + '/deactivated', 'yes');\n")
	hang := ext(t, root, "a.hang", command("a.hang", "return 1;")+"exports.deactivate = () => new Promise(() => {});\n")
	h := launch(t, root, Options{DeactivateTimeout: 300 * time.Millisecond}, e, hang)
	run(t, h, "a.hang.cmd")
	run(t, h, "a.deact.cmd") // deactivated first: reverse order
	start := time.Now()
	err := h.Close(context.Background())
	if err == nil || !strings.Contains(err.Error(), "a.hang") {
		t.Errorf("Close: %v; want the hanging deactivate named", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %v", d)
	}
	if _, err := os.Stat(filepath.Join(root, "storage", "a.deact", "global", "deactivated")); err != nil {
		t.Errorf("deactivate did not run: %v", err)
	}
	select {
	case <-h.Done():
	default:
		t.Error("host still running after Close")
	}
}
