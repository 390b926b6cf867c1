package install_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/vsix/vsixtest"
)

func TestActivation(t *testing.T) {
	tests := []struct {
		name      string
		events    []string
		contrib   map[string]any
		partial   bool
		refused   string // a substring of the refusal, "" when installed
		want      []string
		ignored   []string
		wantEager bool
	}{
		{name: "honoured", events: []string{"onLanguage:go", "workspaceContains:**/go.mod", "onStartupFinished"},
			want: []string{"onLanguage:go", "workspaceContains:**/go.mod", "onStartupFinished", "onCommand:x.hello"}},
		{name: "eager", events: []string{"*"}, want: []string{"*", "onCommand:x.hello"}, wantEager: true},
		{name: "unhonoured listed", events: []string{"onDebug", "onUri"}, refused: `"onDebug", "onUri"`},
		{name: "view implied", events: []string{}, contrib: map[string]any{"views": map[string]any{"explorer": []map[string]string{{"id": "x.view", "name": "X"}}}},
			want: []string{"onCommand:x.hello", "onView:x.view"}},
		{name: "unhonoured implied", events: []string{}, contrib: map[string]any{"customEditors": []map[string]string{{"viewType": "x.editor", "displayName": "X"}}},
			refused: `"onCustomEditor:x.editor" (implied by contributes)`},
		{name: "unknown kind", events: []string{"onSomethingNew:x"}, refused: `"onSomethingNew:x"`},
		{name: "partial allowed", events: []string{"onDebug", "onCommand:x.other"}, partial: true,
			want: []string{"onCommand:x.other", "onCommand:x.hello"}, ignored: []string{"onDebug"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			contrib := map[string]any{"commands": []map[string]string{{"command": "x.hello", "title": "Hello"}}}
			for k, v := range tt.contrib {
				contrib[k] = v
			}
			file := writePkg(t, "act", "x", "1.0.0", map[string]any{"activationEvents": tt.events, "contributes": contrib}, nil)
			opts := options(t)
			opts.AllowPartialActivation = tt.partial
			res, err := install.FromFile(t.Context(), file, opts)
			if tt.refused != "" {
				if !errors.Is(err, install.ErrRefused) || !strings.Contains(err.Error(), tt.refused) || !strings.Contains(err.Error(), "--allow-partial-activation") {
					t.Fatalf("FromFile = %v; want a refusal naming %s", err, tt.refused)
				}
				return
			}
			if err != nil {
				t.Fatalf("FromFile: %v", err)
			}
			r := res.Installed[0]
			if !slices.Equal(r.Activation, tt.want) || !slices.Equal(r.Ignored, tt.ignored) || r.Eager != tt.wantEager {
				t.Errorf("activation %v, ignored %v, eager %v; want %v, %v, %v", r.Activation, r.Ignored, r.Eager, tt.want, tt.ignored, tt.wantEager)
			}
		})
	}
}

func TestManifestChecks(t *testing.T) {
	theme := map[string]any{"themes": []map[string]string{{"label": "T", "uiTheme": "vs-dark", "path": "./themes/t.json"}}}
	tests := []struct {
		name  string
		extra map[string]any
		files map[string]string
		want  string
	}{
		{"command without title", map[string]any{"contributes": map[string]any{"commands": []map[string]string{{"command": "x.a"}}}}, nil, "invalid-command"},
		{"language without id", map[string]any{"contributes": map[string]any{"languages": []map[string]string{{"aliases": "X"}}}}, nil, "invalid-language"},
		{"theme file missing", map[string]any{"main": nil, "contributes": theme}, nil, `contributes.themes[0].path: "./themes/t.json" is not a file in the package`},
		{"theme leaving the extension", map[string]any{"main": nil, "contributes": map[string]any{"themes": []map[string]string{{"path": "../extension.vsixmanifest"}}}}, nil, "is not a file in the package"},
		{"grammar without scopeName", map[string]any{"main": nil, "contributes": map[string]any{"grammars": []map[string]string{{"path": "./README.md"}}}}, nil, "contributes.grammars[0].scopeName: a string is required"},
		{"main missing", map[string]any{"main": "./out/main.js"}, nil, `main "./out/main.js" is not in the package`},
		{"browser only", map[string]any{"main": nil, "browser": "./extension.js"}, nil, "the airvsx host runs main in Node"},
		{"other platform", nil, map[string]string{"extension.vsixmanifest": strings.Replace(vsixtest.VSIXManifest("bad", "x", "1.0.0"), `Publisher="bad"`, `Publisher="bad" TargetPlatform="darwin-arm64"`, 1)}, "built for darwin-arm64; this machine is linux-x64"},
		{"engine", map[string]any{"engines": map[string]string{"vscode": "^1.999.0"}}, nil, "engines.vscode ^1.999.0 does not accept"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := writePkg(t, "bad", "x", "1.0.0", tt.extra, tt.files)
			opts := options(t)
			_, err := install.FromFile(t.Context(), file, opts)
			var re *install.RefusedError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("FromFile = %v; want a refusal saying %q", err, tt.want)
			}
			if _, err := os.Stat(filepath.Join(re.Quarantine, "REASON")); err != nil {
				t.Errorf("no REASON in quarantine: %v", err)
			}
		})
	}
	// The theme with its file installs; an unknown contribution point is
	// ignored.
	contrib := map[string]any{"themes": theme["themes"], "somethingNew": []string{"x"}}
	file := writePkg(t, "good", "theme", "1.0.0", map[string]any{"main": nil, "contributes": contrib}, map[string]string{"extension/themes/t.json": "{}", "extension/extension.js": ""})
	res, err := install.FromFile(t.Context(), file, options(t))
	if err != nil {
		t.Fatalf("theme: %v", err)
	}
	if r := res.Installed[0]; r.Main != "" || len(r.Activation) != 0 || r.Source.Kind != install.SourceLocalFile || r.Source.UpstreamSigned {
		t.Errorf("theme record %+v", r)
	}
}

