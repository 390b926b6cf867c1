package dirstore_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/google/go-cmp/cmp"
)

func newDir(t *testing.T) *dirstore.Store {
	t.Helper()
	d := storetest.OpenDir(t, filepath.Join(t.TempDir(), "reg"), dirstore.Options{Create: true})
	t.Cleanup(func() { d.Close() })
	return d
}

func blobFile(d *dirstore.Store, repo, digest string) string {
	return filepath.Join(d.Path(), filepath.FromSlash(artifact.BlobName(repo, digest)))
}

func TestDirConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return newDir(t) }, storetest.Options{
		Tamper: func(t *testing.T, s store.Store, repo, digest string) {
			filetest.FlipByte(t, blobFile(s.(*dirstore.Store), repo, digest))
		},
	})
}

func sha(b []byte) string { return index.DigestBytes(b) }

func putBlob(t *testing.T, s store.Store, repo string, b []byte) string {
	t.Helper()
	d := sha(b)
	if err := s.PutBlob(t.Context(), repo, d, int64(len(b)), store.BytesContent(b)); err != nil {
		t.Fatal(err)
	}
	return d
}

// testEntry stores one complete entry and returns its manifest.
func testEntry(t *testing.T, s store.Store, id, version string, platform index.Platform) *artifact.Manifest {
	t.Helper()
	vsix := []byte("PK vsix of " + id + "@" + version + "@" + string(platform))
	pkg := []byte(`{"name":"x"}`)
	info := artifact.ArtifactInfo{
		ID: index.MustParseID(id), Version: version, Platform: platform,
		Created:        time.Date(2025, 3, 4, 3, 29, 7, 108336000, time.UTC),
		UpstreamSHA256: strings.TrimPrefix(sha(vsix), "sha256:"),
	}
	repo := artifact.Repo(info.ID)
	layers := []artifact.Layer{
		{Role: artifact.RoleManifest, Title: "package.json", Digest: putBlob(t, s, repo, pkg), Size: int64(len(pkg))},
		{Role: artifact.RoleVsix, Title: id + "-" + version + ".vsix", Digest: putBlob(t, s, repo, vsix), Size: int64(len(vsix))},
	}
	b, err := artifact.BuildManifest(info, layers)
	if err != nil {
		t.Fatal(err)
	}
	m, err := artifact.PutArtifact(t.Context(), s, b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// tree returns every file and directory under dir with its content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := make(map[string]string)
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case e.IsDir():
			out[rel+"/"] = ""
		case e.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		default:
			out[rel] = "(" + e.Type().String() + ")"
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDirLayout(t *testing.T) {
	d := newDir(t)
	m := testEntry(t, d, "Golang.Go", "0.40.0", index.LinuxX64)
	if err := d.WriteMetadata(t.Context(), "root.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	got := tree(t, d.Path())
	manifest := got["extensions/golang/go/blobs/sha256/"+strings.TrimPrefix(m.Digest, "sha256:")]
	keys := slices.Sorted(maps.Keys(got))
	wantKeys := []string{
		"./",
		"airvsx-registry",
		"extensions/",
		"extensions/golang/",
		"extensions/golang/go/",
		"extensions/golang/go/blobs/",
		"extensions/golang/go/blobs/sha256/",
		"extensions/golang/go/blobs/sha256/44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
		"extensions/golang/go/blobs/sha256/" + strings.TrimPrefix(m.Layers[0].Digest, "sha256:"),
		"extensions/golang/go/blobs/sha256/" + strings.TrimPrefix(m.Layers[1].Digest, "sha256:"),
		"extensions/golang/go/blobs/sha256/" + strings.TrimPrefix(m.Digest, "sha256:"),
		"extensions/golang/go/index.json",
		"extensions/golang/go/oci-layout",
		"metadata/",
		"metadata/root.json",
		"quarantine/",
	}
	slices.Sort(wantKeys)
	if diff := cmp.Diff(wantKeys, keys); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
	for name, want := range map[string]string{
		"airvsx-registry":                 `{"kind":"airvsx-registry","format":1}` + "\n",
		"extensions/golang/go/oci-layout": `{"imageLayoutVersion":"1.0.0"}`,
		"extensions/golang/go/index.json": `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[` +
			`{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"` + m.Digest + `","size":` + itoa(m.Size) +
			`,"annotations":{"org.opencontainers.image.ref.name":"linux-x64-0.40.0"},"artifactType":"application/vnd.airvsx.extension.v1"}]}`,
		"extensions/golang/go/blobs/sha256/44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a": "{}",
	} {
		if got[name] != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got[name], want)
		}
	}
	wantManifest := `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":"application/vnd.airvsx.extension.v1",` +
		`"config":{"mediaType":"application/vnd.oci.empty.v1+json","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2,"data":"e30="},` +
		`"layers":[{"mediaType":"application/vnd.airvsx.vsix.v1+zip","digest":"` + m.Layers[0].Digest + `","size":` + itoa(m.Layers[0].Size) +
		`,"annotations":{"org.opencontainers.image.title":"Golang.Go-0.40.0.vsix","vnd.airvsx.role":"vsix"}},` +
		`{"mediaType":"application/json","digest":"` + m.Layers[1].Digest + `","size":12,"annotations":{"org.opencontainers.image.title":"package.json","vnd.airvsx.role":"manifest"}}],` +
		`"annotations":{"org.opencontainers.image.created":"2025-03-04T03:29:07.108336Z","vnd.airvsx.id":"Golang.Go","vnd.airvsx.platform":"linux-x64",` +
		`"vnd.airvsx.prerelease":"false","vnd.airvsx.upstream.sha256":"` + strings.TrimPrefix(m.Layers[0].Digest, "sha256:") + `","vnd.airvsx.version":"0.40.0"}}`
	if manifest != wantManifest {
		t.Errorf("manifest:\n got %s\nwant %s", manifest, wantManifest)
	}
	if _, err := os.Stat(filepath.Join(d.Path(), "metadata", "root.json")); err != nil {
		t.Error(err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// temps lists the ".tmp-*" names under dir.
func temps(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for name := range tree(t, dir) {
		if strings.Contains(name, ".tmp-") {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func TestDirCrashSafety(t *testing.T) {
	ctx := t.Context()
	d := newDir(t)
	m := testEntry(t, d, "golang.go", "0.40.0", index.Universal)
	indexFile := filepath.Join(d.Path(), "extensions", "golang", "go", "index.json")
	before, err := os.ReadFile(indexFile)
	if err != nil {
		t.Fatal(err)
	}

	// A download that dies halfway: no blob, no temp file.
	big := bytes.Repeat([]byte("x"), 1<<20)
	err = d.PutBlob(ctx, "golang/go", sha(big), int64(len(big)), rewindless{io.MultiReader(bytes.NewReader(big[:1<<19]), iotestErrReader{})})
	if err == nil {
		t.Fatal("PutBlob with a failing reader succeeded")
	}
	if _, err := os.Stat(blobFile(d, "golang/go", sha(big))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("blob after failed put: %v", err)
	}
	if got := temps(t, d.Path()); len(got) > 0 {
		t.Errorf("temp files after a failed put: %v", got)
	}

	// index.json is replaced whole or not at all.
	restore := dirstore.SetTestHookBeforeRename(func(name string) error {
		if strings.HasSuffix(name, "index.json") {
			return errors.New("power cut")
		}
		return nil
	})
	err = d.Tag(ctx, "golang/go", "universal-9.9.9", m.Descriptor())
	restore()
	if err == nil || !strings.Contains(err.Error(), "power cut") {
		t.Fatalf("Tag with a failing rename = %v", err)
	}
	after, _ := os.ReadFile(indexFile)
	if !bytes.Equal(before, after) {
		t.Errorf("index.json changed by a failed Tag:\n%s\n%s", before, after)
	}
	if got := temps(t, d.Path()); len(got) > 0 {
		t.Errorf("temp files after a failed Tag: %v", got)
	}

	// A killed writer leaves temp files: readers ignore them, the next
	// writer removes them (and nothing else).
	planted := []string{
		"extensions/golang/go/blobs/sha256/.tmp-dead1",
		"extensions/golang/go/.tmp-dead2",
		"metadata/.tmp-dead3",
		"quarantine/.tmp-dead4/a.vsix",
		"extensions/.tmp-dead5",
		".tmp-dead6",
	}
	for _, p := range planted {
		full := filepath.Join(d.Path(), filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := d.Path()
	beforeReopen := tree(t, path)
	d.Close()
	// A killed writer does not close: it leaves no clean mark, which this
	// Close wrote.
	if err := os.Remove(filepath.Join(path, "metadata", ".tmp-clean")); err != nil {
		t.Fatalf("the clean mark a writer's Close writes: %v", err)
	}

	r := storetest.OpenDir(t, path, dirstore.Options{ReadOnly: true})
	repos, err := r.Repos(ctx)
	if err != nil || !slices.Equal(repos, []string{"golang/go"}) {
		t.Errorf("Repos() with temp files = %v, %v", repos, err)
	}
	if tags, err := r.Tags(ctx, "golang/go"); err != nil || len(tags) != 1 {
		t.Errorf("Tags() with temp files = %v, %v", tags, err)
	}
	if err := r.PutBlob(ctx, "golang/go", sha(nil), 0, store.BytesContent(nil)); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("PutBlob on a read-only store = %v; want ErrReadOnly", err)
	}
	r.Close()
	if got := temps(t, path); len(got) != len(planted)+1 { // +1: the quarantine temp directory itself
		t.Errorf("a reader removed temp files: %v", got)
	}

	w := storetest.OpenDir(t, path, dirstore.Options{})
	defer w.Close()
	if got := temps(t, path); len(got) > 0 {
		t.Errorf("temp files after the next writer opened: %v", got)
	}
	want := make(map[string]string)
	for k, v := range beforeReopen {
		if !strings.Contains(k, ".tmp-") {
			want[k] = v
		}
	}
	if diff := cmp.Diff(want, tree(t, path)); diff != "" {
		t.Errorf("the writer's cleanup touched more than temp files (-want +got):\n%s", diff)
	}
}

// TestDirCleanMark: a writer that wrote under extensions/ and closes
// cleanly leaves the clean mark; the next writer then sweeps temp files
// only outside extensions/ as it opens (a temp file put into extensions/
// by hand after a clean close stays), takes the mark away before its
// first write there and writes it back as it closes; a writer that
// writes nothing there, and a reader, leave it as it is; a writer that
// finds no mark, as a killed one leaves, sweeps everywhere. A failed
// write whose temp file was removed still closes cleanly.
func TestDirCleanMark(t *testing.T) {
	ctx := t.Context()
	d := newDir(t)
	testEntry(t, d, "golang.go", "0.40.0", index.Universal)
	restore := dirstore.SetTestHookBeforeRename(func(string) error { return errors.New("power cut") })
	if err := d.PutBlob(ctx, "golang/go", sha([]byte("y")), 1, store.BytesContent([]byte("y"))); err == nil {
		t.Fatal("PutBlob with a failing rename succeeded")
	}
	restore()
	path := d.Path()
	mark := filepath.Join(path, "metadata", ".tmp-clean")
	hasMark := func(want bool, when string) {
		t.Helper()
		_, err := os.Lstat(mark)
		if got := err == nil; got != want {
			t.Fatalf("clean mark %s: %v; want it there: %v", when, err, want)
		}
	}
	hasMark(false, "while the first writer has the registry open")
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	hasMark(true, "after a writer closed cleanly")

	plant := func(ps ...string) {
		t.Helper()
		for _, p := range ps {
			if err := os.WriteFile(filepath.Join(path, filepath.FromSlash(p)), []byte("partial"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	plant("extensions/golang/go/.tmp-byhand", "metadata/.tmp-dead")
	w := storetest.OpenDir(t, path, dirstore.Options{})
	if got, want := temps(t, path), []string{"extensions/golang/go/.tmp-byhand", "metadata/.tmp-clean"}; !slices.Equal(got, want) {
		t.Errorf("temp files after a writer opened a cleanly closed registry: %v; want %v (extensions/ not walked)", got, want)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	hasMark(true, "after a writer that wrote nothing under extensions/")
	r := storetest.OpenDir(t, path, dirstore.Options{ReadOnly: true})
	r.Close()
	hasMark(true, "after a reader")

	w = storetest.OpenDir(t, path, dirstore.Options{})
	if err := w.PutBlob(ctx, "golang/go", sha([]byte("z")), 1, store.BytesContent([]byte("z"))); err != nil {
		t.Fatal(err)
	}
	hasMark(false, "once a writer wrote under extensions/")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	hasMark(true, "after that writer closed")

	// A killed writer leaves temp files and no mark: the next writer
	// walks everything.
	if err := os.Remove(mark); err != nil {
		t.Fatal(err)
	}
	plant("extensions/golang/go/blobs/sha256/.tmp-dead1")
	w = storetest.OpenDir(t, path, dirstore.Options{})
	defer w.Close()
	if got := temps(t, path); len(got) > 0 {
		t.Errorf("temp files after a writer opened a registry a killed writer left: %v", got)
	}
}

type iotestErrReader struct{}

func (iotestErrReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

// TestDirDeterministic fills two registries with the same content in
// different orders; they must end up byte-identical.
func TestDirDeterministic(t *testing.T) {
	type op struct {
		id, version string
		platform    index.Platform
	}
	ops := []op{
		{"golang.go", "0.40.0", index.Universal},
		{"golang.go", "0.41.0-pre.1", index.Universal},
		{"golang.go", "0.40.0", index.LinuxX64},
		{"redhat.java", "1.30.0+b7", index.Universal},
		{"ms-python.python", "2024.1.0", index.DarwinArm64},
		{"ms-python.python", "2024.1.0", index.Win32X64},
	}
	fill := func(seed uint64) map[string]string {
		d := newDir(t)
		o := slices.Clone(ops)
		rand.New(rand.NewPCG(seed, 1)).Shuffle(len(o), func(i, j int) { o[i], o[j] = o[j], o[i] })
		for _, x := range o {
			testEntry(t, d, x.id, x.version, x.platform)
		}
		for _, name := range []string{"root.json", "targets.json", "catalog.json"} {
			if err := d.WriteMetadata(t.Context(), name, []byte(name)); err != nil {
				t.Fatal(err)
			}
		}
		return tree(t, d.Path())
	}
	want := fill(1)
	for seed := uint64(2); seed < 6; seed++ {
		if diff := cmp.Diff(want, fill(seed)); diff != "" {
			t.Fatalf("order %d gives a different tree (-want +got):\n%s", seed, diff)
		}
	}
}

func TestOpenDir(t *testing.T) {
	base := t.TempDir()
	missing := filepath.Join(base, "missing")
	if _, err := dirstore.Open(missing, dirstore.Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenDir(missing) = %v; want fs.ErrNotExist", err)
	}
	notEmpty := filepath.Join(base, "home")
	os.MkdirAll(notEmpty, 0o755)
	os.WriteFile(filepath.Join(notEmpty, "notes.txt"), []byte("x"), 0o644)
	for _, opts := range []dirstore.Options{{}, {Create: true}, {ReadOnly: true}} {
		if _, err := dirstore.Open(notEmpty, opts); !errors.Is(err, store.ErrNotRegistry) {
			t.Errorf("OpenDir(non-empty directory, %+v) = %v; want ErrNotRegistry", opts, err)
		}
	}
	if _, err := dirstore.Open(filepath.Join(notEmpty, "notes.txt"), dirstore.Options{Create: true}); !errors.Is(err, store.ErrNotRegistry) {
		t.Errorf("OpenDir(a file) = %v; want ErrNotRegistry", err)
	}
	if _, err := dirstore.Open(notEmpty, dirstore.Options{Create: true, ReadOnly: true}); err == nil {
		t.Error("OpenDir(Create and ReadOnly) = nil error")
	}
	if got := tree(t, notEmpty); len(got) != 2 {
		t.Errorf("OpenDir touched a non-registry: %v", got)
	}

	empty := filepath.Join(base, "empty")
	os.MkdirAll(empty, 0o755)
	w, err := dirstore.Open(empty, dirstore.Options{Create: true})
	if err != nil {
		t.Fatalf("OpenDir(empty directory, Create) = %v", err)
	}
	if _, err := dirstore.Open(empty, dirstore.Options{}); !errors.Is(err, store.ErrLocked) && isUnix() {
		t.Errorf("second writer = %v; want ErrLocked", err)
	}
	r, err := dirstore.Open(empty, dirstore.Options{ReadOnly: true})
	if err != nil {
		t.Errorf("reader beside a writer = %v", err)
	} else {
		r.Close()
	}
	w.Close()
	w, err = dirstore.Open(empty, dirstore.Options{Create: true})
	if err != nil {
		t.Fatalf("OpenDir(existing registry, Create) = %v", err)
	}
	w.Close()

	for _, marker := range []string{`{"kind":"airvsx-registry","format":2}`, `{"kind":"other","format":1}`, `{"kind":"airvsx-registry","format":1,"x":1}`, "garbage", strings.Repeat(" ", 5000)} {
		os.WriteFile(filepath.Join(empty, artifact.MarkerFile), []byte(marker), 0o644)
		if d, err := dirstore.Open(empty, dirstore.Options{}); err == nil {
			d.Close()
			t.Errorf("OpenDir with marker %.40q = nil error", marker)
		}
	}
}

func isUnix() bool { return runtime.GOOS != "windows" }

func TestDirQuarantineLayout(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	d := storetest.OpenDir(t, t.TempDir(), dirstore.Options{Create: true, Now: func() time.Time { return now }})
	defer d.Close()
	p, err := d.Quarantine(t.Context(), "golang.go-0.40.0", "sha256 mismatch", map[string]io.Reader{
		"golang.go-0.40.0.vsix": strings.NewReader("bad"),
		"golang.go-0.40.0.json": strings.NewReader("{}"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "quarantine/golang.go-0.40.0"; p != want {
		t.Errorf("Quarantine location = %s; want %s", p, want)
	}
	got := tree(t, filepath.Join(d.Path(), filepath.FromSlash(p)))
	want := map[string]string{
		"./":                    "",
		"golang.go-0.40.0.json": "{}",
		"golang.go-0.40.0.vsix": "bad",
		"REASON":                "sha256 mismatch\n",
		"reason.json": `{
  "name": "golang.go-0.40.0",
  "reason": "sha256 mismatch",
  "time": "2026-01-02T03:04:05Z",
  "files": [
    {
      "name": "golang.go-0.40.0.json",
      "size": 2,
      "sha256": "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
    },
    {
      "name": "golang.go-0.40.0.vsix",
      "size": 3,
      "sha256": "` + sha([]byte("bad")) + `"
    }
  ]
}
`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("quarantine (-want +got):\n%s", diff)
	}
	p2, err := d.Quarantine(t.Context(), "golang.go-0.40.0", "again", nil)
	if err != nil || filepath.Base(p2) != "golang.go-0.40.0.2" {
		t.Errorf("second Quarantine = %s, %v; want golang.go-0.40.0.2", p2, err)
	}
}

// rewindless is content that cannot be read again.
type rewindless struct{ io.Reader }

func (rewindless) Rewind() error { return errors.New("cannot rewind") }

// TestDirSyncsBlobsBeforeNamingThem: a blob's directory is fsynced before
// the tag that names it and before any metadata, and on Close; blobs put
// in a row share one fsync.
func TestDirSyncsBlobsBeforeNamingThem(t *testing.T) {
	ctx := t.Context()
	d := newDir(t)
	ev := syncEvents(t)
	const blobs = "extensions/ns/name/blobs/sha256"
	// last is the index of the last event with that text, -1 for none.
	last := func(event string) int {
		for i := len(*ev) - 1; i >= 0; i-- {
			if (*ev)[i] == event {
				return i
			}
		}
		return -1
	}
	// lastBlob is the index of the last blob rename.
	lastBlob := func() int {
		for i := len(*ev) - 1; i >= 0; i-- {
			if strings.HasPrefix((*ev)[i], "rename "+blobs+"/") {
				return i
			}
		}
		return -1
	}

	for i := range 3 {
		putBlob(t, d, "ns/name", []byte("blob "+itoa(int64(i))))
	}
	if n := strings.Count(strings.Join(*ev, "\n"), "sync "+blobs); n != 0 {
		t.Errorf("blob directory fsynced %d times while only blobs were put; want 0 (once, later)", n)
	}
	testEntry(t, d, "ns.name", "1.0.0", index.Universal) // blobs, manifest, tag
	synced, tagged := last("sync "+blobs), last("rename extensions/ns/name/index.json")
	if synced < lastBlob() || tagged < synced {
		t.Fatalf("events %q: want the blob directory fsynced after the last blob and before index.json names a manifest", *ev)
	}

	*ev = nil
	putBlob(t, d, "ns/name", []byte("one more"))
	if err := d.WriteMetadata(ctx, "timestamp.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	synced, meta := last("sync "+blobs), last("rename metadata/timestamp.json")
	if synced < lastBlob() || meta < synced {
		t.Fatalf("events %q: want the blob directory fsynced before metadata is written", *ev)
	}

	*ev = nil
	putBlob(t, d, "ns/other", []byte("put last"))
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if last("sync extensions/ns/other/blobs/sha256") < 0 {
		t.Errorf("events %q: want Close to fsync the blob directory written last", *ev)
	}
}

// TestDirSyncsManyBlobsAtOnce: many blobs put in a row are made durable
// together (one syncfs on Linux) before the tag that names one of them,
// and every dirty directory counts as synced afterwards.
func TestDirSyncsManyBlobsAtOnce(t *testing.T) {
	d := newDir(t)
	var events []string
	defer dirstore.SetTestHookSyncDir(func(dir string) { events = append(events, "sync "+dir) })()
	for i := range 100 {
		putBlob(t, d, "ns/other", []byte("blob "+itoa(int64(i))))
	}
	testEntry(t, d, "ns.name", "1.0.0", index.Universal)
	all := strings.Join(events, "\n")
	for _, dir := range []string{"extensions/ns/other/blobs/sha256", "extensions/ns/name/blobs/sha256"} {
		if !strings.Contains(all, "sync "+dir) {
			t.Errorf("events %q: want %s synced by the first tag", events, dir)
		}
	}
	events = nil
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(events, "\n"), "blobs/sha256") {
		t.Errorf("events %q: Close synced a blob directory again", events)
	}
}
