package ocistore_test

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/ocistore"
	"github.com/airvsx/airvsx/testkit/certtest"
)

// selfSigned writes a certificate for 127.0.0.1 and its key into dir and
// returns their paths and a pool holding the certificate.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	der, key := certtest.SelfSigned(t, "airvsx test registry", func(c *x509.Certificate) { c.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")} })
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestTLS: against a registry serving TLS with a certificate of its own,
// the store works with that certificate's authority in RootCAs (the CLI's
// --ca-file) and refuses the connection without it.
func TestTLS(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t, t.TempDir())
	r := startRegistryTLS(t, certFile, keyFile, pool)
	p, err := store.ParsePlace("docker://" + r.host + "/airvsx/tls")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ocistore.Open(t.Context(), p, ocistore.Options{RootCAs: pool, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := []byte("over TLS")
	d := index.DigestBytes(b)
	if err := s.PutBlob(t.Context(), "golang/go", d, int64(len(b)), store.BytesContent(b)); err != nil {
		t.Fatalf("PutBlob over TLS: %v", err)
	}
	if got := readAll(t, s, "golang/go", d, int64(len(b))); string(got) != string(b) {
		t.Errorf("read back %q", got)
	}

	bad, err := ocistore.Open(t.Context(), p, ocistore.Options{Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if _, err := bad.StatBlob(t.Context(), "golang/go", d); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("StatBlob without the registry's CA = %v; want a certificate error", err)
	}
}

// TestRedirects: a GET or HEAD redirected to the registry's own host is
// followed; one redirected to another host is refused, never dialed.
func TestRedirects(t *testing.T) {
	blob := []byte("hello")
	d := index.DigestBytes(blob)
	var otherHit bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { otherHit = true }))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v2/":
		case strings.HasPrefix(r.URL.Path, "/v2/airvsx/golang/go/blobs/"):
			http.Redirect(w, r, "/storage/"+d, http.StatusTemporaryRedirect)
		case strings.HasPrefix(r.URL.Path, "/storage/"):
			w.Write(blob)
		case strings.HasPrefix(r.URL.Path, "/v2/airvsx/golang/tools/blobs/"):
			http.Redirect(w, r, other.URL+"/x", http.StatusTemporaryRedirect)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	s := openInsecure(t, srv.Listener.Addr().String(), "airvsx", ocistore.Options{Backoff: time.Millisecond})
	if got := readAll(t, s, "golang/go", d, int64(len(blob))); string(got) != string(blob) {
		t.Errorf("read through a redirect = %q", got)
	}
	_, err := s.OpenBlob(t.Context(), "golang/tools", d, int64(len(blob)))
	if err == nil || errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "another host") {
		t.Errorf("OpenBlob redirected to another host = %v; want a refusal", err)
	}
	if otherHit {
		t.Error("the other host was contacted")
	}
}
