package storetest

import (
	"io"
	"testing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/dirstore"
)

// OpenDir opens the directory registry at dir with opts (dirstore.Open),
// failing tb at once when it cannot. The caller closes it.
func OpenDir(tb testing.TB, dir string, opts dirstore.Options) *dirstore.Store {
	tb.Helper()
	d, err := dirstore.Open(dir, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// DiscardAndClose discards s (store.Discarder) and then closes it, failing
// tb at once when either fails, and returns whether Discard removed the
// registry.
func DiscardAndClose(tb testing.TB, s interface {
	store.Discarder
	io.Closer
}) bool {
	tb.Helper()
	removed, err := s.Discard()
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		tb.Fatalf("Discard: %v", err)
	}
	return removed
}
