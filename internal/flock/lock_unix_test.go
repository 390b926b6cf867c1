//go:build unix

package flock_test

import (
	"errors"
	"os"
	"testing"

	"github.com/airvsx/airvsx/internal/flock"
)

func TestTryLock(t *testing.T) {
	errHeld := errors.New("held")
	dir := t.TempDir()
	a, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := flock.TryLock(a, errHeld); err != nil {
		t.Fatalf("TryLock(%s) = %v; want nil", dir, err)
	}
	b, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := flock.TryLock(b, errHeld); !errors.Is(err, errHeld) {
		t.Fatalf("TryLock(%s) while held = %v; want the held error", dir, err)
	}
	a.Close() // releases the lock
	if err := flock.TryLock(b, errHeld); err != nil {
		t.Errorf("TryLock(%s) after the holder closed = %v; want nil", dir, err)
	}
}
