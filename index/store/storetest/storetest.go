// Package storetest is the conformance suite for store.Store: every store
// implementation (directory, git, OCI registry) runs Run in its tests, so
// all of them keep the same contract.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/google/go-cmp/cmp"
)

// Options adapt the suite to a store.
type Options struct {
	// Tamper changes the stored bytes of a blob behind the store's back,
	// keeping its size. Default nil: the verify-on-read subtest is skipped.
	Tamper func(t *testing.T, s store.Store, repo, digest string)
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

func testBlobRoundTrip(t *testing.T, s store.Store) {
	for _, b := range [][]byte{{}, []byte("hello"), randomBytes(3<<20+17, 1)} {
		d := put(t, s, repo, b)
		size, err := s.StatBlob(t.Context(), repo, d)
		if err != nil || size != int64(len(b)) {
			t.Errorf("StatBlob(%s) = %d, %v; want %d, nil", d, size, err, len(b))
		}
		got, err := read(t, s, repo, d, int64(len(b)))
		if err != nil {
			t.Fatalf("OpenBlob(%s) read: %v", d, err)
		}
		if !bytes.Equal(got, b) {
			t.Errorf("OpenBlob(%s) read %d bytes; want the %d put", d, len(got), len(b))
		}
	}
}

func testBlobMissing(t *testing.T, s store.Store) {
	d := digestOf([]byte("absent"))
	wantNotExist(t, s, repo, d)
	if _, err := read(t, s, repo, d, 6); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenBlob(absent) = %v; want fs.ErrNotExist", err)
	}
	put(t, s, repo, []byte("present"))
	wantNotExist(t, s, repo, d)
	wantNotExist(t, s, "other/repo", digestOf([]byte("present")))
}

