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

	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/testkit/ocitest"
	"github.com/airvsx/airvsx/testkit/synthreg"
	"github.com/airvsx/airvsx/verify"
)

// The kill tests of prune and gc: a real airvsx process SIGKILLed at 10
// points over its run, each time on a fresh copy of the same registry.
// After each kill the registry verifies (verify, the library: every
// signature and every byte the catalog pins; warnings for the orphans
// left are fine), and a re-run finishes the job: the registry then holds
// exactly what an uninterrupted run leaves.

// pruneKilled is the registry the kill tests start from: entries
// x.ext-0000 to x.ext-(entries-1), of which the policy keeps the first
// kept.
const (
	pruneKilledEntries = 160
	pruneKilledKept    = 60
	pruneKilledSize    = 4 << 10
)

// TestPruneKilled kills a prune at 10 points: at once, once the new
// catalog is signed, and 8 while the blobs go.
func TestPruneKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills 10 prunes; skipped with -short")
	}
	work := t.TempDir()
	key, signer := killKey(t, work)
	base := filepath.Join(work, "base")
	if _, err := synthreg.Build(t.Context(), base, synthreg.Options{Entries: pruneKilledEntries, Signer: signer}, synthreg.RandomEntry("x", pruneKilledSize)); err != nil {
		t.Fatal(err)
	}
	pol := filepath.Join(work, "policy.yaml")
	filetest.WriteFile(t, pol, []byte(keepFirstPolicy(pruneKilledKept)))
	args := func(reg string) []string {
		return []string{"prune", "--registry", reg, "--key", key + trust.KeySuffix, "--policy", pol}
	}
	metaBase := metadataFiles(t, base)
	killRunAt(t, dirKillPlace(t, work, base), signer, args, func(i int, reg string, start, freed int64) bool {
		switch {
		case i == 1:
			return true
		case i == 2:
			return metadataFiles(t, reg) > metaBase
		}
		return regBlobBytes(t, reg) <= start-freed*int64(i-2)/9
	})
}

// TestGCKilled kills a gc at 10 points while it removes what a sync
// --prune left (100 entries' tags and blobs no catalog refers to), in a
// directory and in a distribution registry (docker://, through its API).
func TestGCKilled(t *testing.T) {
	killEachKind(t, "10 gcs per place", testGCKilled, "dir", "docker")
}

