package dirstore_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
)

// TestReadOnlyDirCache reads the blobs of more repositories than a
// read-only store keeps open, twice, with a repository's file tree
// (RepoFS) held open meanwhile, and checks that a blob removed, or
// replaced by a symlink, behind a repository the store keeps open is
// reported as the registry's tree shows it, with the same error text.
func TestReadOnlyDirCache(t *testing.T) {
	w := newDir(t)
	const n = 100 // more than the store keeps open
	repos := make([]string, n)
	digests := make([]string, n)
	for i := range n {
		repos[i] = fmt.Sprintf("ns/r%03d", i)
		digests[i] = putBlob(t, w, repos[i], []byte(repos[i]))
	}
	w.Close()
	r := storetest.OpenDir(t, w.Path(), dirstore.Options{ReadOnly: true})
	defer r.Close()
	ctx := t.Context()
	held, release, err := r.RepoFS(repos[0])
	if err != nil {
		t.Fatalf("RepoFS: %v", err)
	}
	for range 2 {
		for i := range n {
			if size, err := r.StatBlob(ctx, repos[i], digests[i]); err != nil || size != int64(len(repos[i])) {
				t.Fatalf("StatBlob(%s) = %d, %v", repos[i], size, err)
			}
			rc, err := r.OpenBlob(ctx, repos[i], digests[i], int64(len(repos[i])))
			if err != nil {
				t.Fatalf("OpenBlob(%s): %v", repos[i], err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || string(b) != repos[i] {
				t.Fatalf("OpenBlob(%s) read %q, %v", repos[i], b, err)
			}
		}
	}
	// The tree taken before every other repository was read is still
	// open, though the store has since let its directory go.
	if _, err := fs.ReadFile(held, "index.json"); err != nil {
		t.Errorf("RepoFS(%s) after %d other repositories: %v", repos[0], n-1, err)
	}
	release()
	if _, _, err := r.RepoFS("../x"); err == nil {
		t.Error("RepoFS(../x) succeeded")
	}

	// Damage behind the open directory of the last repository read.
	last := n - 1
	if _, err := r.StatBlob(ctx, repos[last], digests[last]); err != nil {
		t.Fatal(err)
	}
	want := func(repo, digest string) error {
		t.Helper()
		fresh := storetest.OpenDir(t, w.Path(), dirstore.Options{ReadOnly: true})
		defer fresh.Close()
		_, err := fresh.StatBlob(ctx, repo, digest)
		return err
	}
	file := blobFile(r, repos[last], digests[last])
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	_, err = r.StatBlob(ctx, repos[last], digests[last])
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != want(repos[last], digests[last]).Error() {
		t.Errorf("StatBlob of a removed blob = %v; want %v", err, want(repos[last], digests[last]))
	}
	if err := os.Symlink(filepath.Join(w.Path(), "..", "outside"), file); err != nil {
		t.Fatal(err)
	}
	if _, err := r.OpenBlob(ctx, repos[last], digests[last], int64(len(repos[last]))); err == nil {
		t.Error("OpenBlob followed a symlink")
	}
	if _, err := r.StatBlob(ctx, repos[last], digests[last]); err == nil {
		t.Error("StatBlob of a symlink succeeded")
	}
}