// TestHostileRefused installs a hostile archive over a working
// installation: refused, quarantined byte for byte, nothing changed.
func TestHostileRefused(t *testing.T) {
	opts := options(t)
	installOK(t, opts)
	before := installedJSON(t, opts.Dir)
	for _, c := range vsixtest.Hostile()[:8] { // the name attacks: traversal, absolute, backslashes, ...
		t.Run(c.Name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "evil.vsix")
			if err := vsixtest.Write(file, c.Build); err != nil {
				t.Fatal(err)
			}
			_, err := install.FromFile(t.Context(), file, opts)
			var re *install.RefusedError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), string(c.Rule)) {
				t.Fatalf("FromFile(%s) = %v; want a refusal for %s", c.Name, err, c.Rule)
			}
			kept, err := os.ReadFile(filepath.Join(re.Quarantine, "evil.vsix"))
			orig, _ := os.ReadFile(file)
			if err != nil || !bytes.Equal(kept, orig) {
				t.Errorf("quarantined copy: %v (equal %v)", err, bytes.Equal(kept, orig))
			}
		})
	}
	if after := installedJSON(t, opts.Dir); !bytes.Equal(before, after) {
		t.Errorf("installed.json changed by refused installs")
	}
	l := loaded(t, opts)
	if len(l.Extensions) != 1 || !l.Extensions[0].Enabled {
		t.Errorf("after hostile installs: %+v", l.Extensions)
	}
	entries, _ := os.ReadDir(opts.Dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{".quarantine", "installed.json", "ok.x-1.0.0"}; !slices.Equal(names, want) {
		t.Errorf("extensions directory holds %v; want %v", names, want)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(opts.Dir), "x")); err == nil {
		t.Errorf("a file escaped the extensions directory")
	}
}

func TestTreeTamper(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(dir string) error
		want   string
	}{
		{"changed", func(d string) error { return os.WriteFile(filepath.Join(d, "extension.js"), []byte("evil()"), 0o644) }, "ok.x-1.0.0/extension.js changed"},
		{"added", func(d string) error { return os.WriteFile(filepath.Join(d, "a-new.js"), []byte("x"), 0o644) }, "ok.x-1.0.0/a-new.js added"},
		{"removed", func(d string) error { return os.Remove(filepath.Join(d, "README.md")) }, "ok.x-1.0.0/README.md removed"},
		{"symlink", func(d string) error {
			os.Remove(filepath.Join(d, "extension.js"))
			return os.Symlink("/etc/passwd", filepath.Join(d, "extension.js"))
		}, "extension.js is not a regular file"},
		{"folder gone", os.RemoveAll, "its folder ok.x-1.0.0 is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := options(t)
			installOK(t, opts)
			if l := loaded(t, opts); !l.Extensions[0].Enabled || len(l.Warnings) != 0 {
				t.Fatalf("fresh install: %+v", l)
			}
			if err := tt.tamper(filepath.Join(opts.Dir, "ok.x-1.0.0")); err != nil {
				t.Fatal(err)
			}
			l := loaded(t, opts)
			r := l.Extensions[0]
			if r.Enabled || !strings.Contains(r.Reason, tt.want) || len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], tt.want) {
				t.Errorf("after tampering: enabled %v, reason %q, warnings %q; want disabled naming %q", r.Enabled, r.Reason, l.Warnings, tt.want)
			}
			// Installing again repairs it.
			installOK(t, opts)
			if l := loaded(t, opts); !l.Extensions[0].Enabled {
				t.Errorf("reinstall: still disabled: %s", l.Extensions[0].Reason)
			}
		})
	}
}