func testPutMismatch(t *testing.T, s store.Store) {
	hello := []byte("hello")
	tests := []struct {
		name    string
		digest  string
		size    int64
		content []byte
	}{
		{"wrong digest", digestOf([]byte("world")), 5, hello},
		{"content shorter than size", digestOf(hello), 6, hello},
		{"content longer than size", digestOf(hello), 4, hello},
		{"empty content", digestOf(hello), 5, nil},
		{"longer than size, right digest of prefix", digestOf(hello[:4]), 4, hello},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fmt.Sprintf("mismatch/r%d", i)
			err := s.PutBlob(t.Context(), r, tt.digest, tt.size, store.BytesContent(tt.content))
			var me *store.MismatchError
			if !errors.Is(err, store.ErrMismatch) || !errors.As(err, &me) {
				t.Fatalf("PutBlob = %v; want a *MismatchError wrapping ErrMismatch", err)
			}
			if me.Digest != tt.digest || me.Size != tt.size {
				t.Errorf("MismatchError = %+v; want Digest %s, Size %d", me, tt.digest, tt.size)
			}
			wantNotExist(t, s, r, tt.digest)
			repos, err := s.Repos(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(repos, r) {
				t.Errorf("Repos() = %v; a rejected put left %s behind", repos, r)
			}
		})
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

func testPutReaderError(t *testing.T, s store.Store) {
	b := randomBytes(1<<20, 2)
	d := digestOf(b)
	err := s.PutBlob(t.Context(), repo, d, int64(len(b)), &failingReader{data: b, n: len(b) / 2})
	if !errors.Is(err, errBoom) {
		t.Fatalf("PutBlob with a failing reader = %v; want errBoom", err)
	}
	wantNotExist(t, s, repo, d)
	put(t, s, repo, b) // and a retry succeeds
}

func testPutIdempotent(t *testing.T, s store.Store) {
	b := []byte("same bytes twice")
	d := put(t, s, repo, b)
	put(t, s, repo, b)
	got, err := read(t, s, repo, d, int64(len(b)))
	if err != nil || !bytes.Equal(got, b) {
		t.Errorf("read after two puts = %q, %v; want %q", got, err, b)
	}
}

func testOpenWrongSize(t *testing.T, s store.Store) {
	b := []byte("twelve bytes")
	d := put(t, s, repo, b)
	for _, size := range []int64{0, 11, 13, 1 << 40} {
		got, err := read(t, s, repo, d, size)
		if !errors.Is(err, store.ErrMismatch) {
			t.Errorf("OpenBlob(size %d) read %q, %v; want ErrMismatch", size, got, err)
		}
		if int64(len(got)) > size {
			t.Errorf("OpenBlob(size %d) handed out %d bytes", size, len(got))
		}
	}
}

func testVerifyOnRead(t *testing.T, s store.Store, tamper func(*testing.T, store.Store, string, string)) {
	if tamper == nil {
		t.Skip("no Tamper hook")
	}
	b := randomBytes(100<<10, 3)
	d := put(t, s, repo, b)
	tamper(t, s, repo, d)
	_, err := read(t, s, repo, d, int64(len(b)))
	var me *store.MismatchError
	if !errors.Is(err, store.ErrMismatch) || !errors.As(err, &me) {
		t.Fatalf("reading a tampered blob = %v; want a *MismatchError", err)
	}
	if me.GotDigest == d {
		t.Errorf("MismatchError.GotDigest = the expected digest")
	}
}

// manifest stores a small manifest blob and returns its descriptor.
func manifest(t *testing.T, s store.Store, repo, text string) store.Descriptor {
	t.Helper()
	b := []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","x":"` + text + `"}`)
	return store.Descriptor{MediaType: store.MediaTypeManifest, Digest: put(t, s, repo, b), Size: int64(len(b)), ArtifactType: store.ArtifactType}
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

func testTags(t *testing.T, s store.Store) {
	ctx := t.Context()
	if _, err := s.Tags(ctx, repo); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Tags(unknown repo) = %v; want fs.ErrNotExist", err)
	}
	a, b, c := manifest(t, s, repo, "a"), manifest(t, s, repo, "b"), manifest(t, s, repo, "c")
	for _, tag := range []struct {
		name string
		d    store.Descriptor
	}{{"universal-1.0.0", c}, {"linux-x64-1.0.0", a}, {"universal-0.9.0", b}} {
		if err := s.Tag(ctx, repo, tag.name, tag.d); err != nil {
			t.Fatalf("Tag(%s): %v", tag.name, err)
		}
	}
	want := map[string]store.Descriptor{"linux-x64-1.0.0": a, "universal-0.9.0": b, "universal-1.0.0": c}
	if diff := cmp.Diff(want, tags(t, s, repo)); diff != "" {
		t.Errorf("Tags (-want +got):\n%s", diff)
	}
	if err := s.Tag(ctx, repo, "universal-0.9.0", a); err != nil {
		t.Fatalf("retag: %v", err)
	}
	want["universal-0.9.0"] = a
	if diff := cmp.Diff(want, tags(t, s, repo)); diff != "" {
		t.Errorf("Tags after retag (-want +got):\n%s", diff)
	}

	missing := store.Descriptor{MediaType: store.MediaTypeManifest, Digest: digestOf([]byte("nope")), Size: 4}
	if err := s.Tag(ctx, repo, "web-1.0.0", missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Tag(absent manifest) = %v; want fs.ErrNotExist", err)
	}
	wrongSize := a
	wrongSize.Size++
	if err := s.Tag(ctx, repo, "web-1.0.0", wrongSize); !errors.Is(err, store.ErrMismatch) {
		t.Errorf("Tag(wrong size) = %v; want ErrMismatch", err)
	}
	notManifest := a
	notManifest.MediaType = "application/octet-stream"
	if err := s.Tag(ctx, repo, "web-1.0.0", notManifest); err == nil {
		t.Error("Tag(media type application/octet-stream) = nil; want an error")
	}
	if diff := cmp.Diff(want, tags(t, s, repo)); diff != "" {
		t.Errorf("failed Tag calls changed the tags (-want +got):\n%s", diff)
	}
}

func testUntag(t *testing.T, s store.Store) {
	ctx := t.Context()
	if err := s.Untag(ctx, "never/seen", "universal-1.0.0"); err != nil {
		t.Errorf("Untag(unknown repo) = %v; want nil", err)
	}
	a, b := manifest(t, s, repo, "a"), manifest(t, s, repo, "b")
	for tag, d := range map[string]store.Descriptor{"x": a, "y": b, "z": a} {
		if err := s.Tag(ctx, repo, tag, d); err != nil {
			t.Fatal(err)
		}
	}
	for _, tag := range []string{"y", "y", "absent"} {
		if err := s.Untag(ctx, repo, tag); err != nil {
			t.Errorf("Untag(%s) = %v", tag, err)
		}
	}
	if diff := cmp.Diff(map[string]store.Descriptor{"x": a, "z": a}, tags(t, s, repo)); diff != "" {
		t.Errorf("Tags after Untag (-want +got):\n%s", diff)
	}
	if _, err := s.StatBlob(ctx, repo, b.Digest); err != nil {
		t.Errorf("Untag removed the manifest blob: %v", err)
	}
}

func testRepos(t *testing.T, s store.Store) {
	ctx := t.Context()
	got, err := s.Repos(ctx)
	if err != nil || len(got) != 0 {
		t.Fatalf("Repos() of a new store = %v, %v; want none", got, err)
	}
	for _, r := range []string{"b/x", "a-b/y", "a/z", "a/z", "ms-python/python"} {
		put(t, s, r, []byte(r))
	}
	d := manifest(t, s, "redhat/java", "m")
	if err := s.Tag(ctx, "redhat/java", "universal-1.0.0", d); err != nil {
		t.Fatal(err)
	}
	got, err = s.Repos(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a-b/y", "a/z", "b/x", "ms-python/python", "redhat/java"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Repos() (-want +got):\n%s", diff)
	}
}

