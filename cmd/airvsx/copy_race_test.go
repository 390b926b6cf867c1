package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/testkit/synthreg"
)

// TestCopyConcurrentNewDest runs pairs of copies at once into a new DST,
// each from another operator's registry: one copy writes DST, and the
// other fails, either at DST's lock (while the first is writing) or
// refusing another operator's registry (once it has written). DST's
// catalog and blobs then verify and DST holds the winner's metadata only,
// byte for byte; the writers' lock is taken before the registry's files
// exist, so two copies never both write a new DST.
func TestCopyConcurrentNewDest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 40 pairs of copies; skipped with -short")
	}
	const pairs = 40
	ctx := t.Context()
	work := t.TempDir()
	type source struct{ dir, key string }
	var srcs [2]source
	for i, name := range []string{"a", "b"} {
		signer, key := demoreg.Signer(t, work, name)
		dir := filepath.Join(work, "src-"+name)
		if _, err := synthreg.Build(ctx, dir, synthreg.Options{Entries: 2, Signer: signer, Now: time.Now().UTC().Truncate(time.Second)},
			synthreg.RandomEntry("race"+name, 4<<10)); err != nil {
			t.Fatal(err)
		}
		srcs[i] = source{dir, key}
	}
	for p := range pairs {
		dst := filepath.Join(work, fmt.Sprintf("dst-%d", p))
		var (
			wg   sync.WaitGroup
			outs [2]bytes.Buffer
			errs [2]error
		)
		for i, s := range srcs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := airvsxCmd(ctx, t, "copy", s.dir, dst, "--key", s.key, "--no-state")
				cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
				errs[i] = cmd.Run()
			}()
		}
		wg.Wait()
		won := -1
		for i := range srcs {
			var exit *exec.ExitError
			switch {
			case errs[i] == nil:
				if won >= 0 {
					t.Errorf("pair %d: both copies into %s succeeded:\n%s\n%s", p, dst, outs[0].Bytes(), outs[1].Bytes())
				}
				won = i
			case !errors.As(errs[i], &exit):
				t.Fatal(errs[i])
			case !strings.Contains(outs[i].String(), "another airvsx process (a copy or a sync) is writing "+dst) &&
				!strings.Contains(outs[i].String(), "another operator's registry"):
				t.Errorf("pair %d: copy of %s: %v; want success, the lock's error or another operator's registry refused:\n%s", p, srcs[i].dir, errs[i], outs[i].Bytes())
			}
		}
		if won < 0 {
			t.Fatalf("pair %d: no copy into %s succeeded:\n%s\n%s", p, dst, outs[0].Bytes(), outs[1].Bytes())
		}
		// DST's catalog verifies through its own chain, as the crash
		// tests check it (the synthetic packages are not zips, which
		// verify would report), with every blob it pins.
		checkBlobs(t, dst, readCatalog(t, dst))
		// Every metadata file is the winner's, byte for byte, and no
		// extension is the other's.
		want := filetest.Files(t, filepath.Join(srcs[won].dir, "metadata"))
		for name, data := range filetest.Files(t, filepath.Join(dst, "metadata")) {
			if want[name] != data {
				t.Errorf("pair %d: %s/metadata/%s is not %s's", p, dst, name, srcs[won].dir)
			}
		}
		if _, err := os.Stat(filepath.Join(dst, "extensions", fmt.Sprintf("race%c", 'a'+1-won))); err == nil {
			t.Errorf("pair %d: %s holds the other copy's extensions", p, dst)
		}
		if t.Failed() {
			t.FailNow()
		}
		os.RemoveAll(dst)
	}
}
