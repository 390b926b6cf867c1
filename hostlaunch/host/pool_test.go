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

	"github.com/airvsx/airvsx/testkit/citool"
)

func TestGroups(t *testing.T) {
	e := func(id string, caps []string, deps ...string) Extension {
		return Extension{ID: id, Capabilities: caps, Dependencies: deps}
	}
	for _, tc := range []struct {
		name string
		in   []Extension
		want string
	}{
		{"none", nil, ""},
		{"same capabilities", []Extension{e("a", nil), e("b", nil)}, "a b"},
		{"by capability set", []Extension{e("net", []string{"network"}), e("plain", nil), e("net2", []string{"network"}), e("both", []string{"spawn", "network"}), e("both2", []string{"network", "spawn"})},
			"plain | net net2 | both both2"},
		{"by allowed hosts and programs", []Extension{
			{ID: "git", Capabilities: []string{"spawn"}, Programs: []string{"/usr/bin/git"}},
			{ID: "echo", Capabilities: []string{"spawn"}, Programs: []string{"/bin/echo"}},
			{ID: "git2", Capabilities: []string{"spawn"}, Programs: []string{"/usr/bin/git"}},
			{ID: "a", Capabilities: []string{"network"}, AllowedHosts: []string{"a.example"}},
			{ID: "b", Capabilities: []string{"network"}, AllowedHosts: []string{"b.example"}},
		}, "git git2 | echo | a | b"},
		// No grant by dependency: user shares other's host, not spawner's.
		{"dependencies apart when granted differently", []Extension{e("spawner", []string{"spawn"}), e("user", nil, "Spawner"), e("other", nil)}, "user other | spawner"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var parts []string
			for _, g := range Groups(tc.in) {
				var ids []string
				for _, x := range g {
					ids = append(ids, x.ID)
				}
				parts = append(parts, strings.Join(ids, " "))
			}
			if got := strings.Join(parts, " | "); got != tc.want {
				t.Errorf("Groups = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestPool: extensions with different capabilities run in different
// processes; commands reach the right one.
func TestPool(t *testing.T) {
	citool.Need(t, "node")
	root := t.TempDir()
	plain := ext(t, root, "a.plain", command("a.plain", "return process.pid;"))
	net := ext(t, root, "a.net", command("a.net", "return process.pid;"))
	net.Capabilities = []string{"network"}
	// a.dyn registers a command no activation event names.
	dyn := ext(t, root, "a.dyn", "exports.activate = () => { vscode.commands.registerCommand('dyn.late', () => process.pid); };\n", "*")
	dyn.Capabilities = []string{"network"}
	p, err := LaunchPool(t.Context(), Options{Extensions: []Extension{plain, net, dyn}, StorageDir: filepath.Join(root, "storage")}, SuperviseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	if n := len(p.Hosts()); n != 2 {
		t.Fatalf("%d hosts, want 2", n)
	}
	pid := func(cmd string) string {
		r, err := p.ExecuteCommand(t.Context(), cmd)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		return string(r.Value)
	}
	a, b, c := pid("a.plain.cmd"), pid("a.net.cmd"), pid("dyn.late")
	if a == b || b != c {
		t.Errorf("pids: a.plain %s, a.net %s, a.dyn %s; want a.net and a.dyn together, a.plain apart", a, b, c)
	}
	if got := p.Startup().Activated; !slices.Equal(got, []string{"a.dyn"}) {
		t.Errorf("startup %q", got)
	}
	if _, err := p.ExecuteCommand(t.Context(), "none.such"); !errors.Is(err, ErrNotFound) {
		t.Errorf("none.such: %v", err)
	}
}

// TestPoolStartupOrder: at start a dependency activates before its
// dependent also when they run in two hosts (the dependent, "*", waits
// for its onStartupFinished dependency of another host), and Settle waits
// for the onStartupFinished activations and lists every activation in an
// order that puts dependencies first, whatever the timing.
func TestPoolStartupOrder(t *testing.T) {
	citool.Need(t, "node")
	root := t.TempDir()
	ws := workspace(t, root)
	// Each extension appends its ID to order.txt in the workspace as it
	// activates: the order the hosts really activated them in.
	note := func(id string) string {
		return "exports.activate = () => { require('fs').appendFileSync(" + "require('path').join(vscode.workspace.workspaceFolders[0].uri.fsPath, 'order.txt'), '" + id + "\\n'); };\n"
	}
	app := ext(t, root, "a.app", note("a.app"), "*")
	app.Dependencies = []string{"a.lib"}
	lib := ext(t, root, "a.lib", note("a.lib"), "onStartupFinished")
	lib.Capabilities = []string{"network"}
	star := ext(t, root, "a.star", note("a.star"), "*")
	late := ext(t, root, "a.late", note("a.late"), "onStartupFinished")
	p, err := LaunchPool(t.Context(), Options{Extensions: []Extension{app, star, late, lib}, Workspace: []string{ws}, StorageDir: filepath.Join(root, "storage")}, SuperviseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	st, err := p.Settle(ctx)
	if err != nil || len(st.Failed) > 0 {
		t.Fatalf("Settle: %v, failed %v", err, st.Failed)
	}
	if want := []string{"a.lib", "a.app", "a.star", "a.late"}; !slices.Equal(st.Activated, want) {
		t.Errorf("Settle activated %q, want %q", st.Activated, want)
	}
	b, err := os.ReadFile(filepath.Join(ws, "order.txt"))
	if err != nil {
		t.Fatal(err)
	}
	order := strings.Fields(string(b))
	if len(order) != 4 || slices.Index(order, "a.lib") > slices.Index(order, "a.app") {
		t.Errorf("the hosts activated %q; want all four, a.lib before a.app", order)
	}
}
