// Package synthreg builds synthetic signed registries for tests and
// benchmarks straight through the store API and trust.Publish, with no
// upstream and no sync, so that thousands of entries take seconds: Build
// stores the entries a function makes, on several goroutines, and signs a
// catalog of them; Artifact stores one entry's blobs and manifest;
// NewSigner makes a signing key that costs microseconds. site/sitetest
// and verify/internal/benchreg build their registries with it.
package synthreg

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/trust"
)

// NewSigner returns a fresh ECDSA P-256 signer and its public key PEM.
// The private key is never encrypted (no scrypt), so making one is cheap.
func NewSigner() (signature.SignerVerifier, []byte, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("new signer: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, nil, fmt.Errorf("new signer: %w", err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		return nil, nil, fmt.Errorf("new signer: %w", err)
	}
	sv, err := trust.ParseSigner("synthreg.key", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("new signer: %w", err)
	}
	return sv, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), nil
}

// Options configure Build. Signer is required.
type Options struct {
	// Entries is how many entries Build makes. Default 0: none.
	Entries int
	// Workers is how many entries are stored at once. Default
	// GOMAXPROCS.
	Workers int
	// Catalog is the catalog's header (Serial, Created, Upstream,
	// UpstreamKeys, …); Build sets Format, and Serial 1 when it is 0, and
	// fills Entries.
	Catalog index.Catalog
	// Signer signs the catalog. Required.
	Signer signature.Signer
	// Now is when the catalog is signed. Default time.Now.
	Now time.Time
}

// EntryFunc stores entry i of a registry in st and returns its catalog
// entry. Build calls it from several goroutines at once.
type EntryFunc func(ctx context.Context, st store.Store, i int) (index.Entry, error)

// Build creates a registry in dir (see dirstore.Open with Create), stores
// opts.Entries entries with entry, checks the catalog of them and signs it
// with opts.Signer. It returns the catalog.
func Build(ctx context.Context, dir string, opts Options, entry EntryFunc) (*index.Catalog, error) {
	if opts.Signer == nil {
		return nil, fmt.Errorf("synthetic registry %s: no signer", dir)
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	st, err := dirstore.Open(dir, dirstore.Options{Create: true})
	if err != nil {
		return nil, fmt.Errorf("synthetic registry: %w", err)
	}
	defer st.Close()
	entries, err := makeEntries(ctx, st, opts.Entries, opts.Workers, entry)
	if err != nil {
		return nil, fmt.Errorf("synthetic registry %s: %w", dir, err)
	}
	cat := opts.Catalog
	cat.Format = index.CatalogFormat
	if cat.Serial == 0 {
		cat.Serial = 1
	}
	cat.Entries = entries
	if err := cat.Validate(); err != nil {
		return nil, fmt.Errorf("synthetic registry %s: catalog: %w", dir, err)
	}
	now := opts.Now
	if _, err := trust.PublishCatalog(ctx, trust.Metadata(ctx, st), &cat, opts.Signer, trust.PublishOptions{Now: func() time.Time { return now }}); err != nil {
		return nil, fmt.Errorf("synthetic registry %s: %w", dir, err)
	}
	return &cat, nil
}

// makeEntries calls entry for 0 … n-1 on workers goroutines and returns
// the entries in that order, or the first error by index.
func makeEntries(ctx context.Context, st store.Store, n, workers int, entry EntryFunc) ([]index.Entry, error) {
	entries := make([]index.Entry, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				entries[i], errs[i] = entry(ctx, st, i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return entries, nil
}

// Artifact stores the blobs of one entry in its repository and collects
// their layers, then its manifest (Put).
type Artifact struct {
	st     store.Store
	repo   string
	Layers []artifact.Layer // in the order added
}

// NewArtifact starts an artifact of the extension id in st.
func NewArtifact(st store.Store, id index.ID) *Artifact {
	return &Artifact{st: st, repo: artifact.Repo(id)}
}

// Add stores data as a layer of role named title.
func (a *Artifact) Add(ctx context.Context, role artifact.Role, title string, data []byte) error {
	return a.AddContent(ctx, role, title, index.DigestBytes(data), int64(len(data)), store.BytesContent(data))
}

// AddContent stores size bytes of c, whose digest is digest, as a layer
// of role named title.
func (a *Artifact) AddContent(ctx context.Context, role artifact.Role, title, digest string, size int64, c store.Content) error {
	if err := a.st.PutBlob(ctx, a.repo, digest, size, c); err != nil {
		return fmt.Errorf("layer %s: %w", title, err)
	}
	a.Layers = append(a.Layers, artifact.Layer{Role: role, Title: title, Digest: digest, Size: size})
	return nil
}

// Put builds the manifest of info and the layers added, stores it and
// tags it.
func (a *Artifact) Put(ctx context.Context, info artifact.ArtifactInfo) (*artifact.Manifest, error) {
	raw, err := artifact.BuildManifest(info, a.Layers)
	if err != nil {
		return nil, fmt.Errorf("manifest of %s: %w", a.repo, err)
	}
	m, err := artifact.PutArtifact(ctx, a.st, raw)
	if err != nil {
		return nil, fmt.Errorf("manifest of %s: %w", a.repo, err)
	}
	return m, nil
}
