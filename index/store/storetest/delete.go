package storetest

import (
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
)

// The capabilities gc uses: BlobDeleter and PendingWriter.

func testDeleteBlob(t *testing.T, s store.Store) {
	bd := capability[store.BlobDeleter](t, s)
	ctx := t.Context()
	// What every store can list: the blobs of a tagged manifest (a
	// registry's API lists no others; a directory lists every file).
	m := manifest(t, s, repo, "gc")
	if err := s.Tag(ctx, repo, "v1", m); err != nil {
		t.Fatal(err)
	}
	got, err := bd.Blobs(ctx, repo)
	if err != nil {
		t.Fatalf("Blobs: %v", err)
	}
	for _, want := range []store.BlobInfo{{Digest: m.Digest, Size: m.Size}, {Digest: artifact.EmptyConfigDigest, Size: 2}} {
		if !slices.Contains(got, want) {
			t.Errorf("Blobs = %v; want %v among them", got, want)
		}
	}
	if !slices.IsSortedFunc(got, func(a, b store.BlobInfo) int { return strings.Compare(a.Digest, b.Digest) }) {
		t.Errorf("Blobs = %v; want them sorted by digest", got)
	}
	if _, err := bd.Blobs(ctx, "no/such"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Blobs(no/such) = %v; want fs.ErrNotExist", err)
	}
	if err := bd.DeleteRepo(ctx, repo); err == nil {
		t.Errorf("DeleteRepo of a repository holding a tag = nil; want an error")
	}
	// A tagged manifest: its tag goes with it.
	if n, err := bd.DeleteBlob(ctx, repo, m.Digest); err != nil || n != m.Size {
		t.Errorf("DeleteBlob(manifest) = %d, %v; want %d, nil", n, err, m.Size)
	}
	wantNotExist(t, s, repo, m.Digest)
	if tg := tags(t, s, repo); len(tg) != 0 {
		t.Errorf("tags after DeleteBlob of their manifest = %v; want none", tg)
	}
	if n, err := bd.DeleteBlob(ctx, repo, m.Digest); err != nil || n != 0 {
		t.Errorf("DeleteBlob again = %d, %v; want 0, nil", n, err)
	}
	if n, err := bd.DeleteBlob(ctx, repo, artifact.EmptyConfigDigest); err != nil || n != 2 {
		t.Errorf("DeleteBlob(config) = %d, %v; want 2, nil", n, err)
	}
	if _, err := bd.DeleteBlob(ctx, "../x", m.Digest); !errors.Is(err, store.ErrInvalidName) {
		t.Errorf("DeleteBlob(../x) = %v; want ErrInvalidName", err)
	}
	if err := bd.DeleteRepo(ctx, repo); err != nil {
		t.Errorf("DeleteRepo of an emptied repository: %v", err)
	}
	if err := bd.DeleteRepo(ctx, repo); err != nil {
		t.Errorf("DeleteRepo again: %v", err)
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
