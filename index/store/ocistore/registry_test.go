package ocistore_test

import (
	"crypto/x509"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/ocistore"
	"github.com/airvsx/airvsx/testkit/ocitest"
)

// testRegistry is a CNCF distribution registry on loopback
// (testkit/ocitest).
type testRegistry struct {
	*ocitest.Registry
	host string
}

// startRegistry starts a registry over plain HTTP for t.
func startRegistry(t *testing.T) *testRegistry {
	t.Helper()
	r := ocitest.Run(t, ocitest.Options{})
	return &testRegistry{r, r.Host}
}

// startRegistryTLS starts one serving TLS with the certificate and key
// in certFile and keyFile, trusted through pool.
func startRegistryTLS(t *testing.T, certFile, keyFile string, pool *x509.CertPool) *testRegistry {
	t.Helper()
	r := ocitest.Run(t, ocitest.Options{CertFile: certFile, KeyFile: keyFile, Pool: pool})
	return &testRegistry{r, r.Host}
}

var prefixes atomic.Int64

// open opens a store at a new prefix of r (so it starts empty), closed
// when t ends.
func (r *testRegistry) open(t *testing.T, opts ocistore.Options) *ocistore.Store {
	t.Helper()
	if opts.Backoff == 0 {
		opts.Backoff = 10 * time.Millisecond
	}
	return openInsecure(t, r.host, fmt.Sprintf("airvsx/t%d", prefixes.Add(1)), opts)
}

// openInsecure opens the store at prefix of the registry at host over
// plain HTTP (Options.Insecure) with the rest of opts, closed when t
// ends.
func openInsecure(t *testing.T, host, prefix string, opts ocistore.Options) *ocistore.Store {
	t.Helper()
	p, err := store.ParsePlace("docker://" + host + "/" + prefix)
	if err != nil {
		t.Fatal(err)
	}
	opts.Insecure = true
	s, err := ocistore.Open(t.Context(), p, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// blobData is the file holding a blob in the registry's storage.
func (r *testRegistry) blobData(digest string) string { return r.BlobData(digest) }
