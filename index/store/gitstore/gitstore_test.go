package gitstore_test

import (
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/gitstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/testkit/gittest"
)

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
				gittest.TamperLoose(t, s.GitDir(), h)
			}, CannotCommit: true})
		})
	}
}