func testMetadata(t *testing.T, s store.Store) {
	ctx := t.Context()
	if _, err := s.ReadMetadata(ctx, "root.json", 1<<20); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadMetadata(absent) = %v; want fs.ErrNotExist", err)
	}
	files := map[string][]byte{
		"root.json":                []byte(`{"signed":1}`),
		"1.root.json":              []byte(`{"signed":0}`),
		"catalog.json":             randomBytes(1<<20, 4),
		"targets/catalog.json":     []byte("nested"),
		"timestamp.json":           {},
		"deep/er/still/x-y_z.json": []byte("deep"),
	}
	for name, data := range files {
		if err := s.WriteMetadata(ctx, name, data); err != nil {
			t.Fatalf("WriteMetadata(%s): %v", name, err)
		}
	}
	if err := s.WriteMetadata(ctx, "root.json", []byte(`{"signed":2}`)); err != nil {
		t.Fatal(err)
	}
	files["root.json"] = []byte(`{"signed":2}`)
	for name, data := range files {
		got, err := s.ReadMetadata(ctx, name, int64(len(data)))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("ReadMetadata(%s, exact size) = %d bytes, %v; want the %d written", name, len(got), err, len(data))
		}
	}
	if _, err := s.ReadMetadata(ctx, "catalog.json", 1<<20-1); !errors.Is(err, store.ErrTooLarge) {
		t.Errorf("ReadMetadata(over maxSize) = %v; want ErrTooLarge", err)
	}
	if _, err := s.ReadMetadata(ctx, "targets", 1<<20); err == nil {
		t.Error("ReadMetadata(a directory) = nil error")
	}
	names, err := s.ListMetadata(ctx)
	want := slices.Sorted(maps.Keys(files))
	if err != nil || !slices.Equal(names, want) {
		t.Errorf("ListMetadata = %q, %v; want %q", names, err, want)
	}
}