func testGCKilled(t *testing.T, kind string) {
	ctx := t.Context()
	work := t.TempDir()
	signer, pub := demoreg.Signer(t, work, "k")
	base := filepath.Join(work, "base")
	cat, err := synthreg.Build(ctx, base, synthreg.Options{Entries: pruneKilledEntries, Signer: signer}, synthreg.RandomEntry("x", pruneKilledSize))
	if err != nil {
		t.Fatal(err)
	}
	_, digest := demoCatalogDigest(t, base)
	var kp killPlace
	place := base
	switch kind {
	case "dir":
		kp = dirKillPlace(t, work, base)
	case "docker":
		r := ocitest.Run(t, ocitest.Options{})
		repos := filepath.Join(r.Storage, "docker", "registry", "v2", "repositories")
		place = "docker://" + r.Host + "/base"
		var out bytes.Buffer
		cp := airvsxCmd(ctx, t, "copy", base, place, "--insecure", "--key", pub, "--no-state")
		cp.Stdout, cp.Stderr = &out, &out
		if err := cp.Run(); err != nil {
			t.Fatalf("copy into the registry: %v\n%s", err, out.Bytes())
		}
		prefix := func(p string) string { return strings.TrimPrefix(p, "docker://"+r.Host+"/") }
		kp = killPlace{
			prepare: func(name string) string {
				filetest.CopyDir(t, filepath.Join(repos, "base"), filepath.Join(repos, name))
				return "docker://" + r.Host + "/" + name
			},
			// The blobs linked into the extension repositories: a
			// DELETE unlinks one (the registry's garbage-collect would
			// then free its bytes).
			measure: func(p string) int64 {
				return int64(layerLinks(t, filepath.Join(repos, prefix(p)), "airvsx-metadata", "airvsx-quarantine", "airvsx-pending"))
			},
			open:           openTestRegistry,
			flags:          []string{"--insecure"},
			keepsRepoNames: true,
		}
	}
	// What sync --prune leaves: a catalog without most entries, their
	// tags and blobs still there.
	st, err := openRegistryNet(ctx, place, true, registryNet{insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	next := index.Catalog{Format: index.CatalogFormat, Serial: 2, Created: cat.Created.Add(time.Second), Previous: digest, Entries: cat.Entries[:pruneKilledKept]}
	if _, err := trust.PublishCatalog(ctx, trust.Metadata(ctx, st), &next, signer, trust.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	args := func(reg string) []string { return []string{"gc", "--registry", reg} }
	killRunAt(t, kp, signer, args, func(i int, reg string, start, freed int64) bool {
		return kp.measure(reg) <= start-freed*int64(i-1)/10
	})
}

// killPlace is where the registries of a kill test live.
type killPlace struct {
	// prepare makes a copy of the base registry called name and
	// returns its place.
	prepare func(name string) string
	// measure is what the run frees at a place, which falls as it goes.
	measure func(place string) int64
	// open opens a place read-only, for verify.
	open func(place string) (store.Store, error)
	// flags are the command's flags for the kind of place.
	flags []string
	// keepsRepoNames says the place lists an emptied repository's name
	// still (a registry's catalog API): verify's orphan-repo warning
	// stays after gc.
	keepsRepoNames bool
}

// dirKillPlace is a killPlace of directory registries in work, copies
// of base, measured by their blob bytes.
func dirKillPlace(t *testing.T, work, base string) killPlace {
	return killPlace{
		prepare: func(name string) string {
			reg := filepath.Join(work, name)
			filetest.CopyDir(t, base, reg)
			return reg
		},
		measure: func(reg string) int64 { return regBlobBytes(t, reg) },
		open: func(reg string) (store.Store, error) {
			return dirstore.Open(reg, dirstore.Options{ReadOnly: true})
		},
	}
}

// killRunAt runs args (the command, given the place) on a copy of the
// base registry (kp.prepare) to completion, then on 10 more copies,
// killing each when reached says point i is (1 to 10; start is what
// kp.measure says of the base, freed what the whole run frees). After
// each kill the copy verifies and a re-run leaves it as the whole run
// did.
func killRunAt(t *testing.T, kp killPlace, signer signature.Verifier, args func(place string) []string, reached func(i int, place string, start, freed int64) bool) {
	ctx := t.Context()
	argv := func(place string) []string { return append(args(place), kp.flags...) }
	run := func(place string) {
		t.Helper()
		var out bytes.Buffer
		cmd := airvsxCmd(ctx, t, argv(place)...)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("airvsx %s: %v\n%s", strings.Join(argv(place), " "), err, out.Bytes())
		}
	}
	full := kp.prepare("full")
	start := kp.measure(full)
	began := time.Now()
	run(full)
	want := kp.measure(full)
	freed := start - want
	t.Logf("an uninterrupted run takes %v and frees %d of %d", time.Since(began), freed, start)
	if freed <= 0 {
		t.Fatalf("the run freed nothing")
	}
	checkVerifies(t, kp, full, signer, false)

	const points = 10
	killed := 0
	for i := 1; i <= points; i++ {
		place := kp.prepare(fmt.Sprintf("kill-%02d", i))
		cmd := airvsxCmd(ctx, t, argv(place)...)
		out, done := startCmd(t, cmd)
	wait:
		for {
			if reached(i, place, start, freed) {
				if signaled(sigkill(t, cmd, done)) {
					killed++
				}
				break
			}
			select {
			case err := <-done:
				t.Logf("point %d: the run finished before the kill (%v)\n%s", i, err, out.Bytes())
				break wait
			case <-time.After(time.Millisecond):
			}
		}
		left := settled(func() int { return int(kp.measure(place)) })
		checkVerifies(t, kp, place, signer, true)
		run(place)
		if got := kp.measure(place); got != want {
			t.Errorf("point %d (killed with %d left to free): after the re-run %d; want %d, as after an uninterrupted run", i, int64(left)-want, got, want)
		}
		checkVerifies(t, kp, place, signer, false)
		if !strings.HasPrefix(place, "docker://") {
			os.RemoveAll(place)
		}
	}
	if killed < points/2 {
		t.Errorf("only %d of %d runs were killed mid-run; the points do not cover the run", killed, points)
	}
	t.Logf("%d of %d runs killed mid-run", killed, points)
}

// checkVerifies verifies the registry with the library: no error but
// the one the synthetic packages give (they are no zip files); unless
// orphansOK, no orphan warning either (but orphan-repo where the place
// keeps an emptied repository's name).
func checkVerifies(t *testing.T, kp killPlace, reg string, signer signature.Verifier, orphansOK bool) {
	t.Helper()
	st, err := kp.open(reg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rep, err := verify.Registry(t.Context(), verify.RegistryOptions{Store: st, Target: reg, Anchor: trust.Anchor{Key: signer}})
	if err != nil {
		t.Fatalf("verify %s: %v", reg, err)
	}
	for _, p := range rep.Problems {
		switch {
		case p.Severity == verify.Error && p.Rule == verify.RuleVsixUnsafe:
		case p.Severity == verify.Warning && (orphansOK || !strings.HasPrefix(string(p.Rule), "orphan-") && p.Rule != verify.RuleExtraFile):
		case p.Rule == verify.RuleOrphanRepo && kp.keepsRepoNames:
		default:
			t.Errorf("verify %s: %s %s %s %s: %s", reg, p.Severity, p.Rule, p.File, p.Entry, p.Message)
		}
	}
}

// killKey writes an unencrypted key pair (COSIGN_PASSWORD is empty in
// the children) and returns its prefix and signer.
func killKey(t *testing.T, dir string) (string, signature.SignerVerifier) {
	t.Helper()
	prefix := filepath.Join(dir, "k")
	keyPath, _, err := trust.WriteKeyPair(prefix, nil)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := trust.LoadSigner(keyPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	return prefix, signer
}

// keepFirstPolicy keeps x.ext-0000 to x.ext-(n-1).
func keepFirstPolicy(n int) string {
	var b strings.Builder
	b.WriteString("version: 1\nrequireUpstreamSignature: false\nextensions:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - id: x.ext-%04d\n", i)
	}
	return b.String()
}

// regBlobBytes is the bytes of the blob files of a directory registry
// (temp files aside), which may be going while it counts.
func regBlobBytes(t *testing.T, reg string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(filepath.Join(reg, "extensions"), func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed while walked
		}
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && filepath.Base(filepath.Dir(p)) == "sha256" && !strings.HasPrefix(d.Name(), ".tmp-") {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// metadataFiles counts the files of a directory registry's metadata/
// and metadata/targets/.
func metadataFiles(t *testing.T, reg string) int {
	t.Helper()
	names, _ := os.ReadDir(filepath.Join(reg, "metadata"))
	tg, _ := os.ReadDir(filepath.Join(reg, "metadata", "targets"))
	return len(names) + len(tg)
}

// demoCatalogDigest reads a registry's catalog and its digest through
// its own chain.
func demoCatalogDigest(t *testing.T, reg string) (*index.Catalog, string) {
	t.Helper()
	st, err := dirstore.Open(reg, dirstore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cat, tr, err := trust.ReadCatalog(t.Context(), st, trust.CatalogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cat, tr.CatalogDigest
}
