package main

import (
	"bytes"
	"context"
	"crypto"
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
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/gitstore"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
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
	// Under -race, a process sleeps a second before it exits (the race
	// runtime's atexit_sleep_ms, for other threads' reports); the kill
	// tests start some eighty of them.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	cmd.Env = append(os.Environ(), "AIRVSX_TEST_MAIN=1", "COSIGN_PASSWORD=", "GORACE="+gorace)
	return cmd
}

// startCmd starts cmd with its stdout and stderr both into out, and
// returns the channel on which what its Wait returns arrives.
func startCmd(t *testing.T, cmd *exec.Cmd) (out *bytes.Buffer, done <-chan error) {
	t.Helper()
	out = new(bytes.Buffer)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan error, 1)
	go func() { ch <- cmd.Wait() }()
	return out, ch
}

// sigkill sends SIGKILL to cmd, started with startCmd (done is its
// channel), and returns the error of its Wait: the process may have ended
// before the signal came.
func sigkill(t *testing.T, cmd *exec.Cmd, done <-chan error) error {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatal(err)
	}
	return <-done
}

// signaled reports whether err, the error of a Wait, says a signal ended
// the process.
func signaled(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled()
}

// TestSyncKilled kills a sync (SIGKILL to a child process) at points
// spread over its run, 20 into a directory and 12 into a git repository.
// Each time the registry's previous catalog still verifies, signature and
// every blob hash, and a re-run completes. In git, the branch is at the
// previous signed commit or at one signed commit on top of it: never a
// half commit.
func TestSyncKilled(t *testing.T) {
	killEachKind(t, "20 syncs", testSyncKilled, "dir", "git")
}

// killEachKind runs kill once per destination kind, each in a subtest
// named for it, unless -short (what says what a run kills). The kinds run
// side by side: each mostly waits on the fixture's latency and its kill
// timers, and each calibrates its kill points under the load of the
// other.
func killEachKind(t *testing.T, what string, kill func(t *testing.T, kind string), kinds ...string) {
	if testing.Short() {
		t.Skipf("kills %s; skipped with -short", what)
	}
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			kill(t, kind)
		})
	}
}