func testQuarantine(t *testing.T, s store.Store) {
	ctx := t.Context()
	files := func() map[string]io.Reader {
		return map[string]io.Reader{
			"golang.go-0.40.0.vsix": strings.NewReader("not a zip"),
			"golang.go-0.40.0.json": strings.NewReader("{}"),
		}
	}
	p1, err := s.Quarantine(ctx, "golang.go-0.40.0", "sha256 mismatch: got sha256:00, want sha256:11", files())
	if err != nil || p1 != "quarantine/golang.go-0.40.0" {
		t.Fatalf("Quarantine = %q, %v; want the location quarantine/golang.go-0.40.0", p1, err)
	}
	p2, err := s.Quarantine(ctx, "golang.go-0.40.0", "again", files())
	if err != nil || !strings.HasPrefix(p2, "quarantine/golang.go-0.40.0") || p2 == p1 {
		t.Fatalf("second Quarantine of the same name = %q, %v; want a new place beside %q", p2, err, p1)
	}
	if _, err := s.Quarantine(ctx, "no-files", "the download failed", nil); err != nil {
		t.Errorf("Quarantine without files = %v", err)
	}
	err = func() error {
		_, err := s.Quarantine(ctx, "failing", "x", map[string]io.Reader{"a.vsix": &failingReader{data: []byte("abc"), n: 2}})
		return err
	}()
	if !errors.Is(err, errBoom) {
		t.Errorf("Quarantine with a failing reader = %v; want errBoom", err)
	}
}

func testHostileNames(t *testing.T, s store.Store) {
	ctx := t.Context()
	good := put(t, s, repo, []byte("x"))
	d := manifest(t, s, repo, "m")
	badRepos := []string{"", "golang", "golang/go/x", "Golang/go", "golang/Go", "../go", "golang/..", "golang/", "/golang/go",
		`golang\go`, "golang/go\x00", "con/go", "golang/nul", "golang/com1", "progra~1/x", "golang/a b", "golang/é", ".tmp-x/go", "golang/.tmp-x",
		strings.Repeat("a", 256) + "/go"}
	badDigests := []string{"", "sha256:", "sha256:" + strings.Repeat("a", 63), "sha256:" + strings.Repeat("A", 64), "sha512:" + strings.Repeat("a", 128),
		"sha256:" + strings.Repeat("a", 62) + "/.", "sha256:../../../../etc/passwd", strings.Repeat("a", 64), "SHA256:" + strings.Repeat("a", 64)}
	badTags := []string{"", ".x", "-x", "a/b", "a:b", "a b", "a\x00", strings.Repeat("a", 129), "é"}
	badMeta := []string{"", "/root.json", "../root.json", "a/../root.json", "./root.json", "a//b", "a/", ".hidden", ".tmp-x", `a\b`, "con.json",
		"a/nul", "x\x00", "a b", strings.Repeat("a/", 9) + "x", strings.Repeat("a", 256)}
	badQuarantine := []string{"", "a/b", "..", ".", ".tmp-x", "aux", strings.Repeat("a", 201)}

	wantInvalid := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, store.ErrInvalidName) {
			t.Errorf("%s = %v; want ErrInvalidName", what, err)
		}
	}
	for _, r := range badRepos {
		_, err := s.StatBlob(ctx, r, good)
		wantInvalid(fmt.Sprintf("StatBlob(%q)", r), err)
		wantInvalid(fmt.Sprintf("PutBlob(%q)", r), s.PutBlob(ctx, r, good, 1, store.BytesContent([]byte("x"))))
		_, err = s.OpenBlob(ctx, r, good, 1)
		wantInvalid(fmt.Sprintf("OpenBlob(%q)", r), err)
		wantInvalid(fmt.Sprintf("Tag(%q)", r), s.Tag(ctx, r, "t", d))
		_, err = s.Tags(ctx, r)
		wantInvalid(fmt.Sprintf("Tags(%q)", r), err)
		wantInvalid(fmt.Sprintf("Untag(%q)", r), s.Untag(ctx, r, "t"))
	}
	for _, dg := range badDigests {
		_, err := s.StatBlob(ctx, repo, dg)
		wantInvalid(fmt.Sprintf("StatBlob(%q)", dg), err)
		wantInvalid(fmt.Sprintf("PutBlob(%q)", dg), s.PutBlob(ctx, repo, dg, 1, store.BytesContent([]byte("x"))))
		_, err = s.OpenBlob(ctx, repo, dg, 1)
		wantInvalid(fmt.Sprintf("OpenBlob(%q)", dg), err)
		bad := d
		bad.Digest = dg
		wantInvalid(fmt.Sprintf("Tag(digest %q)", dg), s.Tag(ctx, repo, "t", bad))
	}
	for _, tag := range badTags {
		wantInvalid(fmt.Sprintf("Tag(%q)", tag), s.Tag(ctx, repo, tag, d))
		wantInvalid(fmt.Sprintf("Untag(%q)", tag), s.Untag(ctx, repo, tag))
	}
	for _, name := range badMeta {
		wantInvalid(fmt.Sprintf("WriteMetadata(%q)", name), s.WriteMetadata(ctx, name, []byte("x")))
		_, err := s.ReadMetadata(ctx, name, 10)
		wantInvalid(fmt.Sprintf("ReadMetadata(%q)", name), err)
	}
	for _, name := range badQuarantine {
		_, err := s.Quarantine(ctx, name, "r", nil)
		wantInvalid(fmt.Sprintf("Quarantine(%q)", name), err)
		if len(name) < 256 && len(name) > 200 {
			name += strings.Repeat("a", 55) // file names may be up to 255 bytes
		}
		_, err = s.Quarantine(ctx, "ok", "r", map[string]io.Reader{name: strings.NewReader("x")})
		wantInvalid(fmt.Sprintf("Quarantine(file %q)", name), err)
	}
	for _, files := range []map[string]io.Reader{
		{"REASON": strings.NewReader("x")},
		{"reason.json": strings.NewReader("x")},
		{"a.vsix": strings.NewReader("x"), "A.vsix": strings.NewReader("y")},
	} {
		_, err := s.Quarantine(ctx, "ok", "r", files)
		wantInvalid(fmt.Sprintf("Quarantine(files %v)", slices.Sorted(maps.Keys(files))), err)
	}
	repos, err := s.Repos(ctx)
	if err != nil || !slices.Equal(repos, []string{repo}) {
		t.Errorf("Repos() after hostile calls = %v, %v; want [%s]", repos, err, repo)
	}
	if diff := cmp.Diff(map[string]store.Descriptor{}, tags(t, s, repo)); diff != "" {
		t.Errorf("hostile calls made tags (-want +got):\n%s", diff)
	}
}

