package verify_test

import (
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/verify"
	"github.com/airvsx/airvsx/verify/internal/benchreg"
)

// maxHeapPerEntry bounds what verify's peak live heap may grow by for
// each entry more in a registry: the report's line for the entry and the
// few IDs and names the checks across entries keep (500 to 650 bytes
// here, quiet or loaded), not the entry itself, its blobs or its shard,
// which are dropped once checked (holding every shard's entries measures
// over 1500 bytes an entry).
const maxHeapPerEntry = 1000

// TestRegistryMemory verifies two sharded registries (benchreg), the
// second 25 times the entries of the first (a slope over thousands of
// entries, which the collector's timing does not swamp), with
// --no-read-data, and checks that the peak heap grows by less than
// maxHeapPerEntry for each entry more.
func TestRegistryMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("makes two registries")
	}
	const small, large = 100, 2500
	ps, pl := peakHeap(t, small), peakHeap(t, large)
	per := (int64(pl) - int64(ps)) / (large - small)
	t.Logf("peak heap: %d entries %d KB, %d entries %d KB: %d bytes an entry more", small, ps>>10, large, pl>>10, per)
	if per > maxHeapPerEntry {
		t.Errorf("verify's peak heap grows by %d bytes an entry; want at most %d (are the shards held after they are checked?)", per, maxHeapPerEntry)
	}
}

// peakHeap makes a registry of n small entries and returns the peak of
// the live heap while verify checks it, above what it was before. Live
// is what the collector last marked reachable (/gc/heap/live:bytes),
// not every object allocated: on a loaded machine the collector runs
// late and the garbage allocated meanwhile (/memory/classes/heap/objects,
// measured before) swamped the slope, 1741 bytes an entry on CI against
// 700 to 900 on a quiet machine.
func peakHeap(t *testing.T, n int) uint64 {
	t.Helper()
	dir := t.TempDir()
	res, err := benchreg.Make(t.Context(), filepath.Join(dir, "reg"), filepath.Join(dir, "bench"), benchreg.Options{Entries: n, Size: 64})
	if err != nil {
		t.Fatal(err)
	}
	key, err := trust.LoadVerifier(res.PubKey)
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.OpenDir(t, filepath.Join(dir, "reg"), dirstore.Options{ReadOnly: true})
	defer st.Close()

	// A small GC target keeps the heap close to what is live.
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	heap := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	base := heap()
	var (
		peak uint64
		wg   sync.WaitGroup
		done = make(chan struct{})
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(200 * time.Microsecond)
		defer tick.Stop()
		for {
			peak = max(peak, heap())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	rep, err := verify.Registry(t.Context(), verify.RegistryOptions{Store: st, Anchor: trust.Anchor{Key: key}, NoReadData: true})
	close(done)
	wg.Wait()
	if err != nil || !rep.OK() || rep.Summary.Entries != n {
		t.Fatalf("verify %d entries: %v, %d entries, problems %v", n, err, rep.Summary.Entries, rep.Problems)
	}
	return max(peak, base) - base
}
