package dirstore_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/testkit/filetest"
)

// TestDirConcurrentTagsWaitForSync: tags written at once (a copy writes
// several together) each find their blobs durable before their
// index.json names them, even when another tag's syncfs, which took
// their blobs, is still running.
func TestDirConcurrentTagsWaitForSync(t *testing.T) {
	ctx := t.Context()
	d := newDir(t)
	var (
		mu     sync.Mutex
		events []string
	)
	record := func(e string) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
	}
	defer dirstore.SetTestHookSyncDir(func(dir string) { record("sync " + dir) })()
	defer dirstore.SetTestHookBeforeRename(func(name string) error {
		record("rename " + name)
		return nil
	})()
	// Enough dirty blobs that the first tag makes them durable with one
	// syncfs, which takes every entry's blobs at once.
	for i := range 100 {
		putBlob(t, d, "ns/other", []byte("blob "+itoa(int64(i))))
	}
	const entries = 8
	var (
		wg       sync.WaitGroup
		start    = make(chan struct{})
		manifest [entries][]byte
		errs     [entries]error
	)
	for i := range entries {
		id := fmt.Sprintf("ns.e%d", i)
		vsix := []byte("PK vsix of " + id)
		info := artifact.ArtifactInfo{ID: index.MustParseID(id), Version: "1.0.0", Platform: index.Universal,
			Created: time.Date(2025, 3, 4, 3, 29, 7, 0, time.UTC), UpstreamSHA256: index.SHA256Hex(vsix)}
		b, err := artifact.BuildManifest(info, []artifact.Layer{
			{Role: artifact.RoleVsix, Title: id + "-1.0.0.vsix", Digest: putBlob(t, d, artifact.Repo(info.ID), vsix), Size: int64(len(vsix))},
		})
		if err != nil {
			t.Fatal(err)
		}
		manifest[i] = b
	}
	for i := range entries {
		wg.Go(func() {
			<-start
			_, errs[i] = artifact.PutArtifact(ctx, d, manifest[i])
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
	}
	for i := range entries {
		repo := fmt.Sprintf("extensions/ns/e%d", i)
		synced, tagged := -1, -1
		for j, e := range events {
			switch e {
			case "sync " + repo + "/blobs/sha256":
				synced = j
			case "rename " + repo + "/index.json":
				tagged = j // the last one names the manifest
			}
		}
		if synced < 0 || tagged < synced {
			t.Errorf("%s: index.json renamed (event %d) before its blobs were synced (event %d):\n%s",
				repo, tagged, synced, strings.Join(events, "\n"))
		}
	}
}

// TestDirSyncsContentNamedMetadataBeforeNamingIt: a metadata file named
// by the sha256 of its bytes (a shard) is not fsynced when written, but
// its directory is before any other metadata (which can name it) is
// written; a file with such a name but other bytes is written as any
// other metadata, at once durable.
func TestDirSyncsContentNamedMetadataBeforeNamingIt(t *testing.T) {
	ctx := t.Context()
	d := newDir(t)
	ev := syncEvents(t)
	shard := []byte(`{"format":2}`)
	name := "targets/" + index.SHA256Hex(shard) + ".shard-a.json"
	if err := d.WriteMetadata(ctx, name, shard); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(*ev, "sync metadata/targets") {
		t.Errorf("events %q: a content-named file was fsynced as it was written; want it later, with what names it", *ev)
	}
	if err := d.WriteMetadata(ctx, "timestamp.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	synced, named := slices.Index(*ev, "sync metadata/targets"), slices.Index(*ev, "rename metadata/timestamp.json")
	if synced < 0 || named < synced {
		t.Errorf("events %q: want metadata/targets fsynced before timestamp.json is written", *ev)
	}
	if got, err := d.ReadMetadata(ctx, name, 100); err != nil || !bytes.Equal(got, shard) {
		t.Errorf("read %s back: %q, %v", name, got, err)
	}

	*ev = nil
	liar := "targets/" + index.SHA256Hex([]byte("other bytes")) + ".shard-b.json"
	if err := d.WriteMetadata(ctx, liar, shard); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(*ev, "sync metadata/targets") {
		t.Errorf("events %q: a file whose name is not its sha256 was not fsynced as it was written", *ev)
	}
}

// TestDirLayoutDurableWithFirstTag: a new repository's layout files are
// not fsynced as its first blob makes them, but before its first tag is
// written; layout files a crash left empty are written anew by the next
// writer (nothing is lost: oci-layout never changes, an empty index.json
// names no tag), while a missing oci-layout beside an index.json is left
// for verify and copy --repair.
func TestDirLayoutDurableWithFirstTag(t *testing.T) {
	ctx := t.Context()
	d := newDir(t)
	ev := syncEvents(t)
	const repoDir = "extensions/ns/name"
	putBlob(t, d, "ns/name", []byte("first blob"))
	if !slices.Contains(*ev, "rename "+repoDir+"/index.json") {
		t.Fatalf("events %q: the first blob made no layout", *ev)
	}
	if slices.Contains(*ev, "sync "+repoDir) {
		t.Errorf("events %q: the layout was fsynced as it was made; want it with the first tag", *ev)
	}
	*ev = nil
	testEntry(t, d, "ns.name", "1.0.0", index.Universal)
	synced, tagged := slices.Index(*ev, "sync "+repoDir), slices.Index(*ev, "rename "+repoDir+"/index.json")
	if synced < 0 || tagged < synced {
		t.Errorf("events %q: want %s fsynced before the first tag's index.json", *ev, repoDir)
	}
	if err := d.CheckLayout(ctx, "ns/name"); err != nil {
		t.Error(err)
	}

	// What a crash can leave: both files empty, in a repository a
	// killed writer made.
	crashed, damaged := filepath.Join(d.Path(), "extensions", "ns", "crashed"), filepath.Join(d.Path(), "extensions", "ns", "damaged")
	for _, dir := range []string{crashed, damaged} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"oci-layout", "index.json"} {
		filetest.WriteFile(t, filepath.Join(crashed, f), nil)
	}
	// An index.json with no oci-layout: damage, not a crash's.
	filetest.WriteFile(t, filepath.Join(damaged, "index.json"), filetest.ReadFile(t, filepath.Join(d.Path(), repoDir, "index.json")))
	putBlob(t, d, "ns/crashed", []byte("after the crash"))
	putBlob(t, d, "ns/damaged", []byte("into the damaged one"))
	if err := d.CheckLayout(ctx, "ns/crashed"); err != nil {
		t.Errorf("the layout a crash left empty: %v; want it written anew", err)
	}
	if err := d.CheckLayout(ctx, "ns/damaged"); !errors.Is(err, store.ErrDamagedLayout) {
		t.Errorf("the layout without oci-layout: %v; want it left damaged (ErrDamagedLayout) for copy --repair", err)
	}
}

// syncEvents records, in order, the store's fsyncs of directories ("sync
// DIR", or each dirty directory a syncfs covered) and its renames into
// place ("rename NAME"), until the test ends. The hooks are the
// package's: tests that use them do not run in parallel.
func syncEvents(t *testing.T) *[]string {
	t.Helper()
	var events []string
	t.Cleanup(dirstore.SetTestHookSyncDir(func(dir string) { events = append(events, "sync "+dir) }))
	t.Cleanup(dirstore.SetTestHookBeforeRename(func(name string) error {
		events = append(events, "rename "+name)
		return nil
	}))
	return &events
}
