package transfer_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/transfer"
	"github.com/airvsx/airvsx/verify"
)

func TestMain(m *testing.M) { demoreg.Main(m) }

func now() time.Time { return demoreg.VerifyNow }

// options are the options of a copy anchored at the demo registry's key.
func options(reg *demoreg.Registry) transfer.Options {
	return transfer.Options{Anchor: trust.Anchor{Key: reg.Signer}, Now: now, Workers: 2}
}

// openDir opens (or creates) a directory registry for writing, closed
// when the test ends.
func openDir(t testing.TB, dir string) *dirstore.Store {
	d := storetest.OpenDir(t, dir, dirstore.Options{Create: true})
	t.Cleanup(func() { d.Close() })
	return d
}

// readOnly opens a directory registry read-only, closed when the test
// ends.
func readOnly(t testing.TB, dir string) *dirstore.Store {
	d := storetest.OpenDir(t, dir, dirstore.Options{ReadOnly: true})
	t.Cleanup(func() { d.Close() })
	return d
}

// mustVerify verifies st from the demo key, every byte, and fails on any
// error-severity problem; it returns the catalog serial.
func mustVerify(t *testing.T, reg *demoreg.Registry, st store.Store) int64 {
	t.Helper()
	rep, err := verify.Registry(t.Context(), verify.RegistryOptions{Store: st, Anchor: trust.Anchor{Key: reg.Signer}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		for _, p := range rep.Problems {
			t.Errorf("destination: %s %s %s: %s", p.Severity, p.Rule, p.File, p.Message)
		}
		t.FailNow()
	}
	return rep.Catalog.Serial
}

// blobFiles returns the blob files of a directory registry by path.
func blobFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for p, data := range filetest.Files(t, dir) {
		if p != dirstore.CleanMark && (strings.Contains(p, "/blobs/sha256/") || strings.HasPrefix(p, "metadata/")) {
			out[p] = data
		}
	}
	return out
}

// metadataFiles is the registry dir's metadata files by path in
// metadata/, without the writer's clean mark (dirstore.CleanMark).
func metadataFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := filetest.Files(t, filepath.Join(dir, "metadata"))
	delete(files, strings.TrimPrefix(dirstore.CleanMark, "metadata/"))
	return files
}

// partial copies the demo registry of serial 1 to a new directory without
// the repository of its first entry (a copy that lost it, or never got
// it), and returns the directory and that entry.
func partial(t *testing.T, reg *demoreg.Registry) (string, index.Entry) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "dst")
	filetest.CopyDir(t, reg.Dir1, dir)
	cat, _ := demoreg.ReadCatalog(t, reg.Dir1)
	e := cat.Entries[0]
	if err := os.RemoveAll(filepath.Join(dir, "extensions", filepath.FromSlash(artifact.Repo(e.ID)))); err != nil {
		t.Fatal(err)
	}
	return dir, e
}

