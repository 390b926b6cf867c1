package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/testkit/ocitest"
	"github.com/airvsx/airvsx/testkit/synthreg"
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

// layerLinks counts the blobs a distribution registry's storage links into
// the repositories under dir (one "link" file per blob and repository: what
// a HEAD of the blob finds), those of the repositories named in skip left
// out. A blob is linked only once its upload was committed.
func layerLinks(t *testing.T, dir string, skip ...string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == dir {
			return fs.SkipAll
		}
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "_manifests" || d.Name() == "_uploads") {
			return fs.SkipDir
		}
		for _, s := range skip {
			if d.IsDir() && p == filepath.Join(dir, s) {
				return fs.SkipDir
			}
		}
		if d.Name() == "link" && strings.Contains(p, string(filepath.Separator)+"_layers"+string(filepath.Separator)) {
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
// spread over its run, into a directory and into a distribution registry
// (docker://). Each time the destination verifies, signature and every
// blob hash (for the registry, read through its API), as its previous
// catalog or the new one; a re-run completes, moving only what had not
// arrived.
func TestCopyKilled(t *testing.T) {
	killEachKind(t, "20 copies per destination", testCopyKilled, "dir", "docker")
}

// copyDest is a kind of destination for testCopyKilled.
type copyDest struct {
	// args are copy's extra flags for it.
	args []string
	// prepare makes the destination called name, holding what base (a
	// directory registry) holds, and returns its place.
	prepare func(name string) string
	// blobs counts the extension blobs that have arrived at a place.
	blobs func(place string) int
	// metadata counts the metadata files (or their blobs) at a place.
	metadata func(place string) int
	// remove removes a place once checked.
	remove func(place string)
	// poll is how often the test looks at the copy's progress: often
	// enough to stop between two blobs, yet leaving the CPUs to the copy
	// (and the registry).
	poll time.Duration
}

// settled returns count's value once it has stayed the same for 300 ms
// (at most 10 s): what a destination holds after the writer was killed,
// with the uploads a registry was still finishing done.
func settled(count func() int) int {
	n, same := count(), 0
	for deadline := time.Now().Add(10 * time.Second); same < 6 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		if m := count(); m == n {
			same++
		} else {
			n, same = m, 0
		}
	}
	return n
}

// copyKilledSize is, per kind of destination, how many entries the
// destination holds before the copy and the source after it, and each
// one's package size: the registry's are fewer and smaller, each of its
// uploads costs the registry (a process of its own, on the same CPUs)
// several requests, and the test runs under -race in CI.
var copyKilledSize = map[string]struct {
	before, entries int
	size            int64
}{
	"dir":    {5, 40, 1 << 20},
	"docker": {3, 8, 32 << 10},
}

