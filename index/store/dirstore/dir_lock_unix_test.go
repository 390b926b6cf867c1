//go:build unix

package dirstore_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/dirstore"
)

// TestOpenDirCreateRace: writers that create the same new registry at
// once get one lock: one opens it, every other fails with ErrLocked, and
// no two hold it at a time (each would write the marker and then lock
// its own file, as two copies into a new place once both did).
func TestOpenDirCreateRace(t *testing.T) {
	const tries, writers = 200, 4
	base := t.TempDir()
	for i := range tries {
		dir := filepath.Join(base, fmt.Sprint(i))
		var (
			wg     sync.WaitGroup
			start  = make(chan struct{})
			opened = make([]*dirstore.Store, writers)
			errs   = make([]error, writers)
		)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				opened[w], errs[w] = dirstore.Open(dir, dirstore.Options{Create: true})
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for w := range writers {
			switch {
			case errs[w] == nil:
				won++
				opened[w].Close()
			case !errors.Is(errs[w], store.ErrLocked):
				t.Errorf("try %d: writer %d: OpenDir = %v; want nil or ErrLocked", i, w, errs[w])
			}
		}
		if won != 1 {
			t.Fatalf("try %d: %d of %d writers opened the new registry %s for writing; want 1", i, won, writers, dir)
		}
	}
}
