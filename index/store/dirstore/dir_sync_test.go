package dirstore_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/dirstore"
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
