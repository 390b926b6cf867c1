package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/internal/filetest"
	"github.com/airvsx/airvsx/internal/synthreg"
	"github.com/airvsx/airvsx/transfer"
)

// blobFiles counts the blob files of a directory registry (temp files
// left by a killed writer aside).
func blobFiles(t *testing.T, reg string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(filepath.Join(reg, "extensions"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && filepath.Base(filepath.Dir(p)) == "sha256" && !strings.HasPrefix(d.Name(), ".tmp-") {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCopyKilled kills a copy (SIGKILL to a child process) at 20 points
// spread over its run. Each time the destination verifies, signature and
// every blob hash, as its previous catalog or the new one; a re-run
// completes, moving only what had not arrived.
func TestCopyKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills 20 copies; skipped with -short")
	}
	ctx := t.Context()
	work := t.TempDir()
	signer, pub, err := synthreg.NewSigner()
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(work, "k.pub")
	filetest.WriteFile(t, key, pub)
	signed := time.Now().UTC().Truncate(time.Second)
	const size = 1 << 20
	// The destination's previous state: serial 1, 5 entries. The source:
	// serial 2, the same 5 and 35 more.
	base := filepath.Join(work, "base")
	cat1, err := synthreg.Build(ctx, base, synthreg.Options{Entries: 5, Signer: signer, Now: signed}, synthreg.RandomEntry("crash", size))
	if err != nil {
		t.Fatal(err)
	}
	digest1, err := cat1.Digest()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(work, "src")
	filetest.CopyDir(t, base, src)
	if _, err := synthreg.Build(ctx, src, synthreg.Options{Entries: 40, Signer: signer, Now: signed.Add(time.Second),
		Catalog: index.Catalog{Serial: 2, Previous: digest1, Created: signed}}, synthreg.RandomEntry("crash", size)); err != nil {
		t.Fatal(err)
	}
	args := func(dst string) []string { return []string{"copy", src, dst, "--key", key, "--no-state", "--json"} }
	run := func(dst string) *transfer.Report {
		t.Helper()
		var out, errOut bytes.Buffer
		cmd := airvsxCmd(ctx, t, args(dst)...)
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("airvsx %s: %v\n%s", strings.Join(args(dst), " "), err, errOut.Bytes())
		}
		var rep transfer.Report
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("copy --json: %v\n%s", err, out.Bytes())
		}
		return &rep
	}

	// What an uninterrupted copy moves.
	timed := filepath.Join(work, "timed")
	filetest.CopyDir(t, base, timed)
	start := time.Now()
	full := run(timed)
	all := full.Blobs + full.Present
	t.Logf("an uninterrupted copy takes %v: %d blobs (%d bytes), %d present", time.Since(start), full.Blobs, full.Bytes, full.Present)
	metaBase := len(filetest.Files(t, filepath.Join(base, "metadata")))

	// The points are spread over the copy's progress, watched from
	// outside: 18 while the blobs arrive, one once they all have (tags
	// and metadata), one once the first new metadata file is there.
	const points = 20
	reached := func(i int, dst string) bool {
		switch {
		case i <= points-2:
			return blobFiles(t, dst) >= full.Present+full.Blobs*i/(points-1)
		case i == points-1:
			return blobFiles(t, dst) == all
		}
		names, _ := os.ReadDir(filepath.Join(dst, "metadata"))
		tg, _ := os.ReadDir(filepath.Join(dst, "metadata", "targets"))
		return len(names)+len(tg)-1 > metaBase
	}
	killed := 0
	for i := 1; i <= points; i++ {
		dst := filepath.Join(work, fmt.Sprintf("kill-%02d", i))
		filetest.CopyDir(t, base, dst)
		cmd := airvsxCmd(ctx, t, args(dst)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
	wait:
		for {
			select {
			case err := <-done:
				t.Logf("point %d: the copy finished before the kill (%v)", i, err)
				break wait
			case <-time.After(time.Millisecond):
			}
			if !reached(i, dst) {
				continue
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			err := <-done
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled() {
				killed++
			}
			break
		}

		// The old catalog or the new one, and every byte it pins.
		cat := readCatalog(t, dst)
		if cat.Serial != 1 && cat.Serial != 2 {
			t.Errorf("point %d: catalog serial %d; want 1 or 2", i, cat.Serial)
		}
		checkBlobs(t, dst, cat)

		// A re-run completes and moves only what had not arrived.
		arrived := blobFiles(t, dst)
		t.Logf("point %d: %d of %d blobs there, catalog serial %d", i, arrived, all, cat.Serial)
		rep := run(dst)
		if rep.Present != arrived || rep.Present+rep.Blobs != all {
			t.Errorf("point %d: the re-run found %d blobs present and moved %d; want the %d that had arrived and the %d others",
				i, rep.Present, rep.Blobs, arrived, all-arrived)
		}
		after := readCatalog(t, dst)
		checkBlobs(t, dst, after)
		if after.Serial != 2 || len(after.Entries) != 40 {
			t.Errorf("point %d: after the re-run: serial %d, %d entries; want 2, 40", i, after.Serial, len(after.Entries))
		}
		os.RemoveAll(dst)
	}
	if killed < points/2 {
		t.Errorf("only %d of %d copies were killed mid-run; the points do not cover the run", killed, points)
	}
	t.Logf("%d of %d copies killed mid-run", killed, points)
}
