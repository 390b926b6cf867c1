package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/internal/filetest"
	"github.com/airvsx/airvsx/mirror/openvsxtest"
)

// airvsxCmd returns a command that runs airvsx in a child process (this
// test binary, see TestMain).
func airvsxCmd(ctx context.Context, t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), "AIRVSX_TEST_MAIN=1", "COSIGN_PASSWORD=")
	return cmd
}

// TestSyncKilled kills a sync (SIGKILL to a child process) at 20 points
// spread over its run. Each time the registry's previous catalog still
// verifies, signature and every blob hash, and a re-run completes.
func TestSyncKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills 20 syncs; skipped with -short")
	}
	srv := openvsxtest.New(t, openvsxtest.Options{Latency: 15 * time.Millisecond})
	work := t.TempDir()
	key := filepath.Join(work, "k")
	run := func(args ...string) {
		t.Helper()
		out, err := airvsxCmd(t.Context(), t, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("airvsx %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("keygen", "--out", key)
	small := filepath.Join(work, "small.yaml")
	full := filepath.Join("..", "..", "policies", "examples", "demo.yaml")
	if err := os.WriteFile(small, []byte("version: 1\nextensions:\n  - id: airvsx-demo.night-theme\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	syncArgs := func(policy, reg string) []string {
		return []string{"sync", "--upstream", srv.URL, "--rate", "1000", "--concurrency", "2", "--policy", policy, "--registry", reg, "--key", key + ".key"}
	}

	// The base: a registry with a signed catalog of one entry.
	base := filepath.Join(work, "base")
	run(syncArgs(small, base)...)
	baseCat := readCatalog(t, base)

	// How long an uninterrupted sync of the full policy takes.
	timed := filepath.Join(work, "timed")
	filetest.CopyDir(t, base, timed)
	start := time.Now()
	run(syncArgs(full, timed)...)
	total := time.Since(start)
	t.Logf("an uninterrupted sync takes %v", total)

	const points = 20
	killed := 0
	for i := 1; i <= points; i++ {
		reg := filepath.Join(work, fmt.Sprintf("kill-%02d", i))
		filetest.CopyDir(t, base, reg)
		cmd := airvsxCmd(t.Context(), t, syncArgs(full, reg)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		at := total * time.Duration(i) / (points + 1)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			t.Logf("point %d (%v): the sync finished before the kill (%v)", i, at, err)
		case <-time.After(at):
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			err := <-done
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled() {
				killed++
			}
		}

		// Whatever the point, the registry's catalog verifies, and so
		// does every byte it pins: the old catalog, or the new one when
		// the kill came after it was signed.
		cat := readCatalog(t, reg)
		if cat.Serial != baseCat.Serial && cat.Serial != baseCat.Serial+1 {
			t.Errorf("point %d: catalog serial %d; want %d or %d", i, cat.Serial, baseCat.Serial, baseCat.Serial+1)
		}
		checkBlobs(t, reg, cat)

		// A re-run completes and reaches the full catalog.
		run(syncArgs(full, reg)...)
		after := readCatalog(t, reg)
		checkBlobs(t, reg, after)
		if len(after.Entries) != 7 {
			t.Errorf("point %d: after the re-run the catalog has %d entries; want 7", i, len(after.Entries))
		}
	}
	if killed < points/2 {
		t.Errorf("only %d of %d syncs were killed mid-run; the points do not cover the run", killed, points)
	}
	t.Logf("%d of %d syncs killed mid-run", killed, points)
}

// readCatalog reads a registry's catalog, checking the TUF chain from the
// registry's own first root.
func readCatalog(t *testing.T, reg string) *index.Catalog {
	t.Helper()
	st, err := store.OpenDir(reg, store.DirOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	root, err := os.ReadFile(filepath.Join(reg, "metadata", "1.root.json"))
	if err != nil {
		t.Fatal(err)
	}
	cat, _, err := trust.ReadCatalog(t.Context(), st, trust.CatalogOptions{Root: root})
	if err != nil {
		t.Fatalf("%s: the catalog does not verify: %v", reg, err)
	}
	return cat
}

// checkBlobs reads every manifest and blob the catalog pins, verifying
// each hash.
func checkBlobs(t *testing.T, reg string, cat *index.Catalog) {
	t.Helper()
	ctx := t.Context()
	st, err := store.OpenDir(reg, store.DirOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	read := func(repo, digest string, size int64) []byte {
		r, err := st.OpenBlob(ctx, repo, digest, size)
		if err != nil {
			t.Errorf("%s: blob %s: %v", reg, digest, err)
			return nil
		}
		defer r.Close()
		b, err := io.ReadAll(r)
		if err != nil {
			t.Errorf("%s: blob %s: %v", reg, digest, err)
		}
		return b
	}
	for _, e := range cat.Entries {
		repo := store.Repo(e.ID)
		raw := read(repo, e.ManifestDigest, e.ManifestSize)
		m, err := store.ParseManifest(raw)
		if err != nil {
			t.Errorf("%s: %s: manifest: %v", reg, e.String(), err)
			continue
		}
		for _, l := range m.Layers {
			read(repo, l.Digest, l.Size)
		}
	}
}