func TestCopyFresh(t *testing.T) {
	reg := demoreg.Get(t)
	for _, tc := range []struct {
		name string
		src  func(t *testing.T) store.Store
	}{
		{"dir to dir", func(t *testing.T) store.Store { return readOnly(t, reg.Dir) }},
		{"mem to dir", func(t *testing.T) store.Store { return storetest.MemFromDir(t, reg.Dir) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "dst")
			dst := openDir(t, dir)
			src := tc.src(t)
			rep, err := transfer.Copy(t.Context(), src, dst, options(reg))
			if err != nil {
				t.Fatalf("Copy: %v", err)
			}
			cat, digest := demoreg.ReadCatalog(t, reg.Dir)
			if rep.Serial != cat.Serial || rep.Digest != digest || rep.DestSerial != 0 || rep.Present != 0 || rep.Blobs == 0 {
				t.Errorf("report: serial %d %s, destination serial %d, %d blobs present, %d moved; want serial %d %s, 0, 0, some",
					rep.Serial, rep.Digest, rep.DestSerial, rep.Present, rep.Blobs, cat.Serial, digest)
			}
			if rep.Metadata[len(rep.Metadata)-1] != trust.TimestampFile {
				t.Errorf("metadata written in the order %v; want timestamp.json last", rep.Metadata)
			}
			if got := mustVerify(t, reg, dst); got != cat.Serial {
				t.Errorf("destination serial %d; want %d", got, cat.Serial)
			}
			// Every blob and metadata file arrived byte for byte.
			if diff := gocmp.Diff(blobFiles(t, reg.Dir), blobFiles(t, dir)); diff != "" {
				t.Errorf("blobs and metadata differ (-source +destination):\n%s", diff)
			}

			// A second copy moves nothing.
			again, err := transfer.Copy(t.Context(), src, dst, options(reg))
			if err != nil {
				t.Fatalf("second Copy: %v", err)
			}
			if again.Files() != 0 || again.Bytes != 0 || again.Present != rep.Blobs || again.DestSerial != cat.Serial {
				t.Errorf("second copy: %d files (%d blobs, %d tags, metadata %v), %d bytes, %d present; want nothing moved, %d present",
					again.Files(), again.Blobs, again.Tags, again.Metadata, again.Bytes, again.Present, rep.Blobs)
			}
		})
	}
}

// committing is an in-memory store that groups writes into changes, as a
// git store does: it records each commit with the writes before it. Like
// every store it is safe for concurrent use (Copy writes tags from
// several goroutines).
type committing struct {
	*storetest.Mem
	mu      sync.Mutex
	writes  []string // since the last commit
	commits [][]string
}

func (c *committing) record(w string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, w)
}

func (c *committing) WriteMetadata(ctx context.Context, name string, data []byte) error {
	c.record("metadata " + name)
	return c.Mem.WriteMetadata(ctx, name, data)
}

func (c *committing) Tag(ctx context.Context, repo, tag string, d store.Descriptor) error {
	c.record("tag " + repo + ":" + tag)
	return c.Mem.Tag(ctx, repo, tag, d)
}

func (c *committing) Commit(ctx context.Context, message string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.commits = append(c.commits, c.writes)
	c.writes = nil
	return nil
}

// TestCopyCommits: a store that groups writes into changes gets one change
// for the whole copy, committed after timestamp.json, and none when
// nothing moved.
func TestCopyCommits(t *testing.T) {
	reg := demoreg.Get(t)
	dst := &committing{Mem: storetest.NewMem()}
	src := readOnly(t, reg.Dir)
	if _, err := transfer.Copy(t.Context(), src, dst, options(reg)); err != nil {
		t.Fatal(err)
	}
	if len(dst.commits) != 1 || len(dst.writes) != 0 {
		t.Fatalf("%d commits, %d writes after the last; want 1, 0", len(dst.commits), len(dst.writes))
	}
	w := dst.commits[0]
	if w[len(w)-1] != "metadata timestamp.json" {
		t.Errorf("the change ends with %q; want metadata timestamp.json", w[len(w)-1])
	}
	mustVerify(t, reg, dst)
	if _, err := transfer.Copy(t.Context(), src, dst, options(reg)); err != nil {
		t.Fatal(err)
	}
	if len(dst.commits) != 1 {
		t.Errorf("a copy that moved nothing committed: %d commits", len(dst.commits))
	}
}

func TestCopyToMem(t *testing.T) {
	reg := demoreg.Get(t)
	dst := storetest.NewMem()
	if _, err := transfer.Copy(t.Context(), readOnly(t, reg.Dir), dst, options(reg)); err != nil {
		t.Fatal(err)
	}
	mustVerify(t, reg, dst)
}

