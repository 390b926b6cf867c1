// Package benchreg makes large registries for benchmarks at run time,
// with no upstream: entries whose vsix files are real zips that pass
// every vsix rule, holding one stored (uncompressed) file of random bytes,
// so making gigabytes is fast. The registry verifies like one sync made:
// its marker and metadata are written through the directory store
// (dirstore) and trust.PublishCatalog, signed with a key Make writes out
// (PREFIX.pub for verify, PREFIX.key for sync); the entries' manifests,
// tags and blobs are written by a bulk loader in the directory store's
// exact layout, once and without fsync, so that 200,000 entries of 512
// bytes take minutes, not half an hour. Nothing it makes belongs in the
// repository.
package benchreg

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/trust"
)

// Options size the registry. The zero value makes 400 entries of 5 MiB.
type Options struct {
	Entries int   // default 400
	Size    int64 // bytes of random data per vsix; default 5 MiB
	// Versions is how many entries (versions 1.0.0, 1.0.1, ...) each
	// extension has, so how many share a repository; default 1, every
	// entry in its own repository, which costs a reader the most an
	// entry. Open VSX has about ten packages (versions and platforms)
	// an extension.
	Versions int
	// Signed gives every entry an upstream Ed25519 signature (a sigzip),
	// as Open VSX signs every package; verify then checks it too.
	Signed bool
	// Workers is how many entries are written at once; default
	// GOMAXPROCS, at least 2.
	Workers int
	// Now is when the entries are published and the catalog is signed;
	// default the current second.
	Now time.Time
	// Progress, when set, is called now and then from the writers with
	// how many entries are written so far.
	Progress func(done int)
}

// Result says where the registry's trust anchor is.
type Result struct {
	PubKey string // PREFIX.pub of the signing key (for --key)
	// Key is PREFIX.key, the signing key itself, unencrypted (for sync's
	// --key, with an empty COSIGN_PASSWORD).
	Key   string
	Bytes int64 // bytes of vsix files written
}

const (
	publisher = "bench"
	upKeyID   = "bench-upstream"
)

// Make creates a registry at dir (which must not exist) and writes the
// signing key to keyPrefix+".key" and its public half to keyPrefix+".pub".
func Make(ctx context.Context, dir, keyPrefix string, o Options) (*Result, error) {
	if o.Entries <= 0 {
		o.Entries = 400
	}
	o.defaults()
	signer, err := writeSigner(keyPrefix)
	if err != nil {
		return nil, err
	}
	head := index.Catalog{Serial: 1, Created: o.Now, Upstream: "https://open-vsx.invalid"}
	m := &maker{o: o}
	if o.Signed {
		upPub, upPriv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		der, err := x509.MarshalPKIXPublicKey(upPub)
		if err != nil {
			return nil, err
		}
		m.upPriv = upPriv
		head.UpstreamKeys = []index.UpstreamKey{{ID: upKeyID, PEM: string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))}}
	}
	if o.Size > maxInMemory {
		if m.tmp, err = os.MkdirTemp(filepath.Dir(dir), "benchreg-tmp-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(m.tmp)
	}
	cat, err := build(ctx, dir, head, signer, m)
	if err != nil {
		return nil, fmt.Errorf("benchmark registry %s: %w", dir, err)
	}
	res := &Result{PubKey: keyPrefix + ".pub", Key: keyPrefix + ".key"}
	for _, e := range cat.Entries {
		res.Bytes += e.VsixSize
	}
	return res, nil
}

// defaults fills in the zero values Options documents (Entries aside).
func (o *Options) defaults() {
	if o.Size <= 0 {
		o.Size = 5 << 20
	}
	if o.Versions <= 0 {
		o.Versions = 1
	}
	if o.Workers <= 0 {
		o.Workers = max(2, runtime.GOMAXPROCS(0))
	}
	if o.Now.IsZero() {
		o.Now = time.Now().UTC().Truncate(time.Second)
	}
}

// build makes the registry: the marker and directories through
// dirstore, the entries with m through a layoutWriter, then the catalog
// of them signed with signer through trust.PublishCatalog.
func build(ctx context.Context, dir string, head index.Catalog, signer signature.Signer, m *maker) (*index.Catalog, error) {
	st, err := dirstore.Open(dir, dirstore.Options{Create: true})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	lw, err := openLayoutWriter(dir)
	if err != nil {
		return nil, err
	}
	defer lw.Close()
	entries, err := makeEntries(ctx, lw, m)
	if err != nil {
		return nil, err
	}
	cat := head
	cat.Format = index.CatalogFormat
	cat.Entries = entries
	if err := cat.Validate(); err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	now := m.o.Now
	if _, err := trust.PublishCatalog(ctx, trust.Metadata(ctx, st), &cat, signer, trust.PublishOptions{Now: func() time.Time { return now }}); err != nil {
		return nil, err
	}
	return &cat, st.Close()
}

// makeEntries stores entries 0 … n-1 on m.o.Workers goroutines and
// returns them in that order; the first error stops them all. The
// entries of one extension (one repository) are stored by one worker,
// one after another, as each updates the repository's index.json.
func makeEntries(ctx context.Context, st store.Store, m *maker) ([]index.Entry, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	n := m.o.Entries
	entries := make([]index.Entry, n)
	next := make(chan int)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
	)
	for range m.o.Workers {
		wg.Go(func() {
			for ext := range next {
				for i := ext * m.o.Versions; i < min(n, (ext+1)*m.o.Versions) && ctx.Err() == nil; i++ {
					e, err := m.entry(ctx, st, m.first+i)
					if err != nil {
						cancel(fmt.Errorf("entry %d: %w", i, err))
						continue
					}
					entries[i] = e
					if m.o.Progress != nil {
						mu.Lock()
						done++
						if done%1000 == 0 || done == n {
							m.o.Progress(done)
						}
						mu.Unlock()
					}
				}
			}
		})
	}
feed:
	for ext := range (n + m.o.Versions - 1) / m.o.Versions {
		select {
		case next <- ext:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return entries, nil
}

// writeSigner makes a fresh signing key (ECDSA P-256, unencrypted, so
// cheap, as synthreg.NewSigner makes) and writes it to prefix.key, where
// trust.LoadSigner reads it with an empty password, and its public half
// to prefix.pub.
func writeSigner(prefix string) (signature.SignerVerifier, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("new signer: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, fmt.Errorf("new signer: %w", err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("new signer: %w", err)
	}
	privPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	if err := os.WriteFile(prefix+".key", privPEM, 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(prefix+".pub", pubPEM, 0o644); err != nil {
		return nil, err
	}
	return trust.ParseSigner(prefix+".key", privPEM, nil)
}