func TestUninstall(t *testing.T) {
	opts := options(t)
	if _, err := install.FromRegistry(t.Context(), registry(t), "airvsx-demo.uses-git", opts); err != nil {
		t.Fatal(err)
	}
	helper, user := index.MustParseID("airvsx-demo.git-helper"), index.MustParseID("airvsx-demo.uses-git")

	_, err := install.Uninstall(t.Context(), opts.Dir, helper, false, dirOpts(opts))
	if !errors.Is(err, install.ErrRefused) || !strings.Contains(err.Error(), "airvsx-demo.uses-git depends on it") {
		t.Fatalf("Uninstall(git-helper) = %v; want a refusal naming uses-git", err)
	}
	if l := loaded(t, opts); len(l.Extensions) != 2 {
		t.Fatalf("after a refused uninstall: %v", ids(l.Extensions))
	}
	if _, err := install.Uninstall(t.Context(), opts.Dir, index.MustParseID("nobody.x"), false, dirOpts(opts)); !errors.Is(err, install.ErrNotInstalled) {
		t.Errorf("Uninstall(nobody.x) = %v; want ErrNotInstalled", err)
	}

	// Forced: the dependent stays, disabled.
	if _, err := install.Uninstall(t.Context(), opts.Dir, helper, true, dirOpts(opts)); err != nil {
		t.Fatalf("Uninstall --force: %v", err)
	}
	l := loaded(t, opts)
	if len(l.Extensions) != 1 || l.Extensions[0].Enabled || !strings.Contains(l.Extensions[0].Reason, "its dependency airvsx-demo.git-helper was uninstalled") {
		t.Errorf("after --force: %+v", l.Extensions)
	}
	// Installing the dependency again enables the dependent.
	if _, err := install.FromRegistry(t.Context(), registry(t), "airvsx-demo.git-helper", opts); err != nil {
		t.Fatal(err)
	}
	if r := loaded(t, opts).Find(user); !r.Enabled {
		t.Errorf("after reinstalling git-helper, uses-git is still disabled: %s", r.Reason)
	}
	// Forced out again, installing the dependent brings it back first.
	if _, err := install.Uninstall(t.Context(), opts.Dir, helper, true, dirOpts(opts)); err != nil {
		t.Fatal(err)
	}
	if res, err := install.FromRegistry(t.Context(), registry(t), "airvsx-demo.uses-git", opts); err != nil || len(res.Installed) == 0 || res.Installed[0].ID != helper {
		t.Fatalf("reinstall of uses-git: %v; want git-helper installed first", err)
	}
	if r := loaded(t, opts).Find(user); !r.Enabled {
		t.Errorf("after reinstalling git-helper, uses-git is still disabled: %s", r.Reason)
	}
	if _, err := install.Uninstall(t.Context(), opts.Dir, user, false, dirOpts(opts)); err != nil {
		t.Fatal(err)
	}
	if _, err := install.Uninstall(t.Context(), opts.Dir, helper, false, dirOpts(opts)); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(opts.Dir)
	if len(entries) != 1 || entries[0].Name() != install.IndexFile {
		t.Errorf("after uninstalling everything the directory holds %v; want only installed.json", entries)
	}
	if l := loaded(t, opts); len(l.Extensions) != 0 {
		t.Errorf("records left: %v", ids(l.Extensions))
	}
}

func TestLocalFileDependencies(t *testing.T) {
	opts := options(t)
	file := writePkg(t, "dep", "user", "1.0.0", map[string]any{"extensionDependencies": []string{"dep.lib"}}, nil)
	if _, err := install.FromFile(t.Context(), file, opts); !errors.Is(err, install.ErrRefused) || !strings.Contains(err.Error(), "needs dep.lib, not installed") {
		t.Fatalf("FromFile without its dependency = %v", err)
	}
	if _, err := install.FromFile(t.Context(), writePkg(t, "dep", "lib", "1.0.0", nil, nil), opts); err != nil {
		t.Fatal(err)
	}
	if _, err := install.FromFile(t.Context(), file, opts); err != nil {
		t.Fatalf("FromFile with its dependency installed: %v", err)
	}
}
