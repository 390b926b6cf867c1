package serve_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/serve"
)

// excludeReaders is what gc does first on a directory registry: wait
// for every reader to close it, for at most d.
func excludeReaders(t *testing.T, dir string, d time.Duration) error {
	t.Helper()
	st, err := dirstore.Open(dir, dirstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	bd, ok := store.As[store.BlobDeleter](st)
	if !ok {
		t.Fatal("the directory store deletes no blob")
	}
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	release, err := bd.ExcludeReaders(ctx, nil)
	if err == nil {
		release()
	}
	return err
}

// TestGCNotHeldUp: with OpenPerRequest (what airvsx serve does for a
// directory) a gc of the registry is not held up by serve between its
// requests, and serve goes on answering; a server that keeps its store
// open holds gc up (why the option exists).
func TestGCNotHeldUp(t *testing.T) {
	f := newFixture(t, serve.Options{OpenPerRequest: true})
	e := &catalog(t, f.dir).Entries[0]
	path := "/vscode/gallery/publishers/" + e.ID.Namespace + "/vsextensions/" + e.ID.Name + "/" + e.Version + "/vspackage?targetPlatform=" + string(e.Platform)
	if resp, _ := f.get(t, path); resp.StatusCode != http.StatusOK {
		t.Fatalf("before gc: %s", resp.Status)
	}
	if err := excludeReaders(t, f.dir, 5*time.Second); err != nil {
		t.Fatalf("gc waited for serve with OpenPerRequest: %v", err)
	}
	if resp, _ := f.get(t, path); resp.StatusCode != http.StatusOK {
		t.Fatalf("after gc: %s", resp.Status)
	}

	held := newFixture(t, serve.Options{})
	if err := excludeReaders(t, held.dir, 300*time.Millisecond); err == nil {
		t.Fatal("gc did not wait for a server that keeps its store open: the test proves nothing")
	}
}
