package prune_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/policies"
	"github.com/airvsx/airvsx/prune"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/testkit/synthreg"
	"github.com/airvsx/airvsx/verify"
)

// registry builds a signed registry of n synthetic entries
// (x.ext-0000, ...) of size bytes each in a new directory.
func registry(t *testing.T, n int, size int64) (string, signature.SignerVerifier) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "reg")
	signer, _, err := synthreg.NewSigner()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := synthreg.Build(t.Context(), dir, synthreg.Options{Entries: n, Signer: signer, Now: time.Now()}, synthreg.RandomEntry("x", size)); err != nil {
		t.Fatal(err)
	}
	return dir, signer
}

func open(t *testing.T, dir string, opts dirstore.Options) *dirstore.Store {
	t.Helper()
	st, err := dirstore.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// blobBytes is the bytes of every blob file of a directory registry.
func blobBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(filepath.Join(dir, "extensions"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && filepath.Base(filepath.Dir(p)) == "sha256" {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			n += fi.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkVerifies runs verify on the registry: no error but those the
// synthetic packages (not zips) give, and the warnings returned.
func checkVerifies(t *testing.T, dir string, signer signature.Verifier) []verify.Problem {
	t.Helper()
	st := open(t, dir, dirstore.Options{ReadOnly: true})
	defer st.Close()
	rep, err := verify.Registry(t.Context(), verify.RegistryOptions{Store: st, Anchor: trust.Anchor{Key: signer}})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	for _, p := range rep.Errors() {
		if p.Rule != verify.RuleVsixUnsafe {
			t.Errorf("verify: %s %s %s: %s", p.Rule, p.File, p.Entry, p.Message)
		}
	}
	return rep.Warnings()
}

// TestPruneFreesDroppedBytes: a policy that keeps 4 of 10 entries signs
// serial 2 with those 4, chained to serial 1; the blob files shrink by
// exactly the bytes the report gives, which are the dropped entries'
// own; verify passes with no orphan, and a gc after it frees nothing.
func TestPruneFreesDroppedBytes(t *testing.T) {
	ctx := t.Context()
	dir, signer := registry(t, 10, 20000)
	before := blobBytes(t, dir)
	_, digest1 := readCatalog(t, dir)
	st := open(t, dir, dirstore.Options{})
	rep, err := prune.Prune(ctx, prune.Options{Store: st, Policy: keepFirst(t, 4), Signer: signer})
	st.Close()
	if err != nil {
		t.Fatalf("Prune: %v", err)
	}
	if len(rep.Dropped) != 6 || rep.Kept != 4 || rep.NewSerial != 2 {
		t.Fatalf("report: %d dropped, %d kept, serial %d; want 6, 4, 2", len(rep.Dropped), rep.Kept, rep.NewSerial)
	}
	var perEntry int64
	for _, d := range rep.Dropped {
		if d.Bytes < 20000 {
			t.Errorf("%s frees %d bytes; want at least its 20000-byte package", d.Entry, d.Bytes)
		}
		perEntry += d.Bytes
	}
	after := blobBytes(t, dir)
	if got := before - after; got != rep.GC.Freed || got != perEntry {
		t.Errorf("the blob files shrank by %d bytes; the report says %d freed, %d by entry", got, rep.GC.Freed, perEntry)
	}
	if len(rep.GC.Untagged) != 6 {
		t.Errorf("untagged %v; want the 6 dropped entries' tags", rep.GC.Untagged)
	}
	cat, _ := readCatalog(t, dir)
	if cat.Serial != 2 || len(cat.Entries) != 4 || cat.Previous != digest1 {
		t.Errorf("catalog: serial %d, %d entries, previous %s; want 2, 4, %s", cat.Serial, len(cat.Entries), cat.Previous, digest1)
	}
	for _, w := range checkVerifies(t, dir, signer) {
		if strings.HasPrefix(string(w.Rule), "orphan-") {
			t.Errorf("verify after prune: %s %s", w.Rule, w.File)
		}
	}
	st = open(t, dir, dirstore.Options{})
	defer st.Close()
	again, err := prune.Collect(ctx, prune.CollectOptions{Store: st})
	if err != nil || again.Blobs != 0 || again.Freed != 0 || len(again.Untagged) != 0 {
		t.Errorf("gc after prune: %+v, %v; want nothing freed", again, err)
	}
}

// TestPruneDryRunWritesNothing: the dry run reports what the prune then
// does, and leaves every file as it was.
func TestPruneDryRunWritesNothing(t *testing.T) {
	ctx := t.Context()
	dir, signer := registry(t, 6, 5000)
	files := filetest.Files(t, dir)
	st := open(t, dir, dirstore.Options{ReadOnly: true})
	dry, err := prune.Prune(ctx, prune.Options{Store: st, Policy: keepFirst(t, 2), DryRun: true})
	st.Close()
	if err != nil {
		t.Fatalf("Prune dry run: %v", err)
	}
	if diff := cmp.Diff(files, filetest.Files(t, dir)); diff != "" {
		t.Fatalf("the dry run changed the registry (-before +after):\n%s", diff)
	}
	st = open(t, dir, dirstore.Options{})
	defer st.Close()
	rep, err := prune.Prune(ctx, prune.Options{Store: st, Policy: keepFirst(t, 2), Signer: signer})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(dry.Dropped, rep.Dropped); diff != "" {
		t.Errorf("dropped: dry run and prune differ (-dry +prune):\n%s", diff)
	}
	if dry.GC.Freed != rep.GC.Freed || dry.GC.Blobs != rep.GC.Blobs || len(dry.GC.Untagged) != len(rep.GC.Untagged) {
		t.Errorf("dry run: %d blobs, %d bytes, %d tags; prune: %d, %d, %d", dry.GC.Blobs, dry.GC.Freed, len(dry.GC.Untagged), rep.GC.Blobs, rep.GC.Freed, len(rep.GC.Untagged))
	}
}

// TestCollectKeepsPending: the blobs of a repository an unfinished
// writer recorded stay, and the report counts them; those of another
// repository no catalog refers to go; once the record is gone, they go
// too.
func TestCollectKeepsPending(t *testing.T) {
	ctx := t.Context()
	dir, signer := registry(t, 2, 1000)
	st := open(t, dir, dirstore.Options{})
	defer st.Close()
	put := func(repo, text string) string {
		b := []byte(text)
		d := index.DigestBytes(b)
		if err := st.PutBlob(ctx, repo, d, int64(len(b)), store.BytesContent(b)); err != nil {
			t.Fatal(err)
		}
		return d
	}
	if err := st.BeginPending(ctx, "copy", []string{"x/new"}); err != nil {
		t.Fatal(err)
	}
	kept := put("x/new", "a blob an unfinished copy wrote")
	gone := put("x/ext-0000", "an orphan")
	rep, err := prune.Collect(ctx, prune.CollectOptions{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Blobs != 1 || rep.PendingBlobs != 1 || len(rep.Pending) != 1 || rep.Pending[0].Name != "copy" {
		t.Errorf("gc: %d deleted, %d kept for %v; want 1 deleted, 1 kept for the copy", rep.Blobs, rep.PendingBlobs, rep.Pending)
	}
	if _, err := st.StatBlob(ctx, "x/new", kept); err != nil {
		t.Errorf("the pending copy's blob: %v", err)
	}
	if _, err := st.StatBlob(ctx, "x/ext-0000", gone); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the orphan: %v; want it deleted", err)
	}
	if err := st.EndPending(ctx, "copy"); err != nil {
		t.Fatal(err)
	}
	if rep, err := prune.Collect(ctx, prune.CollectOptions{Store: st}); err != nil || rep.Blobs != 1 || rep.PendingBlobs != 0 {
		t.Errorf("gc once the copy finished: %+v, %v; want its blob deleted", rep, err)
	}
	st.Close()
	checkVerifies(t, dir, signer)
}

// TestCollectForgetPending: a record of a writer that will never run
// again is dropped with ForgetPending, and what it wrote collected; a
// dry run drops nothing.
func TestCollectForgetPending(t *testing.T) {
	ctx := t.Context()
	dir, signer := registry(t, 2, 1000)
	st := open(t, dir, dirstore.Options{})
	defer st.Close()
	if err := st.BeginPending(ctx, "copy", []string{"x/new"}); err != nil {
		t.Fatal(err)
	}
	b := []byte("a blob a copy never to be finished wrote")
	d := index.DigestBytes(b)
	if err := st.PutBlob(ctx, "x/new", d, int64(len(b)), store.BytesContent(b)); err != nil {
		t.Fatal(err)
	}
	rep, err := prune.Collect(ctx, prune.CollectOptions{Store: st, ForgetPending: true, DryRun: true})
	if err != nil || len(rep.Forgotten) != 1 || rep.Blobs != 1 {
		t.Fatalf("dry run: %+v, %v; want the copy's record forgotten and its blob counted", rep, err)
	}
	if recs, err := st.Pending(ctx); err != nil || len(recs) != 1 {
		t.Fatalf("after the dry run: %v, %v; want the record still there", recs, err)
	}
	rep, err = prune.Collect(ctx, prune.CollectOptions{Store: st, ForgetPending: true})
	if err != nil || len(rep.Forgotten) != 1 || rep.Forgotten[0].Name != "copy" || rep.Blobs != 1 || len(rep.Pending) != 0 {
		t.Fatalf("gc --forget-pending: %+v, %v; want the copy's record dropped and its blob deleted", rep, err)
	}
	if recs, err := st.Pending(ctx); err != nil || len(recs) != 0 {
		t.Errorf("records after gc --forget-pending: %v, %v; want none", recs, err)
	}
	if _, err := st.StatBlob(ctx, "x/new", d); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the forgotten copy's blob: %v; want it deleted", err)
	}
	st.Close()
	checkVerifies(t, dir, signer)
}

// TestCollectWaitsForReaders: a reader that has the registry open (a
// verify that read the previous catalog) makes gc wait, saying so once;
// gc goes on when the reader closes.
func TestCollectWaitsForReaders(t *testing.T) {
	ctx := t.Context()
	dir, _ := registry(t, 3, 1000)
	reader := open(t, dir, dirstore.Options{ReadOnly: true})
	st := open(t, dir, dirstore.Options{})
	defer st.Close()
	waiting := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := prune.Collect(ctx, prune.CollectOptions{Store: st, Waiting: func() { close(waiting) }})
		done <- err
	}()
	select {
	case <-waiting:
	case err := <-done:
		t.Fatalf("gc finished (%v) while a reader had the registry open", err)
	case <-time.After(10 * time.Second):
		t.Fatal("gc neither waited nor finished")
	}
	select {
	case err := <-done:
		t.Fatalf("gc finished (%v) while a reader had the registry open", err)
	case <-time.After(300 * time.Millisecond):
	}
	reader.Close()
	if err := <-done; err != nil {
		t.Fatalf("gc after the reader closed: %v", err)
	}
	// A gc that is stopped while it waits says why.
	reader = open(t, dir, dirstore.Options{ReadOnly: true})
	defer reader.Close()
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := prune.Collect(cctx, prune.CollectOptions{Store: st}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("gc stopped while waiting: %v; want the deadline", err)
	}
}

// keepFirst is a policy that keeps x.ext-0000 to x.ext-000(n-1).
func keepFirst(t *testing.T, n int) *policies.Policy {
	t.Helper()
	var b strings.Builder
	b.WriteString("version: 1\nrequireUpstreamSignature: false\nextensions:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - id: x.ext-%04d\n", i)
	}
	p, err := policies.Parse("test.yaml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// readCatalog reads the registry's catalog through its own chain.
func readCatalog(t *testing.T, dir string) (*index.Catalog, string) {
	t.Helper()
	st := open(t, dir, dirstore.Options{ReadOnly: true})
	defer st.Close()
	cat, tr, err := trust.ReadCatalog(t.Context(), st, trust.CatalogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cat, tr.CatalogDigest
}
