package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/serve"
	"github.com/airvsx/airvsx/testkit/certtest"
)

// TestHostileRequests: traversal in every encoding, malformed and
// oversized requests get a clean 4xx, and no answer holds a byte of a
// file outside the registry (a secret planted beside it).
func TestHostileRequests(t *testing.T) {
	f := newFixture(t, serve.Options{SiteDir: t.TempDir()})
	secret := "SECRET-" + t.Name()
	os.WriteFile(filepath.Join(filepath.Dir(f.dir), "secret.txt"), []byte(secret), 0o644)
	os.WriteFile("/tmp/serve-hostile-secret.txt", []byte(secret), 0o644)
	defer os.Remove("/tmp/serve-hostile-secret.txt")
	e := &catalog(t, f.dir).Entries[0]
	ext := "/api/" + e.ID.Namespace + "/" + e.ID.Name
	for _, tc := range []struct {
		name, method, path, body string
		want                     int
	}{
		{"dotdot", "GET", "/../../../../tmp/serve-hostile-secret.txt", "", 400},
		{"encoded dotdot", "GET", "/%2e%2e/%2e%2e/tmp/serve-hostile-secret.txt", "", 400},
		{"double encoded", "GET", "/%252e%252e/%252e%252e/tmp/serve-hostile-secret.txt", "", 400},
		{"encoded slash", "GET", "/..%2f..%2f..%2ftmp%2fserve-hostile-secret.txt", "", 400},
		{"backslash", "GET", "/..%5c..%5csecret.txt", "", 400},
		{"NUL", "GET", "/index.html%00.txt", "", 400},
		{"overlong UTF-8 dot", "GET", "/%c0%ae%c0%ae/%c0%ae%c0%ae/tmp/serve-hostile-secret.txt", "", 404},
		{"file name traversal", "GET", ext + "/" + e.Version + "/file/..%2f..%2f..%2fsecret.txt", "", 400},
		{"file name unknown", "GET", ext + "/" + e.Version + "/file/secret.txt", "", 404},
		{"asset type traversal", "GET", "/vscode/asset/" + e.ID.Namespace + "/" + e.ID.Name + "/" + e.Version + "/..%2f..%2fsecret.txt", "", 400},
		{"unknown asset type", "GET", "/vscode/asset/" + e.ID.Namespace + "/" + e.ID.Name + "/" + e.Version + "/Nope", "", 404},
		{"bad platform", "GET", "/vscode/asset/" + e.ID.Namespace + "/" + e.ID.Name + "/" + e.Version + "/Microsoft.VisualStudio.Services.VSIXPackage?targetPlatform=../x", "", 400},
		{"bad ID", "GET", "/api/na%20me/x%3Cy", "", 400},
		{"unknown extension", "GET", "/api/nobody/nothing", "", 404},
		{"site dot file", "GET", "/.airvsx-site-state.json", "", 404},
		{"long URL", "GET", "/api/-/search?query=" + strings.Repeat("a", 5000), "", 414},
		{"long query text", "GET", "/api/-/search?query=" + strings.Repeat("a", 300), "", 400},
		{"negative size", "GET", "/api/-/search?size=-1", "", 400},
		{"size not a number", "GET", "/api/-/search?size=1e9", "", 400},
		{"malformed query", "POST", "/api/-/query", "{not json", 400},
		{"two JSON values", "POST", "/api/-/query", "{} {}", 400},
		{"oversized query", "POST", "/api/-/query", `{"extensionId":"` + strings.Repeat("a", 100<<10) + `"}`, 413},
		{"query with no ID", "POST", "/api/-/query", "{}", 400},
		{"item without dot", "GET", "/vscode/item?itemName=nodot", "", 400},
		{"method", "DELETE", ext, "", 405},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), tc.method, f.ts.URL, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			req.URL.Opaque = tc.path // sent as written, not cleaned by the client
			if i := strings.IndexByte(tc.path, '?'); i >= 0 {
				req.URL.Opaque, req.URL.RawQuery = tc.path[:i], tc.path[i+1:]
			}
			resp, body := do(t, req)
			if resp.StatusCode != tc.want {
				t.Errorf("%s %s: %s %.200s; want %d", tc.method, tc.path, resp.Status, body, tc.want)
			}
			if bytes.Contains(body, []byte(secret)) {
				t.Errorf("%s %s answered the secret", tc.method, tc.path)
			}
		})
	}
	// A million-entry page is answered with at most a page of 100.
	resp, body := f.get(t, "/api/-/search?size=1000000")
	if resp.StatusCode != http.StatusOK || bytes.Count(body, []byte(`"namespace"`)) > 100 {
		t.Errorf("size=1000000: %s, %d results", resp.Status, bytes.Count(body, []byte(`"namespace"`)))
	}
}

// TestServeSlowClientAndShutdown: a client that never finishes its
// header is cut off; the server answers over TLS; cancelling the context
// shuts it down gracefully.
func TestServeSlowClientAndShutdown(t *testing.T) {
	f := newFixture(t, serve.Options{})
	certDER, key := certtest.SelfSigned(t, "127.0.0.1", func(c *x509.Certificate) { c.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)} })
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: certDER}), 0o600)
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)

	ctx, cancel := context.WithCancel(t.Context())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- serve.Serve(ctx, f.srv.Handler(), serve.ServeOptions{Addr: "127.0.0.1:0", CertFile: certFile, KeyFile: keyFile,
			ReadHeaderTimeout: 300 * time.Millisecond, Ready: func(a string) { addrc <- a }})
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatalf("Serve: %v", err)
	}
	cert, _ := x509.ParseCertificate(certDER)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := client.Get("https://" + addr + "/healthz")
	if err != nil {
		t.Fatalf("GET over TLS: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET over TLS: %s", resp.Status)
	}

	// Slow: a TLS handshake, then half a header, then nothing.
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\n")
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	_, err = bufio.NewReader(conn).ReadByte()
	if err == nil || time.Since(start) > 4*time.Second {
		t.Errorf("a client that never ends its header kept the connection %v (read: %v)", time.Since(start), err)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve after cancel: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Serve did not shut down")
	}
}