func testSyncKilled(t *testing.T, kind string) {
	srv := openvsxtest.New(t, openvsxtest.Options{Latency: 15 * time.Millisecond})
	work := t.TempDir()
	// The children's temporary directory, where a killed sync into git
	// leaves its downloads (checked at the end).
	tmp := filepath.Join(work, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	syncCmd := func(args ...string) *exec.Cmd {
		cmd := airvsxCmd(t.Context(), t, args...)
		cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
		return cmd
	}
	key := filepath.Join(work, "k")
	run := func(args ...string) {
		t.Helper()
		out, err := syncCmd(args...).CombinedOutput()
		if err != nil {
			t.Fatalf("airvsx %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("keygen", "--out", key)
	small := filepath.Join(work, "small.yaml")
	full := filepath.Join("..", "..", "policies", "examples", "demo.yaml")
	filetest.WriteFile(t, small, []byte("version: 1\nextensions:\n  - id: airvsx-demo.night-theme\n"))
	place := func(reg string) string {
		if kind == "git" {
			return "git:" + reg
		}
		return reg
	}
	syncArgs := func(policy, reg string) []string {
		return []string{"sync", "--upstream", srv.URL, "--rate", "1000", "--concurrency", "2", "--policy", policy, "--registry", place(reg), "--key", key + ".key"}
	}

	// The base: a registry with a signed catalog of one entry.
	base := filepath.Join(work, "base")
	if kind == "git" {
		base += ".git"
	}
	run(syncArgs(small, base)...)
	baseCat := readCatalog(t, place(base))
	baseHead := gitHead(t, place(base))

	// How long an uninterrupted sync of the full policy takes.
	timed := filepath.Join(work, "timed")
	filetest.CopyDir(t, base, timed)
	start := time.Now()
	run(syncArgs(full, timed)...)
	total := time.Since(start)
	t.Logf("an uninterrupted sync takes %v", total)

	points := 20
	if kind == "git" {
		points = 12 // the same path to the commit point, and a minute less
	}
	killed := 0
	for i := 1; i <= points; i++ {
		reg := filepath.Join(work, fmt.Sprintf("kill-%02d", i))
		if kind == "git" {
			reg += ".git"
		}
		filetest.CopyDir(t, base, reg)
		cmd := syncCmd(syncArgs(full, reg)...)
		_, done := startCmd(t, cmd)
		at := total * time.Duration(i) / time.Duration(points+1)
		select {
		case err := <-done:
			t.Logf("point %d (%v): the sync finished before the kill (%v)", i, at, err)
		case <-time.After(at):
			if signaled(sigkill(t, cmd, done)) {
				killed++
			}
		}

		// Whatever the point, the registry's catalog verifies, and so
		// does every byte it pins: the old catalog, or the new one when
		// the kill came after it was signed.
		cat := readCatalog(t, place(reg))
		if cat.Serial != baseCat.Serial && cat.Serial != baseCat.Serial+1 {
			t.Errorf("point %d: catalog serial %d; want %d or %d", i, cat.Serial, baseCat.Serial, baseCat.Serial+1)
		}
		checkBlobs(t, place(reg), cat)
		if kind == "git" {
			checkGitHead(t, place(reg), baseHead, key+".pub", cat.Serial != baseCat.Serial)
		}

		// A re-run completes and reaches the full catalog.
		run(syncArgs(full, reg)...)
		after := readCatalog(t, place(reg))
		checkBlobs(t, place(reg), after)
		if len(after.Entries) != 7 {
			t.Errorf("point %d: after the re-run the catalog has %d entries; want 7", i, len(after.Entries))
		}
	}
	if killed < points/2 {
		t.Errorf("only %d of %d syncs were killed mid-run; the points do not cover the run", killed, points)
	}
	t.Logf("%d of %d syncs killed mid-run", killed, points)
	checkTempSwept(t, tmp, func() { run(syncArgs(full, timed)...) })
}

// checkTempSwept checks that the temporary directories killed syncs left
// in tmp (a sync into a directory registry stages inside it and leaves
// none) are removed by the next sync, once they are old enough that no
// sync can still be starting in them.
func checkTempSwept(t *testing.T, tmp string, sync func()) {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(tmp, "airvsx-sync-*"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d temporary directories left by killed syncs", len(left))
	old := time.Now().Add(-time.Hour)
	for _, d := range left {
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
	}
	sync()
	if left, _ := filepath.Glob(filepath.Join(tmp, "airvsx-sync-*")); len(left) != 0 {
		t.Errorf("after another sync, %d temporary directories of killed syncs are left: %v", len(left), left)
	}
}

// gitHead returns the commit a git place's branch names ("" for a
// directory).
func gitHead(t *testing.T, place string) string {
	t.Helper()
	if !strings.HasPrefix(place, "git:") {
		return ""
	}
	st, err := openRegistry(place, false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	return st.(store.History).Revision()
}

// checkGitHead checks that a killed sync left the branch at base, or (when
// moved) at one commit on top of it, signed by the key in pubPath.
func checkGitHead(t *testing.T, place, base, pubPath string, moved bool) {
	t.Helper()
	st, err := openRegistry(place, false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g := st.(*gitstore.Store)
	v, err := trust.LoadVerifier(pubPath)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := v.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.CheckSignature(t.Context(), []crypto.PublicKey{pub}); err != nil {
		t.Errorf("%s: HEAD: %v", place, err)
	}
	switch parent, err := g.Parent(); {
	case err != nil:
		t.Errorf("%s: %v", place, err)
	case !moved && g.Revision() != base:
		t.Errorf("%s: the catalog did not change, yet HEAD moved from %s to %s", place, base, g.Revision())
	case moved && parent != base:
		t.Errorf("%s: HEAD %s has parent %s; want the previous commit %s", place, g.Revision(), parent, base)
	}
}

// readCatalog reads a registry's catalog, checking the TUF chain from the
// registry's own first root.
func readCatalog(t *testing.T, place string) *index.Catalog {
	t.Helper()
	st, err := openTestRegistry(place)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	root, err := st.ReadMetadata(t.Context(), "1.root.json", trust.MaxRootBytes)
	if err != nil {
		t.Fatal(err)
	}
	cat, _, err := trust.ReadCatalog(t.Context(), st, trust.CatalogOptions{Root: root})
	if err != nil {
		t.Fatalf("%s: the catalog does not verify: %v", place, err)
	}
	return cat
}

// openTestRegistry opens a test's registry for reading: a docker:// one
// (always on loopback in tests) over plain HTTP.
func openTestRegistry(place string) (store.Store, error) {
	return openRegistryNet(context.Background(), place, false, registryNet{insecure: true})
}

// checkBlobs reads every manifest and blob the catalog pins, verifying
// each hash.
func checkBlobs(t *testing.T, reg string, cat *index.Catalog) {
	t.Helper()
	ctx := t.Context()
	st, err := openTestRegistry(reg)
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
		repo := artifact.Repo(e.ID)
		raw := read(repo, e.ManifestDigest, e.ManifestSize)
		m, err := artifact.ParseManifest(raw)
		if err != nil {
			t.Errorf("%s: %s: manifest: %v", reg, e.String(), err)
			continue
		}
		for _, l := range m.Layers {
			read(repo, l.Digest, l.Size)
		}
	}
}
