package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/testkit/filetest"
)

// TestWorkspaceFS: workspace.fs reaches the workspace folders through the
// launcher's broker (write, read, stat, list, delete), and nothing
// outside them: not another path, not a ".." and not a symbolic link out
// of the workspace; each refusal names the capability it would need.
func TestWorkspaceFS(t *testing.T) {
	root := t.TempDir()
	ws := workspace(t, root, "sub")
	outside := filepath.Join(root, "secret.txt")
	filetest.WriteFile(t, outside, []byte("secret"))
	if err := os.Symlink(outside, filepath.Join(ws, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(ws, "linkdir")); err != nil {
		t.Fatal(err)
	}
	e := ext(t, root, "a.files", command("a.files", `
const fs = vscode.workspace.fs, base = vscode.workspace.workspaceFolders[0].uri;
const f = vscode.Uri.joinPath(base, 'sub', 'note.txt');
if (a[0] === 'roundtrip') {
  await fs.writeFile(f, Buffer.from('hello'));
  const text = Buffer.from(await fs.readFile(f)).toString();
  const st = await fs.stat(f);
  const list = await fs.readDirectory(vscode.Uri.joinPath(base, 'sub'));
  await fs.delete(f);
  let gone = false;
  try { await fs.stat(f); } catch { gone = true; }
  return [text, st.type === vscode.FileType.File, st.size, list, gone];
}
try { await fs.readFile(vscode.Uri.file(a[1])); return 'read'; } catch (err) { return err.message; }
`))
	h := launch(t, root, Options{Workspace: []string{ws}}, e)

	r := run(t, h, "a.files.cmd", "roundtrip")
	if got, want := string(r.Value), `["hello",true,5,[["note.txt",1]],true]`; got != want {
		t.Errorf("round trip %s; want %s", got, want)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "sub", "note.txt")); err == nil {
		t.Errorf("note.txt still there after delete: %q", b)
	}
	for _, tc := range []struct{ name, path, want string }{
		{"outside the workspace", outside, "outside the workspace folders; a.files would need the fsWide capability"},
		{"dot dot", ws + "/../secret.txt", "outside the workspace folders"},
		{"symbolic link out", filepath.Join(ws, "link.txt"), "link.txt is a symbolic link, not a regular file"},
		{"through a linked directory", filepath.Join(ws, "linkdir", "secret.txt"), "leads out of the workspace"},
		{"system file", "/etc/passwd", "fsWide"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, h, "a.files.cmd", "read", tc.path)
			if !strings.Contains(string(r.Value), tc.want) || strings.Contains(string(r.Value), "secret") && !strings.Contains(string(r.Value), "secret.txt") {
				t.Errorf("reading %s: %s; want refused with %q", tc.path, r.Value, tc.want)
			}
		})
	}
}