func testCopyKilled(t *testing.T, kind string) {
	ctx := t.Context()
	work := t.TempDir()
	signer, key := demoreg.Signer(t, work, "k")
	signed := time.Now().UTC().Truncate(time.Second)
	before, entries, size := copyKilledSize[kind].before, copyKilledSize[kind].entries, copyKilledSize[kind].size
	// The destination's previous state: serial 1, some entries. The
	// source: serial 2, the same ones and others.
	base := filepath.Join(work, "base")
	cat1, err := synthreg.Build(ctx, base, synthreg.Options{Entries: before, Signer: signer, Now: signed}, synthreg.RandomEntry("crash", size))
	if err != nil {
		t.Fatal(err)
	}
	_, digest1 := demoreg.ReadCatalog(t, base)
	_ = cat1
	src := filepath.Join(work, "src")
	filetest.CopyDir(t, base, src)
	if _, err := synthreg.Build(ctx, src, synthreg.Options{Entries: entries, Signer: signer, Now: signed.Add(time.Second),
		Catalog: index.Catalog{Serial: 2, Previous: digest1, Created: signed}}, synthreg.RandomEntry("crash", size)); err != nil {
		t.Fatal(err)
	}
	var dest copyDest
	args := func(from, dst string) []string {
		return append([]string{"copy", from, dst, "--key", key, "--no-state", "--json"}, dest.args...)
	}
	copyRun := func(from, dst string) *transfer.Report {
		t.Helper()
		var out, errOut bytes.Buffer
		cmd := airvsxCmd(ctx, t, args(from, dst)...)
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("airvsx %s: %v\n%s", strings.Join(args(from, dst), " "), err, errOut.Bytes())
		}
		var rep transfer.Report
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("copy --json: %v\n%s", err, out.Bytes())
		}
		return &rep
	}
	run := func(dst string) *transfer.Report { t.Helper(); return copyRun(src, dst) }

	switch kind {
	case "dir":
		dest = copyDest{
			prepare: func(name string) string {
				dst := filepath.Join(work, name)
				filetest.CopyDir(t, base, dst)
				return dst
			},
			blobs: func(dst string) int { return blobFiles(t, dst) },
			metadata: func(dst string) int {
				names, _ := os.ReadDir(filepath.Join(dst, "metadata"))
				tg, _ := os.ReadDir(filepath.Join(dst, "metadata", "targets"))
				return len(names) + len(tg) - 1
			},
			remove: func(dst string) { os.RemoveAll(dst) },
			poll:   time.Millisecond,
		}
	case "docker":
		// One registry, one prefix per run; its storage tells what has
		// arrived (a blob is linked into its repository when its upload is
		// committed), its API what verifies. The base is copied in once;
		// each run's prefix starts as a copy of its repositories' files
		// (the registry keeps no cache of them), which link the same
		// blobs.
		r := ocitest.Run(t, ocitest.Options{})
		repos := filepath.Join(r.Storage, "docker", "registry", "v2", "repositories")
		prefix := func(place string) string { return strings.TrimPrefix(place, "docker://"+r.Host+"/") }
		dest.args = []string{"--insecure"}
		copyRun(base, "docker://"+r.Host+"/base")
		dest = copyDest{
			args: dest.args,
			prepare: func(name string) string {
				filetest.CopyDir(t, filepath.Join(repos, "base"), filepath.Join(repos, name))
				return "docker://" + r.Host + "/" + name
			},
			blobs: func(dst string) int {
				return layerLinks(t, filepath.Join(repos, prefix(dst)), "airvsx-metadata", "airvsx-quarantine", "airvsx-pending")
			},
			metadata: func(dst string) int { return layerLinks(t, filepath.Join(repos, prefix(dst), "airvsx-metadata")) },
			remove:   func(string) {},      // the registry's storage goes with the test
			poll:     5 * time.Millisecond, // an upload is several requests of a few ms each
		}
	default:
		t.Fatalf("unknown kind %q", kind)
	}

	// What an uninterrupted copy moves.
	timed := dest.prepare("timed")
	start := time.Now()
	full := run(timed)
	all := full.Blobs + full.Present
	t.Logf("an uninterrupted copy takes %v: %d blobs (%d bytes), %d present", time.Since(start), full.Blobs, full.Bytes, full.Present)
	if got := dest.blobs(timed); got != all {
		t.Fatalf("after an uninterrupted copy %d blobs are there; want %d", got, all)
	}

	// The points are spread over the copy's progress, watched from
	// outside: 18 while the blobs arrive, one once they all have (tags
	// and metadata), one once the first new metadata file (or, in a
	// registry, its blob) is there.
	const points = 20
	killed := 0
	for i := 1; i <= points; i++ {
		dst := dest.prepare(fmt.Sprintf("kill-%02d", i))
		metaBase := dest.metadata(dst)
		reached := func() bool {
			switch {
			case i <= points-2:
				return dest.blobs(dst) >= full.Present+full.Blobs*i/(points-1)
			case i == points-1:
				return dest.blobs(dst) == all
			}
			return dest.metadata(dst) > metaBase
		}
		cmd := airvsxCmd(ctx, t, args(src, dst)...)
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
			case <-time.After(dest.poll):
			}
			if !reached() {
				continue
			}
			if signaled(sigkill(t, cmd, done)) {
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

		// A re-run completes and moves only what had not arrived. A
		// registry may still finish an upload whose body had all been
		// sent when the copy was killed: count once nothing changes.
		arrived := settled(func() int { return dest.blobs(dst) })
		t.Logf("point %d: %d of %d blobs there, catalog serial %d", i, arrived, all, cat.Serial)
		rep := run(dst)
		if rep.Present != arrived || rep.Present+rep.Blobs != all {
			t.Errorf("point %d: the re-run found %d blobs present and moved %d; want the %d that had arrived and the %d others",
				i, rep.Present, rep.Blobs, arrived, all-arrived)
		}
		after := readCatalog(t, dst)
		checkBlobs(t, dst, after)
		if after.Serial != 2 || len(after.Entries) != entries {
			t.Errorf("point %d: after the re-run: serial %d, %d entries; want 2, %d", i, after.Serial, len(after.Entries), entries)
		}
		dest.remove(dst)
	}
	if killed < points/2 {
		t.Errorf("only %d of %d copies were killed mid-run; the points do not cover the run", killed, points)
	}
	t.Logf("%d of %d copies killed mid-run", killed, points)
}
