package storetest

import (
	"errors"
	"testing"

	"github.com/airvsx/airvsx/index/store"
)

// CheckWrapped fails t unless s, what a store's Open returned, is
// store.Checked around inner, the unchecked store Open made, and a bad
// name given to s is refused (store.ErrInvalidName) before any storage is
// touched: the proof that no caller of Open reaches the store unchecked.
func CheckWrapped(t *testing.T, s, inner store.Store) {
	t.Helper()
	u, ok := s.(store.Unwrapper)
	if !ok || u.Unwrap() != inner {
		t.Fatalf("Open returned %T wrapping %T; want store.Checked around %T", s, u, inner)
	}
	if _, err := s.StatBlob(t.Context(), "../x", "sha256:00"); !errors.Is(err, store.ErrInvalidName) {
		t.Errorf("StatBlob with a bad repository: %v; want ErrInvalidName", err)
	}
}
