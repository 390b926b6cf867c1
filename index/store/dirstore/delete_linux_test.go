package dirstore_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
)

// TestExcludeReaders: a read-only store open on the registry makes a
// writer's ExcludeReaders wait (and say so once) until it is closed; a
// reader opened while the writer excludes readers still opens, and the
// writer's release lets the next reader hold the lock again.
func TestExcludeReaders(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "reg")
	w := storetest.OpenDir(t, dir, dirstore.Options{Create: true})
	defer w.Close()
	r := storetest.OpenDir(t, dir, dirstore.Options{ReadOnly: true})

	// A context that ends while the reader is open: the wait ends too.
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	waited := 0
	if _, err := w.ExcludeReaders(ctx, func() { waited++ }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ExcludeReaders with a reader open = %v; want the deadline", err)
	}
	if waited != 1 {
		t.Errorf("waiting called %d times; want 1", waited)
	}

	// The reader closes while the writer waits: the wait ends.
	done := make(chan error, 1)
	var release func() error
	go func() {
		var err error
		release, err = w.ExcludeReaders(t.Context(), nil)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("ExcludeReaders returned %v while a reader is open", err)
	case <-time.After(250 * time.Millisecond):
	}
	r.Close()
	if err := <-done; err != nil {
		t.Fatalf("ExcludeReaders once the reader closed: %v", err)
	}
	// Readers still open meanwhile (they read the catalog gc keeps).
	r2 := storetest.OpenDir(t, dir, dirstore.Options{ReadOnly: true})
	r2.Close()
	if err := release(); err != nil {
		t.Fatal(err)
	}
	r3 := storetest.OpenDir(t, dir, dirstore.Options{ReadOnly: true})
	defer r3.Close()
	ctx2, cancel2 := context.WithTimeout(t.Context(), 150*time.Millisecond)
	defer cancel2()
	if _, err := w.ExcludeReaders(ctx2, nil); err == nil {
		t.Errorf("ExcludeReaders after release, with a new reader open = nil; want it to wait")
	}
}

// TestDeleteReadOnly: a read-only store refuses deletes and pending
// records, and a read-only Checked hides the capabilities from As.
func TestDeleteReadOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "reg")
	w := storetest.OpenDir(t, dir, dirstore.Options{Create: true})
	w.Close()
	r := storetest.OpenDir(t, dir, dirstore.Options{ReadOnly: true})
	defer r.Close()
	ctx := t.Context()
	d := "sha256:0000000000000000000000000000000000000000000000000000000000000000"
	if _, err := r.DeleteBlob(ctx, "a/b", d); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("DeleteBlob read-only = %v; want ErrReadOnly", err)
	}
	if err := r.BeginPending(ctx, "copy", []string{"a/b"}); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("BeginPending read-only = %v; want ErrReadOnly", err)
	}
	if _, ok := store.As[store.BlobDeleter](store.Checked(r, true)); ok {
		t.Errorf("As[BlobDeleter] found the capability through a read-only Checked")
	}
	if _, ok := store.As[store.BlobDeleter](store.Checked(r, false)); !ok {
		t.Errorf("As[BlobDeleter] did not find the capability through a writable Checked")
	}
}
