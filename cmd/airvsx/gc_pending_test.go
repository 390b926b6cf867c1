package main

import (
	"bytes"
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
)

// TestGCKeepsKilledCopy: a copy killed half-way leaves its pending
// record; gc then deletes none of what it wrote (and says why), and the
// copy's re-run finds every blob present. Into a directory it is killed
// while the blobs arrive; into a distribution registry (docker://) once
// some of its tags are there, which no catalog pins yet and gc would
// otherwise remove with their blobs.
func TestGCKeepsKilledCopy(t *testing.T) {
	killEachKind(t, "a copy per place", testGCKeepsKilledCopy, "dir", "docker")
}

func testGCKeepsKilledCopy(t *testing.T, kind string) {
	ctx := t.Context()
	work := t.TempDir()
	signer, pub := demoreg.Signer(t, work, "k")
	base := filepath.Join(work, "base")
	if _, err := synthreg.Build(ctx, base, synthreg.Options{Entries: 3, Signer: signer}, synthreg.RandomEntry("crash", 32<<10)); err != nil {
		t.Fatal(err)
	}
	_, digest1 := demoCatalogDigest(t, base)
	src := filepath.Join(work, "src")
	filetest.CopyDir(t, base, src)
	if _, err := synthreg.Build(ctx, src, synthreg.Options{Entries: 40, Signer: signer, Now: time.Now().Add(time.Second),
		Catalog: index.Catalog{Serial: 2, Previous: digest1}}, synthreg.RandomEntry("crash", 32<<10)); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		cmd := airvsxCmd(ctx, t, args...)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("airvsx %s: %v\n%s", strings.Join(args, " "), err, out.Bytes())
		}
		return out.String()
	}
	var (
		dst    string
		flags  []string
		blobs  func() int // the blobs at dst
		killAt func() bool
	)
	switch kind {
	case "dir":
		dst = filepath.Join(work, "dst")
		filetest.CopyDir(t, base, dst)
		blobs = func() int { return blobFiles(t, dst) }
		before := blobs()
		killAt = func() bool { return blobs() >= before+40 }
	case "docker":
		r := ocitest.Run(t, ocitest.Options{})
		repos := filepath.Join(r.Storage, "docker", "registry", "v2", "repositories", "dst")
		dst, flags = "docker://"+r.Host+"/dst", []string{"--insecure"}
		run(append([]string{"copy", base, dst, "--key", pub, "--no-state"}, flags...)...)
		blobs = func() int { return layerLinks(t, repos, "airvsx-metadata", "airvsx-quarantine", "airvsx-pending") }
		before := tagDirs(t, repos)
		killAt = func() bool { return tagDirs(t, repos) >= before+10 }
	}
	cmd := airvsxCmd(ctx, t, append([]string{"copy", src, dst, "--key", pub, "--no-state"}, flags...)...)
	out, done := startCmd(t, cmd)
	for !killAt() {
		select {
		case err := <-done:
			t.Fatalf("the copy finished before the kill (%v)\n%s", err, out.Bytes())
		case <-time.After(time.Millisecond):
		}
	}
	if !signaled(sigkill(t, cmd, done)) {
		t.Fatalf("the copy was not killed mid-run\n%s", out.Bytes())
	}
	arrived := settled(blobs)
	gcOut := run(append([]string{"gc", "--registry", dst}, flags...)...)
	if !strings.Contains(gcOut, "kept: an unfinished copy") || !strings.Contains(gcOut, "deleted 0 blobs") {
		t.Errorf("gc after a killed copy said:\n%s\nwant it to keep the copy's blobs and say so", gcOut)
	}
	if got := blobs(); got != arrived {
		t.Errorf("gc left %d of the %d blobs a killed copy wrote", got, arrived)
	}
	copyOut := run(append([]string{"copy", src, dst, "--key", pub, "--no-state", "--json"}, flags...)...)
	if !strings.Contains(copyOut, fmt.Sprintf(`"present": %d,`, arrived)) {
		t.Errorf("the re-run of the copy did not find the %d blobs present:\n%s", arrived, copyOut)
	}
	gcOut = run(append([]string{"gc", "--registry", dst}, flags...)...)
	if strings.Contains(gcOut, "kept:") || !strings.Contains(gcOut, "deleted 0 blobs") {
		t.Errorf("gc after the copy finished said:\n%s\nwant nothing kept for it and nothing to delete", gcOut)
	}
	if kind == "dir" {
		if _, err := os.Stat(filepath.Join(dst, "pending")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("pending/ after the copy finished: %v; want it gone", err)
		}
	}
}

// tagDirs counts the tags a distribution registry's storage holds in the
// repositories under dir.
func tagDirs(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if d.IsDir() && filepath.Base(filepath.Dir(p)) == "tags" && filepath.Base(filepath.Dir(filepath.Dir(p))) == "_manifests" {
			n++
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
