// Package storetest is the conformance suite for store.Store: every store
// implementation (directory, git, OCI registry) runs Run in its tests, so
// all of them keep the same contract.
//
// It also holds Mem, an in-memory Store that runs the suite too, for
// tests of readers (verify, site) that must work through any store: a
// Mem has no directory and none of a directory store's extras, and
// MemFromDir copies a directory registry into one raw, damage included.
// OpenDir opens a directory store for a test, failing it when it cannot.
package storetest

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
)

// Options adapt the suite to a store.
type Options struct {
	// Tamper changes the stored bytes of a blob behind the store's back,
	// keeping its size. Default nil: the verify-on-read subtest is skipped.
	Tamper func(t *testing.T, s store.Store, repo, digest string)
	// CannotCommit says the store groups writes into changes
	// (store.Committer) but cannot commit them (a git store with no
	// signing key): the capability subtests that need a commit (LayoutFS,
	// Discard) are skipped. Default false.
	CannotCommit bool
}

// Run runs the conformance suite. open returns a new, empty, writable
// store for each subtest and registers its own cleanup (Close included).
func Run(t *testing.T, open func(t *testing.T) store.Store, opts Options) {
	tests := []struct {
		name string
		fn   func(*testing.T, store.Store)
	}{
		{"BlobRoundTrip", testBlobRoundTrip},
		{"BlobMissing", testBlobMissing},
		{"PutMismatch", testPutMismatch},
		{"PutReaderError", testPutReaderError},
		{"PutIdempotent", testPutIdempotent},
		{"OpenWrongSize", testOpenWrongSize},
		{"VerifyOnRead", func(t *testing.T, s store.Store) { testVerifyOnRead(t, s, opts.Tamper) }},
		{"Tags", testTags},
		{"Untag", testUntag},
		{"Repos", testRepos},
		{"Metadata", testMetadata},
		{"Quarantine", testQuarantine},
		{"HostileNames", testHostileNames},
		{"ContextCanceled", testContextCanceled},
		{"Concurrent", testConcurrent},
		{"Artifact", testArtifact},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open(t)) })
	}
	// The optional capabilities: each subtest runs when the store under
	// test offers the capability (store.As), so a store that claims one
	// and gets it wrong fails; what it does not offer is logged, not run.
	needsCommit := func(s store.Store) bool {
		_, ok := store.As[store.Committer](s)
		return ok && opts.CannotCommit
	}
	caps := []struct {
		name    string
		offered func(store.Store) bool
		fn      func(*testing.T, store.Store)
	}{
		{"BlobFile", offers[store.BlobFiler], testBlobFile},
		{"ReplaceBlob", offers[store.BlobReplacer], func(t *testing.T, s store.Store) { testReplaceBlob(t, s, opts.Tamper) }},
		{"LayoutRepair", offers[store.LayoutRepairer], testLayoutRepair},
		{"FreeSpace", offers[store.FreeSpacer], testFreeSpace},
		{"Staging", offers[store.Stager], testStaging},
		{"LayoutFS", offers[store.LayoutFS], func(t *testing.T, s store.Store) { testLayoutFS(t, s) }},
		{"Discard", offers[store.Discarder], func(t *testing.T, s store.Store) { testDiscard(t, s) }},
		{"DeleteBlob", offers[store.BlobDeleter], testDeleteBlob},
		{"Pending", offers[store.PendingWriter], testPending},
	}
	probe := open(t)
	var notOffered []string
	for _, c := range caps {
		switch {
		case !c.offered(probe):
			notOffered = append(notOffered, c.name)
		case needsCommit(probe) && (c.name == "LayoutFS" || c.name == "Discard"):
			notOffered = append(notOffered, c.name+" (offered, but needs a commit this store cannot make)")
		default:
			t.Run(c.name, func(t *testing.T) { c.fn(t, open(t)) })
		}
	}
	if len(notOffered) > 0 {
		t.Logf("capability subtests not run: %s", strings.Join(notOffered, ", "))
	}
}

const repo = "golang/go"

// digestOf returns "sha256:<hex>" of b.
func digestOf(b []byte) string {
	return index.DigestBytes(b)
}

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// put stores b in repo and returns its digest.
func put(t *testing.T, s store.Store, repo string, b []byte) string {
	t.Helper()
	d := digestOf(b)
	if err := s.PutBlob(t.Context(), repo, d, int64(len(b)), store.BytesContent(b)); err != nil {
		t.Fatalf("PutBlob(%s, %s): %v", repo, d, err)
	}
	return d
}

// read reads a blob through OpenBlob.
func read(t *testing.T, s store.Store, repo, digest string, size int64) ([]byte, error) {
	t.Helper()
	rc, err := s.OpenBlob(t.Context(), repo, digest, size)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

func wantNotExist(t *testing.T, s store.Store, repo, digest string) {
	t.Helper()
	if size, err := s.StatBlob(t.Context(), repo, digest); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("StatBlob(%s, %s) = %d, %v; want fs.ErrNotExist", repo, digest, size, err)
	}
}

var errBoom = errors.New("boom")

// failingReader returns n bytes of data, then errBoom.
type failingReader struct {
	data []byte
	n    int
}

func (f *failingReader) Rewind() error { return errors.New("failingReader cannot rewind") }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errBoom
	}
	k := copy(p[:min(len(p), f.n)], f.data)
	f.data, f.n = f.data[k:], f.n-k
	return k, nil
}

// manifest stores a small manifest blob, with its empty config, and
// returns its descriptor.
func manifest(t *testing.T, s store.Store, repo, text string) store.Descriptor {
	t.Helper()
	put(t, s, repo, []byte(artifact.EmptyConfig))
	b := manifestBytes(artifact.ArtifactType, text)
	return store.Descriptor{MediaType: artifact.MediaTypeManifest, Digest: put(t, s, repo, b), Size: int64(len(b)), ArtifactType: artifact.ArtifactType}
}

// manifestBytes is a valid OCI image manifest with the empty config, no
// layer, the artifact type (if any) and text in an annotation: one a
// registry accepts too (its config blob must be stored first).
func manifestBytes(artifactType, text string) []byte {
	at := ""
	if artifactType != "" {
		at = `"artifactType":"` + artifactType + `",`
	}
	return []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",` + at +
		`"config":{"mediaType":"application/vnd.oci.empty.v1+json","digest":"` + artifact.EmptyConfigDigest + `","size":2},` +
		`"layers":[],"annotations":{"x":"` + text + `"}}`)
}

func tags(t *testing.T, s store.Store, repo string) map[string]store.Descriptor {
	t.Helper()
	list, err := s.Tags(t.Context(), repo)
	if err != nil {
		t.Fatalf("Tags(%s): %v", repo, err)
	}
	if !slices.IsSortedFunc(list, func(a, b store.TagEntry) int { return strings.Compare(a.Tag, b.Tag) }) {
		t.Errorf("Tags(%s) not sorted: %v", repo, list)
	}
	m := make(map[string]store.Descriptor)
	for _, e := range list {
		e.Manifest.Annotations = nil // stores may drop them
		m[e.Tag] = e.Manifest
	}
	return m
}

// cancelingReader cancels its context after handing out after bytes.
type cancelingReader struct {
	r      io.Reader
	after  int
	cancel context.CancelFunc
}

func (c *cancelingReader) Rewind() error { return errors.New("cancelingReader cannot rewind") }

func (c *cancelingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.after -= n
	if c.after <= 0 {
		c.cancel()
	}
	return n, err
}
