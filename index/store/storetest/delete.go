package storetest

import (
	"errors"
	"io/fs"
	"slices"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index/store"
)

// The capabilities gc uses: BlobDeleter and PendingWriter.

func testDeleteBlob(t *testing.T, s store.Store) {
	bd := capability[store.BlobDeleter](t, s)
	ctx := t.Context()
	a, b := randomBytes(700, 21), randomBytes(300, 22)
	da, db := put(t, s, repo, a), put(t, s, repo, b)
	got, err := bd.Blobs(ctx, repo)
	if err != nil {
		t.Fatalf("Blobs: %v", err)
	}
	want := []store.BlobInfo{{Digest: da, Size: 700}, {Digest: db, Size: 300}}
	slices.SortFunc(want, func(x, y store.BlobInfo) int {
		if x.Digest < y.Digest {
			return -1
		}
		return 1
	})
	if !slices.Equal(got, want) {
		t.Errorf("Blobs = %v; want %v", got, want)
	}
	if _, err := bd.Blobs(ctx, "no/such"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Blobs(no/such) = %v; want fs.ErrNotExist", err)
	}
	if n, err := bd.DeleteBlob(ctx, repo, da); err != nil || n != 700 {
		t.Errorf("DeleteBlob = %d, %v; want 700, nil", n, err)
	}
	wantNotExist(t, s, repo, da)
	if n, err := bd.DeleteBlob(ctx, repo, da); err != nil || n != 0 {
		t.Errorf("DeleteBlob again = %d, %v; want 0, nil", n, err)
	}
	if data, err := read(t, s, repo, db, 300); err != nil || len(data) != 300 {
		t.Errorf("the other blob after a delete: %d bytes, %v", len(data), err)
	}
	if got, err := bd.Blobs(ctx, repo); err != nil || len(got) != 1 || got[0].Digest != db {
		t.Errorf("Blobs after the delete = %v, %v; want only %s", got, err, db)
	}
	if _, err := bd.DeleteBlob(ctx, "../x", db); !errors.Is(err, store.ErrInvalidName) {
		t.Errorf("DeleteBlob(../x) = %v; want ErrInvalidName", err)
	}
	if err := bd.DeleteRepo(ctx, repo); err == nil {
		t.Errorf("DeleteRepo of a repository holding a blob = nil; want an error")
	}
	if _, err := bd.DeleteBlob(ctx, repo, db); err != nil {
		t.Fatal(err)
	}
	if err := bd.DeleteRepo(ctx, repo); err != nil {
		t.Errorf("DeleteRepo of an empty repository: %v", err)
	}
	if repos, err := s.Repos(ctx); err != nil || slices.Contains(repos, repo) {
		t.Errorf("Repos after DeleteRepo = %v, %v; want %s gone", repos, err, repo)
	}
	if err := bd.DeleteRepo(ctx, repo); err != nil {
		t.Errorf("DeleteRepo of a repository already gone: %v", err)
	}
	release, err := bd.ExcludeReaders(ctx, nil)
	if err != nil {
		t.Fatalf("ExcludeReaders with no reader: %v", err)
	}
	if err := release(); err != nil {
		t.Errorf("release: %v", err)
	}
}

func testPending(t *testing.T, s store.Store) {
	pw := capability[store.PendingWriter](t, s)
	ctx := t.Context()
	if recs, err := pw.Pending(ctx); err != nil || len(recs) != 0 {
		t.Fatalf("Pending of a new store = %v, %v; want none", recs, err)
	}
	before := time.Now().Add(-time.Second)
	if err := pw.BeginPending(ctx, "copy", []string{"b/b", "a/a"}); err != nil {
		t.Fatalf("BeginPending: %v", err)
	}
	if err := pw.BeginPending(ctx, "copy", []string{"c/c", "a/a"}); err != nil {
		t.Fatalf("BeginPending again: %v", err)
	}
	if err := pw.BeginPending(ctx, "sync", []string{"d/d"}); err != nil {
		t.Fatalf("BeginPending(sync): %v", err)
	}
	recs, err := pw.Pending(ctx)
	if err != nil || len(recs) != 2 {
		t.Fatalf("Pending = %v, %v; want 2 records", recs, err)
	}
	if r := recs[0]; r.Name != "copy" || !slices.Equal(r.Repos, []string{"a/a", "b/b", "c/c"}) || r.Started.Before(before.Truncate(time.Second)) {
		t.Errorf("record = %+v; want copy of a/a, b/b, c/c, started now", r)
	}
	if err := pw.EndPending(ctx, "copy"); err != nil {
		t.Fatalf("EndPending: %v", err)
	}
	if err := pw.EndPending(ctx, "copy"); err != nil {
		t.Errorf("EndPending of no record = %v; want nil", err)
	}
	if recs, err := pw.Pending(ctx); err != nil || len(recs) != 1 || recs[0].Name != "sync" {
		t.Errorf("Pending after EndPending = %v, %v; want sync's only", recs, err)
	}
	if err := pw.BeginPending(ctx, "../x", []string{"a/a"}); !errors.Is(err, store.ErrInvalidName) {
		t.Errorf("BeginPending(../x) = %v; want ErrInvalidName", err)
	}
	if err := pw.BeginPending(ctx, "copy", []string{"../x"}); !errors.Is(err, store.ErrInvalidName) {
		t.Errorf("BeginPending(repo ../x) = %v; want ErrInvalidName", err)
	}
}
