package gitstore_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/gitstore"
	"github.com/airvsx/airvsx/index/store/storetest"
)

// TestDiscard: Discard removes a repository this open created (with the
// missing parents made for it) while it holds nothing but its marker,
// and keeps one that holds a blob or that existed.
func TestDiscard(t *testing.T) {
	for _, tc := range []struct {
		name        string
		path        string // under a fresh base
		existed     bool   // opened once (and closed) before
		putBlob     bool
		wantRemoved bool
		gone, kept  string // paths under base
	}{
		{name: "new bare", path: "g.git", wantRemoved: true, gone: "g.git"},
		{name: "new work tree", path: "w", wantRemoved: true, gone: "w"},
		{name: "new with parents", path: "a/b/g.git", wantRemoved: true, gone: "a"},
		{name: "a blob stored", path: "g.git", putBlob: true, kept: "g.git/HEAD"},
		{name: "existed", path: "g.git", existed: true, kept: "g.git/HEAD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			path := filepath.Join(base, filepath.FromSlash(tc.path))
			opts := gitstore.Options{Write: true, Create: true}
			if tc.existed {
				s, err := gitstore.Open(path, opts)
				if err != nil {
					t.Fatal(err)
				}
				s.Close()
			}
			s, err := gitstore.Open(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			if tc.putBlob {
				b := []byte("stored")
				if err := s.PutBlob(t.Context(), "pub/ext", index.DigestBytes(b), int64(len(b)), store.BytesContent(b)); err != nil {
					t.Fatal(err)
				}
			}
			if removed := storetest.DiscardAndClose(t, s); removed != tc.wantRemoved {
				t.Errorf("Discard removed it: %v; want %v", removed, tc.wantRemoved)
			}
			if tc.gone != "" {
				if _, err := os.Lstat(filepath.Join(base, tc.gone)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s is left (%v)", tc.gone, err)
				}
			}
			if tc.kept != "" {
				if _, err := os.Lstat(filepath.Join(base, tc.kept)); err != nil {
					t.Errorf("%s is gone: %v", tc.kept, err)
				}
			}
			if _, err := os.Lstat(base); err != nil {
				t.Errorf("the parent that existed is gone: %v", err)
			}
		})
	}
}
