package ociregistry_test

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/ociregistry"
)

// testRegistry is a CNCF distribution registry on loopback, started by a
// test from the registry binary with a configuration the test writes, and
// stopped when it ends.
type testRegistry struct {
	host    string // 127.0.0.1:PORT
	storage string // its filesystem storage's root directory
}

// registryBinary finds the distribution registry: on PATH, else in
// GOBIN or GOPATH/bin. CI installs it (.ci/run); where it is missing the
// test skips outside CI and fails in CI.
func registryBinary(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("registry"); err == nil {
		return p
	}
	var dirs []string
	if out, err := exec.Command("go", "env", "GOBIN", "GOPATH").Output(); err == nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) == 2 {
			if lines[0] != "" {
				dirs = append(dirs, lines[0])
			}
			for _, p := range filepath.SplitList(lines[1]) {
				dirs = append(dirs, filepath.Join(p, "bin"))
			}
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, "registry")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	const install = "go install github.com/distribution/distribution/v3/cmd/registry@v3.1.2"
	if os.Getenv("CI") != "" {
		t.Fatalf("the distribution registry is not installed in CI (%s)", install)
	}
	t.Skipf("the distribution registry is not installed (%s)", install)
	return ""
}

// startRegistry starts a registry with deletes enabled, over plain HTTP;
// it is stopped and its storage removed when t ends.
func startRegistry(t *testing.T) *testRegistry {
	t.Helper()
	return startRegistryTLS(t, "", "", nil)
}

// startRegistryTLS is startRegistry serving TLS with the certificate and
// key in certFile and keyFile (when not ""), trusted through pool.
func startRegistryTLS(t *testing.T, certFile, keyFile string, pool *x509.CertPool) *testRegistry {
	t.Helper()
	bin := registryBinary(t)
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := l.Addr().String()
	l.Close()
	storage := filepath.Join(dir, "storage")
	config := fmt.Sprintf(`version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: %s
  delete:
    enabled: true
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: %s
`, storage, host)
	scheme, client := "http", http.DefaultClient
	if certFile != "" {
		config += fmt.Sprintf("  tls:\n    certificate: %s\n    key: %s\n", certFile, keyFile)
		scheme = "https"
		client = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	}
	cfg := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(dir, "registry.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", cfg)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(), "OTEL_TRACES_EXPORTER=none", "OTEL_METRICS_EXPORTER=none", "OTEL_LOGS_EXPORTER=none")
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the registry: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logf.Close()
		if t.Failed() {
			if b, err := os.ReadFile(logf.Name()); err == nil && len(b) > 0 {
				if len(b) > 4000 {
					b = b[len(b)-4000:]
				}
				t.Logf("registry log (end):\n%s", b)
			}
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := client.Get(scheme + "://" + host + "/v2/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logf.Name())
			t.Fatalf("the registry did not answer on %s: %v\n%s", host, err, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return &testRegistry{host: host, storage: storage}
}

var prefixes atomic.Int64

// open opens a store at a new prefix of r (so it starts empty), closed
// when t ends.
func (r *testRegistry) open(t *testing.T, opts ociregistry.Options) *ociregistry.Store {
	t.Helper()
	p, err := store.ParsePlace(fmt.Sprintf("docker://%s/airvsx/t%d", r.host, prefixes.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	opts.Insecure = true
	if opts.Backoff == 0 {
		opts.Backoff = 10 * time.Millisecond
	}
	s, err := ociregistry.Open(t.Context(), p, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// blobData is the file holding a blob in the registry's storage.
func (r *testRegistry) blobData(digest string) string {
	hex := strings.TrimPrefix(digest, "sha256:")
	return filepath.Join(r.storage, "docker", "registry", "v2", "blobs", "sha256", hex[:2], hex, "data")
}
