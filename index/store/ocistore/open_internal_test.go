package ocistore

import (
	"errors"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/airvsx/airvsx/index/store"
)

// TestOpenReturnsChecked: what Open returns is the OCI store inside
// store.Checked, so that no caller reaches it unchecked, and a bad name is
// refused before any request (the place's host does not exist).
func TestOpenReturnsChecked(t *testing.T) {
	p, err := store.ParsePlace("docker://registry.invalid/mirror")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(t.Context(), p, Options{Keychain: authn.NewMultiKeychain()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	u, ok := s.Store.(store.Unwrapper)
	if !ok || u.Unwrap() != s.o {
		t.Fatalf("Open returned %T wrapping %T; want store.Checked around the OCI store", s.Store, s.o)
	}
	if _, err := s.StatBlob(t.Context(), "../x", "sha256:00"); !errors.Is(err, store.ErrInvalidName) {
		t.Errorf("StatBlob with a bad repository: %v; want ErrInvalidName", err)
	}
}