func testContextCanceled(t *testing.T, s store.Store) {
	b := []byte("blob")
	d := put(t, s, repo, b)
	m := manifest(t, s, repo, "m")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	want := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a canceled context = %v; want context.Canceled", what, err)
		}
	}
	other := []byte("other")
	_, err := s.StatBlob(ctx, repo, d)
	want("StatBlob", err)
	want("PutBlob", s.PutBlob(ctx, repo, digestOf(other), int64(len(other)), store.BytesContent(other)))
	wantNotExist(t, s, repo, digestOf(other))
	_, err = s.OpenBlob(ctx, repo, d, int64(len(b)))
	want("OpenBlob", err)
	want("Tag", s.Tag(ctx, repo, "t", m))
	_, err = s.Tags(ctx, repo)
	want("Tags", err)
	want("Untag", s.Untag(ctx, repo, "t"))
	_, err = s.Repos(ctx)
	want("Repos", err)
	_, err = s.ReadMetadata(ctx, "root.json", 10)
	want("ReadMetadata", err)
	want("WriteMetadata", s.WriteMetadata(ctx, "root.json", []byte("x")))
	_, err = s.Quarantine(ctx, "q", "r", nil)
	want("Quarantine", err)

	// Canceled halfway through a put: nothing stored.
	big := randomBytes(4<<20, 5)
	ctx2, cancel2 := context.WithCancel(t.Context())
	r := &cancelingReader{r: bytes.NewReader(big), after: 1 << 20, cancel: cancel2}
	want("PutBlob canceled midway", s.PutBlob(ctx2, repo, digestOf(big), int64(len(big)), r))
	wantNotExist(t, s, repo, digestOf(big))

	// Canceled halfway through a read.
	put(t, s, repo, big)
	ctx3, cancel3 := context.WithCancel(t.Context())
	rc, err := s.OpenBlob(ctx3, repo, digestOf(big), int64(len(big)))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if _, err := io.ReadFull(rc, make([]byte, 1024)); err != nil {
		t.Fatal(err)
	}
	cancel3()
	_, err = io.Copy(io.Discard, rc)
	want("reading an OpenBlob reader", err)
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

