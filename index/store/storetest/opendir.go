package storetest

import (
	"testing"

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
