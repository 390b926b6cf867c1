// Package ocitest starts a CNCF distribution registry on loopback for
// tests: the registry binary (go install
// github.com/distribution/distribution/v3/cmd/registry@v3.1.2, which CI
// does in .ci/run), a configuration the test writes (filesystem storage,
// deletes enabled, optionally TLS and htpasswd authentication), stopped
// when the test ends.
package ocitest

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Install is the command that installs the registry binary.
const Install = "go install github.com/distribution/distribution/v3/cmd/registry@v3.1.2"

// ErrMissing is returned when the registry binary is not installed.
var ErrMissing = errors.New("the distribution registry is not installed (" + Install + ")")

// Binary finds the registry binary: on PATH, else in GOBIN or
// GOPATH/bin; an error wrapping ErrMissing when it is in none.
func Binary() (string, error) {
	if p, err := exec.LookPath("registry"); err == nil {
		return p, nil
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
			return p, nil
		}
	}
	return "", ErrMissing
}

// Options configure a registry. The zero value serves plain HTTP to
// anyone.
type Options struct {
	// CertFile and KeyFile, when set, make it serve TLS with them; Pool
	// then trusts the certificate (for the readiness check).
	CertFile, KeyFile string
	Pool              *x509.CertPool
	// Users, when set, makes it ask for HTTP basic credentials (its
	// htpasswd authentication): one of these user names with its
	// password. Default nil: no authentication.
	Users map[string]string
	// NoDelete starts it with deletes disabled (storage.delete.enabled:
	// false), as the CNCF registry is configured by default: a DELETE is
	// answered 405 UNSUPPORTED. Default false: deletes are allowed.
	NoDelete bool
}

// Registry is a running registry.
type Registry struct {
	// Host is its address, 127.0.0.1:PORT.
	Host string
	// Storage is its filesystem storage's root directory.
	Storage string
	// Log is the file its output goes to.
	Log string

	cmd *exec.Cmd
}

// Start starts a registry with its files in dir (which must exist) and
// waits until it answers. Stop it with Stop.
func Start(dir string, opts Options) (*Registry, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	host := l.Addr().String()
	l.Close()
	r := &Registry{Host: host, Storage: filepath.Join(dir, "storage"), Log: filepath.Join(dir, "registry.log")}
	config := fmt.Sprintf("version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\n"+
		"storage:\n  filesystem:\n    rootdirectory: %s\n  delete:\n    enabled: %t\n  maintenance:\n    uploadpurging:\n      enabled: false\n"+
		"http:\n  addr: %s\n", r.Storage, !opts.NoDelete, host)
	scheme, client := "http", &http.Client{Timeout: 2 * time.Second}
	if opts.CertFile != "" {
		config += fmt.Sprintf("  tls:\n    certificate: %s\n    key: %s\n", opts.CertFile, opts.KeyFile)
		scheme = "https"
		client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: opts.Pool}}
	}
	var ready func(*http.Request) // sets the readiness check's credentials
	if len(opts.Users) > 0 {
		htpasswd := filepath.Join(dir, "htpasswd")
		if err := writeHtpasswd(htpasswd, opts.Users); err != nil {
			return nil, err
		}
		config += fmt.Sprintf("auth:\n  htpasswd:\n    realm: airvsx-test\n    path: %s\n", htpasswd)
		for u, p := range opts.Users {
			ready = func(req *http.Request) { req.SetBasicAuth(u, p) }
			break
		}
	}
	cfg := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		return nil, err
	}
	logf, err := os.Create(r.Log)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	r.cmd = exec.Command(bin, "serve", cfg)
	r.cmd.Stdout, r.cmd.Stderr = logf, logf
	r.cmd.Env = append(os.Environ(), "OTEL_TRACES_EXPORTER=none", "OTEL_METRICS_EXPORTER=none", "OTEL_LOGS_EXPORTER=none")
	if err := r.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the registry: %w", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		req, err := http.NewRequest(http.MethodGet, scheme+"://"+host+"/v2/", nil)
		if err != nil {
			return nil, err
		}
		if ready != nil {
			ready(req)
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return r, nil
			}
		}
		if time.Now().After(deadline) {
			r.Stop()
			return nil, fmt.Errorf("the registry did not answer on %s: %v\n%s", host, err, r.LogTail())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// writeHtpasswd writes an htpasswd file of users (name → password), each
// password hashed with bcrypt, the one hash the registry accepts.
func writeHtpasswd(path string, users map[string]string) error {
	var b strings.Builder
	for u, p := range users {
		h, err := bcrypt.GenerateFromPassword([]byte(p), bcrypt.MinCost)
		if err != nil {
			return fmt.Errorf("htpasswd: %w", err)
		}
		fmt.Fprintf(&b, "%s:%s\n", u, h)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("htpasswd: %w", err)
	}
	return nil
}

// DockerConfig writes a docker configuration directory (its config.json)
// into dir holding user's credentials for host, the way docker login
// leaves them, and returns dir: what DOCKER_CONFIG names.
func DockerConfig(dir, host, user, password string) (string, error) {
	auth := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	b, err := json.Marshal(map[string]any{"auths": map[string]any{host: map[string]string{"auth": auth}}})
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), b, 0o600); err != nil {
		return "", err
	}
	return dir, nil
}

// Stop kills the registry and waits for it.
func (r *Registry) Stop() {
	r.cmd.Process.Kill()
	r.cmd.Wait()
}

// LogTail returns the last 4000 bytes of the registry's output.
func (r *Registry) LogTail() string {
	b, _ := os.ReadFile(r.Log)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// BlobData is the file holding a blob in the registry's storage.
func (r *Registry) BlobData(digest string) string {
	hex := strings.TrimPrefix(digest, "sha256:")
	return filepath.Join(r.Storage, "docker", "registry", "v2", "blobs", "sha256", hex[:2], hex, "data")
}

// Run starts a registry for tb, stopped when tb ends (its log printed
// when tb failed). When the binary is missing, tb is skipped, but fails
// when the CI environment variable is set: CI installs it.
func Run(tb testing.TB, opts Options) *Registry {
	tb.Helper()
	r, err := Start(tb.TempDir(), opts)
	if errors.Is(err, ErrMissing) {
		if os.Getenv("CI") != "" {
			tb.Fatalf("in CI: %v", err)
		}
		tb.Skip(err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		r.Stop()
		if tb.Failed() {
			tb.Logf("registry log (end):\n%s", r.LogTail())
		}
	})
	return r
}
