package ocistore

import (
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/storetest"
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
	storetest.CheckWrapped(t, s.Store, s.o)
}