// TestCopyIncremental copies serial 2 over a copy of serial 1 that lacks
// one repository: only that repository's blobs move.
func TestCopyIncremental(t *testing.T) {
	reg := demoreg.Get(t)
	dir, e := partial(t, reg)
	dst := openDir(t, dir)
	rep, err := transfer.Copy(t.Context(), readOnly(t, reg.Dir), dst, options(reg))
	if err != nil {
		t.Fatal(err)
	}
	if rep.DestSerial != 1 || rep.Serial != 2 || rep.Present == 0 || rep.Blobs == 0 {
		t.Errorf("report: destination serial %d, serial %d, %d present, %d moved; want 1, 2, some, some", rep.DestSerial, rep.Serial, rep.Present, rep.Blobs)
	}
	if len(rep.Repositories) != 1 || rep.Repositories[0].Repo != artifact.Repo(e.ID) {
		t.Errorf("repositories moved: %+v; want only %s", rep.Repositories, artifact.Repo(e.ID))
	}
	if got := mustVerify(t, reg, dst); got != 2 {
		t.Errorf("destination serial %d; want 2", got)
	}
}

// TestCopyTamperedSource: a source blob that is not what its digest says
// stops the copy, naming it, and the destination keeps its catalog, from
// a store whose reader verifies (Mem) and from a directory, whose blob
// file only the destination's PutBlob hashes.
func TestCopyTamperedSource(t *testing.T) {
	reg := demoreg.Get(t)
	for _, tc := range []struct {
		name   string
		tamper func(t *testing.T, repo, digest string) store.Store
	}{
		{"mem", func(t *testing.T, repo, digest string) store.Store {
			src := storetest.MemFromDir(t, reg.Dir)
			data, ok := src.RawBlob(repo, digest)
			if !ok {
				t.Fatal("no vsix blob")
			}
			data[len(data)/2] ^= 1
			src.SetRawBlob(repo, digest, data)
			return src
		}},
		{"dir", func(t *testing.T, repo, digest string) store.Store {
			dir := filepath.Join(t.TempDir(), "src")
			filetest.CopyDir(t, reg.Dir, dir)
			name := filepath.Join(dir, filepath.FromSlash(artifact.BlobName(repo, digest)))
			data := filetest.ReadFile(t, name)
			data[len(data)/2] ^= 1
			filetest.WriteFile(t, name, data)
			return readOnly(t, dir)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, e := partial(t, reg)
			_, digest1 := demoreg.ReadCatalog(t, reg.Dir1)
			repo, digest := artifact.Repo(e.ID), artifact.VsixDigest(&e)
			src := tc.tamper(t, repo, digest)
			before := metadataFiles(t, dir)
			dst := openDir(t, dir)
			_, err := transfer.Copy(t.Context(), src, dst, options(reg))
			if !errors.Is(err, transfer.ErrSource) || !errors.Is(err, store.ErrMismatch) {
				t.Fatalf("Copy = %v; want ErrSource and ErrMismatch", err)
			}
			for _, want := range []string{repo, digest} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error does not name %s: %v", want, err)
				}
			}
			if diff := gocmp.Diff(before, metadataFiles(t, dir)); diff != "" {
				t.Errorf("the destination's metadata changed:\n%s", diff)
			}
			if _, d := demoreg.ReadCatalog(t, dir); d != digest1 {
				t.Errorf("destination catalog %s; want %s", d, digest1)
			}
			if tags, _ := dst.Tags(t.Context(), repo); len(tags) != 0 {
				t.Errorf("tags written in %s: %v", repo, tags)
			}
			if _, err := dst.StatBlob(t.Context(), repo, digest); err == nil {
				t.Errorf("the tampered blob %s is in the destination", digest)
			}
		})
	}
}

// TestCopySourceUntrusted: a source not signed by the anchor stops the
// copy before anything is written.
func TestCopySourceUntrusted(t *testing.T) {
	reg := demoreg.Get(t)
	dir := filepath.Join(t.TempDir(), "dst")
	dst := openDir(t, dir)
	o := options(reg)
	o.Anchor = trust.Anchor{Key: reg.Other}
	_, err := transfer.Copy(t.Context(), readOnly(t, reg.Dir), dst, o)
	if !errors.Is(err, transfer.ErrSource) || !errors.Is(err, trust.ErrSignature) {
		t.Fatalf("Copy = %v; want ErrSource and ErrSignature", err)
	}
	if names, _ := dst.ListMetadata(t.Context()); len(names) != 0 {
		t.Errorf("metadata written: %v", names)
	}
}

