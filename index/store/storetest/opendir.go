package storetest

import (
	"testing"

	"github.com/airvsx/airvsx/index/store"
)

// OpenDir opens the directory registry at dir with opts (store.OpenDir),
// failing tb at once when it cannot. The caller closes it.
func OpenDir(tb testing.TB, dir string, opts store.DirOptions) *store.Dir {
	tb.Helper()
	d, err := store.OpenDir(dir, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}
