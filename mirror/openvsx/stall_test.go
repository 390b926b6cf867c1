package openvsx

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// stallServer accepts connections on loopback, reads each request's
// headers, writes reply (possibly nothing) and then never writes again
// until the test ends.
func stallServer(t *testing.T, reply string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() {
		close(done)
		l.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				if _, err := http.ReadRequest(bufio.NewReader(conn)); err != nil {
					return
				}
				io.WriteString(conn, reply)
				<-done
			}()
		}
	}()
	return "http://" + l.Addr().String()
}

// TestStalledUpstreamBounded: an upstream that accepts and never answers,
// or answers the headers and then sends nothing, fails each attempt
// within its bound, and the error names the URL and the bound.
func TestStalledUpstreamBounded(t *testing.T) {
	const headersThenStall = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nPK"
	tests := []struct {
		name     string
		reply    string
		download bool
		want     string // %s: the URL
	}{
		{"fetch, no headers", "", false, "no response headers from %s within 200ms"},
		{"download, no headers", "", true, "no response headers from %s within 200ms"},
		{"download, body stalls", headersThenStall, true, "no body bytes from %s for 300ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := stallServer(t, tt.reply)
			c, _ := newTestClient(t, base, func(o *ClientOptions) {
				o.HeaderTimeout = 200 * time.Millisecond
				o.Timeout = 300 * time.Millisecond
				o.MaxRetries = 1
			})
			u := base + "/api/a/b/1.0.0/file/a.b-1.0.0.vsix"
			start := time.Now()
			var err error
			if tt.download {
				f, ferr := os.Create(filepath.Join(t.TempDir(), "dl"))
				if ferr != nil {
					t.Fatal(ferr)
				}
				defer f.Close()
				_, err = c.Download(t.Context(), u, 1<<20, f)
			} else {
				_, err = c.Fetch(t.Context(), u, 1<<20)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %s; want about two attempts of the bound", d)
			}
			want := strings.ReplaceAll(tt.want, "%s", u)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("error %v; want one containing %q", err, want)
			}
			if n := len(c.Egress()); n != 2 {
				t.Errorf("%d requests; want 2 (retried once)", n)
			}
		})
	}
}