// otherOperator returns a registry with the demo registry's blobs and
// catalog, signed by another key.
func otherOperator(t *testing.T, reg *demoreg.Registry) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "other")
	filetest.CopyDir(t, reg.Dir1, dir)
	cat, _ := demoreg.ReadCatalog(t, reg.Dir1)
	if err := os.RemoveAll(filepath.Join(dir, "metadata")); err != nil {
		t.Fatal(err)
	}
	st, err := dirstore.Open(dir, dirstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := trust.PublishCatalog(t.Context(), trust.Metadata(t.Context(), st), cat, reg.Other, trust.PublishOptions{Now: func() time.Time { return demoreg.SyncNow1 }}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCopyRefuses(t *testing.T) {
	reg := demoreg.Get(t)
	srcKey, err := trust.Anchor{Key: reg.Signer}.KeyID()
	if err != nil {
		t.Fatal(err)
	}
	otherKey, err := trust.Anchor{Key: reg.Other}.KeyID()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		src    string
		dst    func(t *testing.T) string
		want   []string // in the refusal
		serial int64    // the destination's after --force
	}{
		{"another root", reg.Dir, func(t *testing.T) string { return otherOperator(t, reg) },
			[]string{"another root", "root keys " + otherKey, "root keys " + srcKey}, 2},
		{"newer serial", reg.Dir1, func(t *testing.T) string {
			dir := filepath.Join(t.TempDir(), "newer")
			filetest.CopyDir(t, reg.Dir, dir)
			return dir
		}, []string{"catalog serial 2", "serial 1", "roll it back"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dst(t)
			before := filetest.Files(t, dir)
			src := readOnly(t, tc.src)
			dst := openDir(t, dir)
			_, err := transfer.Copy(t.Context(), src, dst, options(reg))
			if !errors.Is(err, transfer.ErrRefused) {
				t.Fatalf("Copy = %v; want ErrRefused", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the refusal does not say %q: %v", w, err)
				}
			}
			if diff := gocmp.Diff(before, filetest.Files(t, dir)); diff != "" {
				t.Errorf("a refused copy changed the destination:\n%s", diff)
			}

			o := options(reg)
			o.Force = true
			rep, err := transfer.Copy(t.Context(), src, dst, o)
			if err != nil {
				t.Fatalf("Copy with Force: %v", err)
			}
			if len(rep.Forced) != 1 {
				t.Errorf("Forced = %q; want the one override", rep.Forced)
			}
			if got := mustVerify(t, reg, dst); got != tc.serial {
				t.Errorf("destination serial %d after Force; want %d", got, tc.serial)
			}
		})
	}
}

func TestCopyDryRun(t *testing.T) {
	reg := demoreg.Get(t)
	dir, _ := partial(t, reg)
	before := filetest.Files(t, dir)
	o := options(reg)
	o.DryRun = true
	o.State = trust.OpenStateDir(filepath.Join(t.TempDir(), "state"))
	rep, err := transfer.Copy(t.Context(), readOnly(t, reg.Dir), readOnly(t, dir), o)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.DryRun || rep.Blobs == 0 || rep.Bytes == 0 || len(rep.Repositories) == 0 || len(rep.Metadata) == 0 || rep.Tags == 0 {
		t.Errorf("dry run report: %+v; want blobs, bytes, repositories, tags and metadata to move", rep)
	}
	var sum int64
	for _, r := range rep.Repositories {
		sum += r.Bytes
	}
	if sum != rep.Bytes {
		t.Errorf("repositories add up to %d bytes; the report says %d", sum, rep.Bytes)
	}
	if diff := gocmp.Diff(before, filetest.Files(t, dir)); diff != "" {
		t.Errorf("a dry run changed the destination:\n%s", diff)
	}
	if _, err := os.Stat(o.State.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a dry run wrote the state directory: %v", err)
	}

	// To a place that does not exist yet: everything would move.
	all, err := transfer.Copy(t.Context(), readOnly(t, reg.Dir), nil, o)
	if err != nil {
		t.Fatal(err)
	}
	if all.Blobs <= rep.Blobs || all.Present != 0 {
		t.Errorf("dry run to nothing: %d blobs, %d present; want more than %d, 0", all.Blobs, all.Present, rep.Blobs)
	}
}

// unreadable is an in-memory store whose metadata cannot be read at all,
// as a registry that refuses the connection.
type unreadable struct{ *storetest.Mem }

func (unreadable) ReadMetadata(ctx context.Context, name string, max int64) ([]byte, error) {
	return nil, fmt.Errorf("read metadata %s: connect to 127.0.0.1:1: connection refused: %w", name, store.ErrUnreachable)
}

// TestCopyDestUnreadable: a destination that cannot be read is an error
// that says so, not a refusal that --force would override.
func TestCopyDestUnreadable(t *testing.T) {
	reg := demoreg.Get(t)
	_, err := transfer.Copy(t.Context(), readOnly(t, reg.Dir), unreadable{storetest.NewMem()}, options(reg))
	if err == nil || errors.Is(err, transfer.ErrRefused) || !errors.Is(err, store.ErrUnreachable) || strings.Contains(err.Error(), "--force") {
		t.Fatalf("copy to an unreachable destination: %v; want ErrUnreachable, not a refusal", err)
	}
}

// TestCopyCountsWhatVerifyCounts: the blobs a copy reports the catalog
// holds (moved plus already there) are the blobs verify's summary counts
// and the blob files of the registry, each once however many entries
// share it, bytes too: an admin can compare the two reports. Fresh and
// incremental.
func TestCopyCountsWhatVerifyCounts(t *testing.T) {
	reg := demoreg.Get(t)
	files, size := 0, int64(0)
	for p, data := range blobFiles(t, reg.Dir) {
		if strings.Contains(p, "/blobs/sha256/") {
			files++
			size += int64(len(data))
		}
	}
	partialDir, _ := partial(t, reg)
	for name, dir := range map[string]string{"fresh": filepath.Join(t.TempDir(), "dst"), "incremental": partialDir} {
		t.Run(name, func(t *testing.T) {
			rep, err := transfer.Copy(t.Context(), readOnly(t, reg.Dir), openDir(t, dir), options(reg))
			if err != nil {
				t.Fatal(err)
			}
			if rep.CatalogBlobs != rep.Blobs+rep.Present || rep.CatalogBlobs != files || rep.CatalogBytes != size {
				t.Errorf("copy: the catalog holds %d blobs (%d bytes): %d moved, %d present; the registry has %d blob files (%d bytes)",
					rep.CatalogBlobs, rep.CatalogBytes, rep.Blobs, rep.Present, files, size)
			}
			for _, noRead := range []bool{false, true} {
				vrep, err := verify.Registry(t.Context(), verify.RegistryOptions{Store: readOnly(t, reg.Dir), Anchor: trust.Anchor{Key: reg.Signer}, Now: now, NoReadData: noRead})
				if err != nil {
					t.Fatal(err)
				}
				if vrep.Summary.Blobs != rep.CatalogBlobs || !noRead && vrep.Summary.Bytes != rep.CatalogBytes {
					t.Errorf("verify (no-read-data %v) counts %d blobs, %d bytes; copy %d blobs, %d bytes", noRead, vrep.Summary.Blobs, vrep.Summary.Bytes, rep.CatalogBlobs, rep.CatalogBytes)
				}
			}
		})
	}
}
