package gitstore

import (
	"testing"

	"github.com/airvsx/airvsx/index/store/storetest"
)

// TestOpenReturnsChecked: what Open returns is the git store inside
// store.Checked, so that no caller reaches it unchecked.
func TestOpenReturnsChecked(t *testing.T) {
	s, err := Open(t.TempDir()+"/reg", Options{Create: true, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	storetest.CheckWrapped(t, s.Store, s.g)
}