func testConcurrent(t *testing.T, s store.Store) {
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	want := make(map[string]store.Descriptor)
	var mu sync.Mutex
	for i := range n {
		wg.Go(func() {
			b := []byte(fmt.Sprintf(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","n":%d}`, i))
			d := digestOf(b)
			if err := s.PutBlob(t.Context(), repo, d, int64(len(b)), store.BytesContent(b)); err != nil {
				errs <- err
				return
			}
			desc := store.Descriptor{MediaType: store.MediaTypeManifest, Digest: d, Size: int64(len(b))}
			tag := fmt.Sprintf("universal-1.0.%d", i)
			if err := s.Tag(t.Context(), repo, tag, desc); err != nil {
				errs <- err
				return
			}
			mu.Lock()
			want[tag] = desc
			mu.Unlock()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if diff := cmp.Diff(want, tags(t, s, repo)); diff != "" {
		t.Errorf("Tags after concurrent tagging (-want +got):\n%s", diff)
	}
}

func testArtifact(t *testing.T, s store.Store) {
	ctx := t.Context()
	vsix := randomBytes(10<<10, 6)
	readme := []byte("# Go\n")
	info := store.ArtifactInfo{
		ID:             index.MustParseID("Golang.Go"),
		Version:        "0.40.0+build.7",
		Platform:       index.LinuxX64,
		Created:        time.Date(2025, 3, 4, 3, 29, 7, 108336000, time.UTC),
		UpstreamSHA256: strings.TrimPrefix(digestOf(vsix), "sha256:"),
	}
	layers := []store.Layer{
		{Role: store.RoleReadme, Title: "README.md", Digest: digestOf(readme), Size: int64(len(readme))},
		{Role: store.RoleVsix, Title: "golang.go-0.40.0@linux-x64.vsix", Digest: digestOf(vsix), Size: int64(len(vsix))},
	}
	b, err := store.BuildManifest(info, layers)
	if err != nil {
		t.Fatal(err)
	}
	repo := store.Repo(info.ID)
	put(t, s, repo, vsix)
	if _, err := store.PutArtifact(ctx, s, b); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("PutArtifact without the readme blob = %v; want fs.ErrNotExist", err)
	}
	if _, err := s.Tags(ctx, repo); err != nil {
		t.Fatal(err)
	}
	if got := tags(t, s, repo); len(got) != 0 {
		t.Fatalf("a failed PutArtifact tagged %v", got)
	}
	put(t, s, repo, readme)
	m, err := store.PutArtifact(ctx, s, b)
	if err != nil {
		t.Fatalf("PutArtifact: %v", err)
	}
	want := map[string]store.Descriptor{"linux-x64-0.40.0_build.7": m.Descriptor()}
	if diff := cmp.Diff(want, tags(t, s, repo)); diff != "" {
		t.Errorf("Tags after PutArtifact (-want +got):\n%s", diff)
	}
	got, err := read(t, s, repo, m.Digest, m.Size)
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("reading the manifest back = %v", err)
	}
	if _, err := read(t, s, repo, store.EmptyConfigDigest, 2); err != nil {
		t.Errorf("reading the empty config: %v", err)
	}
}
