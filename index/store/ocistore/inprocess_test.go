package ocistore_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/ocistore"
	"github.com/airvsx/airvsx/index/store/storetest"
)

// TestConformanceInProcess runs the store conformance suite against
// go-containerregistry's in-process registry (pkg/registry) on loopback,
// so it needs no outside binary (TestConformance runs it against the
// CNCF distribution registry when that is installed).
//
// The registry keeps its blobs through repoBlobs, not its own in-memory
// handler: that one holds one copy of a blob for every repository (a blob
// put into one would be found in all), where distribution links each blob
// to the repositories it was put into, as the suite expects; repoBlobs
// also lets the verify-on-read check damage a blob behind the store's
// back. It takes the repository of an upload's commit to be the one
// whose upload it is: pkg/registry names it "<repository>/blobs" (the
// path before the upload's last two elements, "uploads/<id>"), which
// would file a blob where no read finds it. pkg/registry does not mount across repositories (a mount request
// opens an upload instead, which the store follows as distribution's
// spec allows) and sends no Link header for a next page of tags or of
// the catalog (the suite's lists fit in one page of 1000).
func TestConformanceInProcess(t *testing.T) {
	blobs := &repoBlobs{m: map[string][]byte{}}
	srv := httptest.NewServer(registry.New(registry.WithBlobHandler(blobs), registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	host := srv.Listener.Addr().String()
	storetest.Run(t, func(t *testing.T) store.Store {
		return openInsecure(t, host, fmt.Sprintf("airvsx/t%d", prefixes.Add(1)), ocistore.Options{Backoff: 10 * time.Millisecond})
	}, storetest.Options{
		Tamper: func(t *testing.T, s store.Store, repo, digest string) { blobs.tamper(t, digest) },
	})
}

// repoBlobs is a pkg/registry blob handler in memory that keeps each
// repository's blobs apart.
type repoBlobs struct {
	mu sync.Mutex
	m  map[string][]byte // repository "@" digest → content
}

// key is where the blob h of repo is kept.
func key(repo string, h v1.Hash) string {
	return strings.TrimSuffix(repo, "/blobs") + "@" + h.String()
}

func (b *repoBlobs) get(repo string, h v1.Hash) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	data, ok := b.m[key(repo, h)]
	if !ok {
		return nil, registry.ErrNotFound
	}
	return data, nil
}

func (b *repoBlobs) Get(_ context.Context, repo string, h v1.Hash) (io.ReadCloser, error) {
	data, err := b.get(repo, h)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

func (b *repoBlobs) Stat(_ context.Context, repo string, h v1.Hash) (int64, error) {
	data, err := b.get(repo, h)
	return int64(len(data)), err
}

func (b *repoBlobs) Put(_ context.Context, repo string, h v1.Hash, rc io.ReadCloser) error {
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.m[key(repo, h)] = data
	return nil
}

func (b *repoBlobs) Delete(_ context.Context, repo string, h v1.Hash) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.m[key(repo, h)]; !ok {
		return registry.ErrNotFound
	}
	delete(b.m, key(repo, h))
	return nil
}

// tamper flips the first byte of every stored copy of digest.
func (b *repoBlobs) tamper(t *testing.T, digest string) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for k, data := range b.m {
		if strings.HasSuffix(k, "@"+digest) && len(data) > 0 {
			c := bytes.Clone(data)
			c[0] ^= 0xff
			b.m[k] = c
			n++
		}
	}
	if n == 0 {
		t.Fatalf("tamper: no stored copy of %s", digest)
	}
}
