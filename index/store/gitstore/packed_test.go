package gitstore_test

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"testing"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/gitstore"
	"github.com/airvsx/airvsx/testkit/signtest"
)

// TestPackedConcurrentReads reads a registry that stock git packed (a
// clone, then git gc), from many goroutines at once: blobs small and
// large (streamed from the pack), tags and metadata.
func TestPackedConcurrentReads(t *testing.T) {
	needGit(t)
	src := filepath.Join(t.TempDir(), "src.git")
	s := openWriter(t, src, signtest.Signer(t))
	var blobs [][]byte
	for i := range 8 {
		size := 1000 + i
		if i%2 == 0 {
			size = 3<<20 + i // above the streaming threshold
		}
		b := bytes.Repeat([]byte(fmt.Sprintf("%d", i)), size)
		b[0] = byte(i) // distinct content
		if err := s.PutBlob(t.Context(), "golang/go", index.DigestBytes(b), int64(len(b)), store.BytesContent(b)); err != nil {
			t.Fatal(err)
		}
		blobs = append(blobs, b)
	}
	commitChange(t, s, "1.0.0", "m")
	s.Close()
	clone := filepath.Join(t.TempDir(), "clone.git")
	git(t, filepath.Dir(clone), "clone", "-q", "--bare", src, clone)
	git(t, clone, "gc", "-q", "--aggressive")

	r, err := gitstore.Open(clone, gitstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var wg sync.WaitGroup
	for range 4 {
		for _, b := range blobs {
			wg.Go(func() {
				d := index.DigestBytes(b)
				rc, err := r.OpenBlob(t.Context(), "golang/go", d, int64(len(b)))
				if err != nil {
					t.Error(err)
					return
				}
				defer rc.Close()
				got, err := io.ReadAll(rc)
				if err != nil || !bytes.Equal(got, b) {
					t.Errorf("blob %s: %v (%d bytes; want %d)", d, err, len(got), len(b))
				}
				if _, err := r.Tags(t.Context(), "golang/go"); err != nil {
					t.Error(err)
				}
				if _, err := r.ReadMetadata(t.Context(), "timestamp.json", 100); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
}
