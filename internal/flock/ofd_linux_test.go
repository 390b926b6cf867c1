package flock_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/internal/flock"
)

// TestOFDLocks: readers share the lock, the exclusive one waits for them
// to go, and a writer's flock on the same file is no conflict.
func TestOFDLocks(t *testing.T) {
	p := filepath.Join(t.TempDir(), "marker")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func(flag int) *os.File {
		f, err := os.OpenFile(p, flag, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	writer, r1, r2, gc := open(os.O_RDONLY), open(os.O_RDONLY), open(os.O_RDONLY), open(os.O_RDWR)
	if err := flock.Try(writer); err != nil {
		t.Fatalf("flock: %v", err)
	}
	for i, r := range []*os.File{r1, r2} {
		if err := flock.TryShared(r); err != nil {
			t.Fatalf("reader %d: TryShared = %v; want nil", i, err)
		}
	}
	if err := flock.TryExclusive(gc); !errors.Is(err, flock.ErrHeld) {
		t.Fatalf("TryExclusive with readers = %v; want ErrHeld", err)
	}
	r1.Close()
	if err := flock.Unlock(r2); err != nil {
		t.Fatal(err)
	}
	if err := flock.TryExclusive(gc); err != nil {
		t.Fatalf("TryExclusive once the readers went = %v; want nil", err)
	}
	if err := flock.TryShared(open(os.O_RDONLY)); !errors.Is(err, flock.ErrHeld) {
		t.Fatalf("TryShared while exclusive = %v; want ErrHeld", err)
	}
}
