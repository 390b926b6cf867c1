package session_test

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/airvsx/airvsx/hostlaunch/host"
	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/hostlaunch/sandbox"
	"github.com/airvsx/airvsx/hostlaunch/session"
	"github.com/airvsx/airvsx/testkit/citool"
	"github.com/airvsx/airvsx/testkit/filetest"
)

func TestMain(m *testing.M) {
	sandbox.Helper() // the sandbox helper mode: never returns when selected
	os.Exit(m.Run())
}

// vsixDir holds the packages of the host tests.
const vsixDir = "../../testdata/vsix/host"

// installed installs the startup-lib and startup-app packages (app
// depends on lib; both activate at start) into root/extensions, sealed
// with the key of root/state.
func installed(t *testing.T, root string) (dir, state string) {
	t.Helper()
	dir, state = filepath.Join(root, "extensions"), filepath.Join(root, "state")
	for _, f := range []string{"airvsx-test.startup-lib-1.0.0.vsix", "airvsx-test.startup-app-1.0.0.vsix"} {
		if _, err := install.FromFile(t.Context(), filepath.Join(vsixDir, f), install.Options{Dir: dir, StateDir: state}); err != nil {
			t.Fatalf("install %s: %v", f, err)
		}
	}
	return dir, state
}

// TestOpen starts a session on two installed extensions, in the kernel
// sandbox: the hosts activate both, the isolation Open reports is the one
// recorded in installed.json, the audit log is made (0600), and Close
// records the activations and removes the temporary storage.
func TestOpen(t *testing.T) {
	node := citool.Need(t, "node")
	root := t.TempDir()
	dir, state := installed(t, root)
	audit := filepath.Join(root, "audit.jsonl")
	tmp := filepath.Join(root, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp) // where the temporary storage goes
	ctx := t.Context()
	s, err := session.Open(ctx, session.Options{Extensions: dir, StateDir: state, Node: node, AuditLog: audit, NeedInstalled: true})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	closed := false
	defer func() {
		if !closed {
			s.Close(ctx)
		}
	}()
	var ids []string
	for _, e := range s.Extensions() {
		ids = append(ids, e.ID)
	}
	slices.Sort(ids)
	if want := []string{"airvsx-test.startup-app", "airvsx-test.startup-lib"}; !slices.Equal(ids, want) {
		t.Errorf("Extensions() = %q; want %q", ids, want)
	}
	if len(s.Disabled()) != 0 {
		t.Errorf("Disabled() = %v; want none", s.Disabled())
	}
	startup, err := s.Pool().Settle(ctx)
	if err != nil {
		t.Fatalf("Settle: %v", err)
	}
	if len(startup.Activated) != 2 || len(startup.Failed) != 0 {
		t.Errorf("the activations at start: %+v; want both extensions activated", startup)
	}
	l, err := install.Load(ctx, dir, install.DirOptions{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	if l.Isolation == nil || l.Isolation.Layers != s.Isolation().Layers || l.Isolation.Degraded != s.Isolation().Degraded || s.Isolation().Layers == "" {
		t.Errorf("installed.json records isolation %+v; Isolation() = %+v; want the same, not empty", l.Isolation, s.Isolation())
	}
	fi, err := os.Stat(audit)
	if err != nil {
		t.Fatalf("the audit log: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the audit log's mode is %v; want 0600", fi.Mode().Perm())
	}
	if left := filetest.Files(t, tmp); len(left) == 0 {
		t.Errorf("no temporary storage in TMPDIR %s while the session runs", tmp)
	}

	s.Close(ctx)
	closed = true
	if left := filetest.Files(t, tmp); len(left) != 0 {
		t.Errorf("Close left in TMPDIR: %v", slices.Sorted(maps.Keys(left)))
	}
	l, err = install.Load(ctx, dir, install.DirOptions{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range l.Extensions {
		if r.LastActivation.IsZero() {
			t.Errorf("%s: no last activation recorded at Close", r.ID)
		}
	}
}

// TestOpenErrors: what Open refuses, each before any host starts, with
// the error a caller tells apart.
func TestOpenErrors(t *testing.T) {
	root := t.TempDir()
	dir, state := installed(t, filepath.Join(root, "full"))
	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(root, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	badSettings := filepath.Join(root, "settings.json")
	filetest.WriteFile(t, badSettings, []byte(`{"a": 1,`))
	tests := []struct {
		name  string
		opts  session.Options
		check func(error) bool
		want  string
	}{
		{"missing directory", session.Options{Extensions: filepath.Join(root, "nowhere")},
			func(err error) bool { return errors.Is(err, fs.ErrNotExist) }, "an error wrapping fs.ErrNotExist"},
		{"nothing installed", session.Options{Extensions: empty, NeedInstalled: true},
			func(err error) bool {
				return errors.Is(err, session.ErrNothingInstalled) && err.Error() == "nothing installed in "+empty
			}, "ErrNothingInstalled naming the directory"},
		{"audit log not a file", session.Options{Extensions: dir, StateDir: state, AuditLog: fifo},
			func(err error) bool {
				return err != nil && strings.Contains(err.Error(), "audit log "+fifo+": not a regular file")
			},
			"the audit log refused"},
		{"damaged settings", session.Options{Extensions: dir, StateDir: state, Settings: badSettings},
			func(err error) bool {
				return err != nil && strings.HasPrefix(err.Error(), "settings "+badSettings+": ")
			},
			"the settings file named"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := session.Open(t.Context(), tt.opts)
			if err == nil {
				s.Close(t.Context())
			}
			if !tt.check(err) {
				t.Errorf("Open = %v; want %s", err, tt.want)
			}
		})
	}
	// Refused for having nothing installed, the directory was left as it
	// was: no isolation recorded.
	if _, err := os.Stat(filepath.Join(empty, "installed.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open wrote installed.json in an empty directory it refused (stat: %v)", err)
	}
}

// TestDocuments: a document opened in the session activates its
// language's extension, Format applies the formatter's edits and
// SaveDirty writes them back to the workspace file; a language no
// extension formats is an error saying so.
func TestDocuments(t *testing.T) {
	node := citool.Need(t, "node")
	root := t.TempDir()
	dir, state := filepath.Join(root, "extensions"), filepath.Join(root, "state")
	if _, err := install.FromFile(t.Context(), filepath.Join(vsixDir, "airvsx-demo.lang-tools-1.0.0.vsix"), install.Options{Dir: dir, StateDir: state}); err != nil {
		t.Fatalf("install: %v", err)
	}
	ws := filepath.Join(root, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	file, notes := filepath.Join(ws, "b.demo"), filepath.Join(ws, "notes.txt")
	filetest.WriteFile(t, file, []byte("top {\nprint x   \n  inner {\nTODO\n}\n}\n"))
	filetest.WriteFile(t, notes, []byte("plain text\n"))
	ctx := t.Context()
	s, err := session.Open(ctx, session.Options{Extensions: dir, StateDir: state, Node: node, Workspace: []string{ws}})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close(ctx)
	if _, err := s.Pool().Settle(ctx); err != nil {
		t.Fatalf("Settle: %v", err)
	}

	doc, activated, _, err := s.OpenDocument(ctx, host.Document{Path: file})
	if err != nil {
		t.Fatalf("OpenDocument(%s): %v", file, err)
	}
	if !strings.HasPrefix(doc.URI, "file://") || !strings.HasSuffix(doc.URI, "/ws/b.demo") || !slices.Contains(activated, "airvsx-demo.lang-tools") {
		t.Errorf("OpenDocument(%s) = %q, activated %q; want its file URI, lang-tools activated", file, doc.URI, activated)
	}
	if _, err := s.Format(ctx, doc.URI); err != nil {
		t.Fatalf("Format(%s): %v", doc.URI, err)
	}
	if b, err := os.ReadFile(file); err != nil || !strings.HasPrefix(string(b), "top {\nprint x   \n") {
		t.Errorf("the file changed before SaveDirty: %q, %v", b, err)
	}
	saved, _, err := s.SaveDirty(ctx)
	if err != nil {
		t.Fatalf("SaveDirty: %v", err)
	}
	if !slices.Equal(saved, []string{doc.URI}) {
		t.Errorf("SaveDirty saved %q; want [%q]", saved, doc.URI)
	}
	want := "top {\n  print x\n  inner {\n    TODO\n  }\n}\n"
	if b, err := os.ReadFile(file); err != nil || string(b) != want {
		t.Errorf("after Format and SaveDirty the file holds %q (%v); want %q", b, err, want)
	}

	txt, _, _, err := s.OpenDocument(ctx, host.Document{Path: notes})
	if err != nil {
		t.Fatalf("OpenDocument(%s): %v", notes, err)
	}
	if _, err := s.Format(ctx, txt.URI); err == nil || !strings.Contains(err.Error(), "no installed extension formats this document's language") {
		t.Errorf("Format(%s) = %v; want an error saying no extension formats its language", txt.URI, err)
	}
	if saved, _, err := s.SaveDirty(ctx); err != nil || len(saved) != 0 {
		t.Errorf("SaveDirty with nothing changed = %q, %v; want nothing saved", saved, err)
	}
}
