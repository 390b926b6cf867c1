package gitstore_test

import (
	"bytes"
	"compress/zlib"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/gitstore"
	"github.com/airvsx/airvsx/index/store/storetest"
)

// tamperObject flips one byte of a loose object's content, keeping its
// name and size: the object no longer is what its ID says.
func tamperObject(t *testing.T, gitDir string, h plumbing.Hash) {
	t.Helper()
	p := filepath.Join(gitDir, "objects", h.String()[:2], h.String()[2:])
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zlib.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-1-len(data)/4] ^= 1
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestConformance(t *testing.T) {
	for _, kind := range []string{"bare.git", "worktree"} {
		t.Run(kind, func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) store.Store {
				s, err := gitstore.Open(filepath.Join(t.TempDir(), kind), gitstore.Options{Write: true, Create: true})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
				return s
			}, storetest.Options{Tamper: func(t *testing.T, st store.Store, repo, digest string) {
				s := st.(*gitstore.Store)
				h, ok, err := s.BlobObject(repo, digest)
				if err != nil || !ok {
					t.Fatalf("BlobObject(%s, %s) = %v, %v", repo, digest, ok, err)
				}
				tamperObject(t, s.GitDir(), h)
			}})
		})
	}
}
