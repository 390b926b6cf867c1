package ocistore_test

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/ocistore"
)

// manifestLog is a registry front that records the manifest requests it
// sees and answers a manifest HEAD itself, with no Docker-Content-Digest
// (the distribution spec only recommends that header); every other
// request goes to the registry behind it, or, for a manifest GET when
// redirect is set (and any manifest request when redirectAll is too), a
// 307 to redirect.
type manifestLog struct {
	next        http.Handler
	redirect    string // "http://HOST:PORT", or ""
	redirectAll bool

	mu   sync.Mutex
	seen []string
}

func (f *manifestLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.Contains(r.URL.Path, "/manifests/") {
		f.next.ServeHTTP(w, r)
		return
	}
	f.mu.Lock()
	f.seen = append(f.seen, r.Method)
	f.mu.Unlock()
	switch {
	case r.Method == http.MethodHead:
		w.Header().Set("Content-Type", artifact.MediaTypeManifest)
		w.WriteHeader(http.StatusOK)
	case f.redirect != "" && (r.Method == http.MethodGet || f.redirectAll):
		http.Redirect(w, r, f.redirect+r.URL.Path, http.StatusTemporaryRedirect)
	default:
		f.next.ServeHTTP(w, r)
	}
}

func (f *manifestLog) methods() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := strings.Join(f.seen, " ")
	f.seen = nil
	return m
}

// TestManifestRequests: putting an entry makes two manifest requests, the
// PUTs of the manifest by digest and of its tag, and tagging it again one
// PUT: no HEAD first, so a registry whose HEAD leaves out
// Docker-Content-Digest takes them;
// a manifest read follows a redirect to a private address that AlsoDial
// names, and is refused, naming --also-dial, where it does not; a
// redirected PUT or DELETE is refused, even to a host AlsoDial names, and
// never reaches it.
func TestManifestRequests(t *testing.T) {
	reg := registry.New(registry.WithBlobHandler(&repoBlobs{m: map[string][]byte{}}), registry.Logger(log.New(io.Discard, "", 0)))
	behind := &manifestLog{next: reg}
	storage := httptest.NewServer(behind) // on 127.0.0.1
	t.Cleanup(storage.Close)
	front := &manifestLog{next: reg}
	srv := httptest.NewServer(front)
	t.Cleanup(srv.Close)
	// The store names the front "localhost", so that 127.0.0.1 is
	// another host, a private address.
	host := "localhost:" + srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	ctx := t.Context()

	s := openInsecure(t, host, "airvsx", ocistore.Options{Backoff: 10 * time.Millisecond})
	repo, mb := putEntryLayers(t, s)
	m, err := artifact.PutArtifact(ctx, s, mb)
	if err != nil {
		t.Fatalf("put an entry through a registry whose manifest HEAD has no Docker-Content-Digest: %v", err)
	}
	if got := front.methods(); got != "PUT PUT" {
		t.Errorf("manifest requests of a new entry: %q; want two PUTs (the manifest by digest, then its tag)", got)
	}
	if err := s.Tag(ctx, repo, m.Tag(), store.Descriptor{MediaType: artifact.MediaTypeManifest, Digest: index.DigestBytes(mb), Size: int64(len(mb)), ArtifactType: artifact.ArtifactType}); err != nil {
		t.Fatalf("tag an entry again: %v", err)
	}
	if got := front.methods(); got != "PUT" {
		t.Errorf("manifest requests of a tag written again: %q; want one PUT", got)
	}

	front.redirect = storage.URL
	also := strings.TrimPrefix(storage.URL, "http://")
	for _, tc := range []struct {
		alsoDial []string
		want     string // in the error; "" for none
	}{
		{nil, "--also-dial"},
		{[]string{also}, ""},
	} {
		s := openInsecure(t, host, "airvsx", ocistore.Options{ReadOnly: true, AlsoDial: tc.alsoDial, Keychain: authn.NewMultiKeychain(), Retries: -1})
		tags, err := s.Tags(ctx, repo)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("AlsoDial %v: manifest read redirected to %s: %v", tc.alsoDial, also, err)
		case tc.want == "" && (len(tags) != 1 || tags[0].Manifest.Digest != index.DigestBytes(mb)):
			t.Errorf("AlsoDial %v: tags %+v; want the entry's, digest %s", tc.alsoDial, tags, index.DigestBytes(mb))
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("AlsoDial %v: manifest read redirected to %s: %v; want a refusal naming %s", tc.alsoDial, also, err, tc.want)
		}
	}

	front.redirectAll = true
	s = openInsecure(t, host, "airvsx", ocistore.Options{AlsoDial: []string{also}, Keychain: authn.NewMultiKeychain(), Retries: -1})
	behind.methods()
	for _, op := range []struct {
		name string
		do   func() error
	}{
		{"tag", func() error { return s.Tag(ctx, repo, "redirected", m.Descriptor()) }},
		{"untag", func() error { return s.Untag(ctx, repo, m.Tag()) }},
	} {
		if err := op.do(); err == nil || !strings.Contains(err.Error(), "only a GET or HEAD follows a redirect") {
			t.Errorf("%s redirected to %s: %v; want a refusal", op.name, also, err)
		}
	}
	if got := behind.methods(); strings.Contains(got, "PUT") || strings.Contains(got, "DELETE") {
		t.Errorf("the host a write was redirected to saw %q; want no write", got)
	}
}

// putEntryLayers puts the layers of one entry (golang.go 0.40.0 for
// linux-x64, its vsix a few bytes) into s and returns the entry's
// repository and manifest, which artifact.PutArtifact then stores.
func putEntryLayers(t *testing.T, s store.Store) (repo string, manifest []byte) {
	t.Helper()
	vsix := []byte("PK not really a zip")
	info := artifact.ArtifactInfo{ID: index.MustParseID("Golang.Go"), Version: "0.40.0", Platform: index.LinuxX64,
		Created: time.Date(2025, 3, 4, 3, 29, 7, 0, time.UTC), UpstreamSHA256: index.DigestBytes(vsix)[len("sha256:"):]}
	layers := []artifact.Layer{{Role: artifact.RoleVsix, Title: "golang.go-0.40.0@linux-x64.vsix", Digest: index.DigestBytes(vsix), Size: int64(len(vsix))}}
	mb, err := artifact.BuildManifest(info, layers)
	if err != nil {
		t.Fatal(err)
	}
	repo = artifact.Repo(info.ID)
	if err := s.PutBlob(t.Context(), repo, layers[0].Digest, layers[0].Size, store.BytesContent(vsix)); err != nil {
		t.Fatal(err)
	}
	return repo, mb
}
