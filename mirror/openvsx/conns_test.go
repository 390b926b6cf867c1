package openvsx

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestClientKeepsItsConnections: requests made side by side reuse the
// connections they opened, so a sync at --concurrency 8 opens about 8
// (and shakes hands over TLS about 8 times), not one per request beyond
// the two Go keeps idle per host by default.
func TestClientKeepsItsConnections(t *testing.T) {
	var opened atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(5 * time.Millisecond) // the requests overlap
		w.Write([]byte("ok"))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c, _ := newTestClient(t, srv.URL, nil)
	const workers, each = 8, 20
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				if _, err := c.Fetch(t.Context(), srv.URL+"/x.sha256", 1024); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	// A request that comes while another's connection is on its way
	// back to the pool may dial one more, so allow up to twice as many;
	// without keeping them, 160 requests opened about 30.
	if n := opened.Load(); n > 2*workers {
		t.Errorf("%d requests, %d at a time, opened %d connections; want at most %d", workers*each, workers, n, 2*workers)
	}
}
