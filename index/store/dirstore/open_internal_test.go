package dirstore

import (
	"testing"

	"github.com/airvsx/airvsx/index/store"
)

// TestOpenReturnsChecked: what Open returns is the directory store inside
// store.Checked, so that no caller reaches it unchecked.
func TestOpenReturnsChecked(t *testing.T) {
	s, err := Open(t.TempDir()+"/reg", Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	u, ok := s.Store.(store.Unwrapper)
	if !ok || u.Unwrap() != s.d {
		t.Fatalf("Open returned %T wrapping %T; want store.Checked around the directory store", s.Store, s.d)
	}
}
