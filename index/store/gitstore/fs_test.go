package gitstore_test

import (
	"io/fs"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/airvsx/airvsx/index/store/gitstore"
	"github.com/airvsx/airvsx/testkit/signtest"
)

// TestFS: the commit's tree as an fs.FS passes the standard library's
// file system checks, holds what the commit holds, and does not show a
// change not yet committed.
func TestFS(t *testing.T) {
	path := filepath.Join(t.TempDir(), "reg.git")
	s, err := gitstore.Open(path, gitstore.Options{Write: true, Create: true, Signer: signtest.Signer(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for name, data := range map[string]string{"timestamp.json": "{}", "targets/a.json": "[]"} {
		if err := s.WriteMetadata(t.Context(), name, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Commit(t.Context(), "two files"); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteMetadata(t.Context(), "root.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	fsys := s.FS()
	if err := fstest.TestFS(fsys, "airvsx-registry", "metadata/timestamp.json", "metadata/targets/a.json"); err != nil {
		t.Fatal(err)
	}
	if b, err := fs.ReadFile(fsys, "metadata/targets/a.json"); err != nil || string(b) != "[]" {
		t.Errorf("ReadFile = %q, %v; want []", b, err)
	}
	if _, err := fs.Stat(fsys, "metadata/root.json"); err == nil {
		t.Errorf("a write not committed is in the tree's FS")
	}
}
