package mirror_test

import (
	"bytes"
	"context"
	"crypto"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/mirror"
	"github.com/airvsx/airvsx/mirror/openvsx"
	"github.com/airvsx/airvsx/policies"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
)

func TestMain(m *testing.M) { demoreg.Main(m) }

// env is one test's own fixture upstream, client, signer and registry
// directory, for tests that sync in their own way; the demo registry as
// two plain syncs make it is shared (testkit/demoreg).
type env struct {
	srv    *openvsxtest.Server
	client *openvsx.Client
	signer signature.SignerVerifier
	dir    string
}

func newEnv(t *testing.T, opts openvsxtest.Options) *env {
	t.Helper()
	srv := openvsxtest.New(t, opts)
	sv, _ := demoreg.Signer(t, t.TempDir(), "signer")
	return &env{srv: srv, client: demoreg.Client(t, srv), signer: sv, dir: filepath.Join(t.TempDir(), "registry")}
}

func (e *env) sync(t *testing.T, pol *policies.Policy, dryRun bool) *mirror.Report {
	t.Helper()
	st := storetest.OpenDir(t, e.dir, dirstore.Options{Create: true})
	defer st.Close()
	rep, err := mirror.Sync(t.Context(), mirror.Options{
		Client: e.client, Policy: pol, Store: st, Signer: e.signer, DryRun: dryRun,
		Now: func() time.Time { return demoreg.SyncNow1 }, TempDir: t.TempDir(),
	})
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return rep
}

func (e *env) catalog(t *testing.T) *index.Catalog {
	t.Helper()
	return catalogOf(t, e.dir)
}

// catalogOf reads the catalog of the registry in dir, checked against its
// own root at demoreg.VerifyNow.
func catalogOf(t *testing.T, dir string) *index.Catalog {
	t.Helper()
	cat, _ := demoreg.ReadCatalog(t, dir)
	return cat
}

func names(es []index.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.String())
	}
	slices.Sort(out)
	return out
}

// TestSyncDemo checks the first sync of the demo registry (the demo
// policy from the fixture upstream, testkit/demoreg): platform builds,
// the pre-release and the engine-incompatible version skipped, the pack
// and the dependency closed over, the glob found in the sitemap.
func TestSyncDemo(t *testing.T) {
	demo := demoreg.Get(t)
	rep := demo.Reports[0]
	want := []string{
		"airvsx-demo.demo-pack@1.0.0",
		"airvsx-demo.git-helper@0.3.0",
		"airvsx-demo.hello-command@1.0.0",
		"airvsx-demo.hello-command@1.0.0@linux-x64",
		"airvsx-demo.night-theme@2.1.0",
		"airvsx-demo.uses-git@1.0.0",
		"other-pub.unsigned-tool@0.1.0",
	}
	cat := catalogOf(t, demo.Dir1)
	if diff := cmp.Diff(want, names(cat.Entries)); diff != "" {
		t.Errorf("catalog entries (-want +got):\n%s", diff)
	}
	skipped := map[string]string{}
	for _, s := range rep.Plan.Skipped {
		skipped[(&mirror.Item{ID: s.ID, Version: s.Version, Platform: s.Platform}).String()] = s.Reason
	}
	for name, reason := range map[string]string{
		"airvsx-demo.hello-command@2.0.0":              "engines.vscode",
		"airvsx-demo.hello-command@1.1.0":              "pre-release",
		"airvsx-demo.hello-command@0.9.0":              "no download",
		"airvsx-demo.hello-command@1.0.0@darwin-arm64": "platform",
	} {
		if !strings.Contains(skipped[name], reason) {
			t.Errorf("skip reason of %s = %q; want it to mention %q", name, skipped[name], reason)
		}
	}
	if cat.Serial != 1 || cat.Previous != "" || cat.Upstream != demo.Upstream || cat.PolicyDigest != demoreg.Policy(t).Digest() {
		t.Errorf("catalog header = serial %d, previous %q, upstream %q, policy %q", cat.Serial, cat.Previous, cat.Upstream, cat.PolicyDigest)
	}
	for _, en := range cat.Entries {
		signed := en.ID.Namespace != "other-pub"
		if en.Upstream.Signed != signed {
			t.Errorf("%s: upstream signed = %v; want %v", en.String(), en.Upstream.Signed, signed)
		}
		if signed && (en.Upstream.KeyID != openvsxtest.KeyID || len(cat.UpstreamKeys) != 1 || cat.UpstreamKeys[0].ID != openvsxtest.KeyID) {
			t.Errorf("%s: key %q; catalog keys %v; want the upstream key %q pinned", en.String(), en.Upstream.KeyID, cat.UpstreamKeys, openvsxtest.KeyID)
		}
		if en.Published.IsZero() || en.DisplayName == "" {
			t.Errorf("%s: published %v, display name %q", en.String(), en.Published, en.DisplayName)
		}
	}
	if git := cat.Find(index.MustParseID("airvsx-demo.git-helper"), "0.3.0", index.Universal); git == nil || !git.DeclaredCapabilities.Has(index.Spawn) || len(git.DetectedCapabilities) == 0 {
		t.Errorf("git-helper entry = %+v; want spawn declared and detected", git)
	}
	if len(rep.Egress) == 0 {
		t.Error("the report has no egress log")
	}
	for _, r := range rep.Egress {
		if !strings.HasPrefix(r.URL, demo.Upstream) {
			t.Errorf("request to %s: outside the upstream %s", r.URL, demo.Upstream)
		}
	}
}

// TestSyncTwiceDownloadsNothing: the demo registry's second sync of the
// same policy fetched no file, kept every entry and chained the new
// catalog to the old.
func TestSyncTwiceDownloadsNothing(t *testing.T) {
	demo := demoreg.Get(t)
	first, d := demoreg.ReadCatalog(t, demo.Dir1)
	rep := demo.Reports[1]
	if demo.Downloads[0] == 0 || demo.Downloads[1] != 0 {
		t.Errorf("the syncs made %d and %d file downloads; want some, then 0", demo.Downloads[0], demo.Downloads[1])
	}
	if len(rep.Plan.New) != 0 || len(rep.Plan.Unchanged) != len(first.Entries) {
		t.Errorf("second plan: %d new, %d unchanged; want 0 and %d", len(rep.Plan.New), len(rep.Plan.Unchanged), len(first.Entries))
	}
	second := catalogOf(t, demo.Dir)
	if second.Serial != 2 || second.Previous != d {
		t.Errorf("second catalog: serial %d previous %q; want 2 and %q", second.Serial, second.Previous, d)
	}
	if diff := cmp.Diff(names(first.Entries), names(second.Entries)); diff != "" {
		t.Errorf("entries changed:\n%s", diff)
	}
}

// TestSyncDryRunWritesNothing: --dry-run plans and writes nothing.
func TestSyncDryRunWritesNothing(t *testing.T) {
	e := newEnv(t, openvsxtest.Options{})
	rep := e.sync(t, demoreg.Policy(t), true)
	if len(rep.Plan.New) != 7 {
		t.Errorf("dry run plans %d new; want 7", len(rep.Plan.New))
	}
	if n := e.srv.Count("/cdn/"); n != 0 {
		t.Errorf("dry run downloaded %d files", n)
	}
	var files []string
	filepath.WalkDir(e.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(p) != artifact.MarkerFile {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != 0 {
		t.Errorf("dry run wrote %v", files)
	}
}

// TestSyncFaults: each injected fault is retried or quarantined with a
// named reason, and never stored as valid.
func TestSyncFaults(t *testing.T) {
	pol := `version: 1
editor: 1.95.0
extensions:
  - id: airvsx-demo.night-theme
`
	tests := []struct {
		name        string
		pattern     string
		fault       openvsxtest.Fault
		times       int
		quarantined string // reason substring; "" means retried and stored
	}{
		{"429 then ok", "/api/airvsx-demo/night-theme", openvsxtest.TooManyRequests, 2, ""},
		{"503 then ok", "/cdn/", openvsxtest.Unavailable, 2, ""},
		{"reset then ok", "/cdn/", openvsxtest.Reset, 2, ""},
		{"truncated then ok", "/cdn/", openvsxtest.Truncated, 1, ""},
		{"slow", "/cdn/", openvsxtest.Slow, 1, ""},
		// The package itself (the .sha256 and the signature come first):
		// an attempt that breaks midway is hashed, then started over.
		{"package truncated midway twice", vsixPattern, openvsxtest.Truncated, 2, ""},
		{"package reset", vsixPattern, openvsxtest.Reset, 2, ""},
		{"package 503", vsixPattern, openvsxtest.Unavailable, 1, ""},
		{"wrong sha256", "*.sha256", openvsxtest.WrongSHA256, openvsxtest.Always, "sha256 mismatch"},
		{"bad signature", "*.sigzip", openvsxtest.BadSignature, openvsxtest.Always, "upstream signature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, openvsxtest.Options{SlowDelay: 50 * time.Millisecond})
			e.srv.Fault(tt.pattern, tt.fault, tt.times)
			rep := e.sync(t, demoreg.ParsePolicy(t, pol), false)
			cat := e.catalog(t)
			if tt.quarantined == "" {
				if rep.Failed() || len(cat.Entries) != 1 {
					t.Fatalf("sync: failed=%v quarantined=%v entries=%v; want the fault retried and the entry stored", rep.Failed(), rep.Quarantined, names(cat.Entries))
				}
				checkStoredVSIX(t, e.dir, cat.Entries[0], "airvsx-demo.night-theme-2.1.0.vsix")
				return
			}
			if !rep.Failed() || len(rep.Quarantined) != 1 || !strings.Contains(rep.Quarantined[0].Reason, tt.quarantined) {
				t.Fatalf("quarantined = %+v; want one with reason containing %q", rep.Quarantined, tt.quarantined)
			}
			if len(cat.Entries) != 0 {
				t.Errorf("catalog has %v; a rejected download must not be stored as valid", names(cat.Entries))
			}
			q := filepath.Join(e.dir, filepath.FromSlash(rep.Quarantined[0].Path))
			reason, err := os.ReadFile(filepath.Join(q, store.ReasonFile))
			if err != nil || !bytes.Contains(reason, []byte(tt.quarantined)) {
				t.Errorf("quarantine REASON = %q, %v", reason, err)
			}
			if _, err := os.Stat(filepath.Join(q, "airvsx-demo.night-theme-2.1.0.vsix")); err != nil {
				t.Errorf("quarantine lacks the vsix: %v", err)
			}
		})
	}
}

// TestSyncRetriedWrongSHA256: a package whose download broke midway and
// was retried is still held to upstream's .sha256: a wrong one quarantines
// it, with the bytes of the whole package.
func TestSyncRetriedWrongSHA256(t *testing.T) {
	e := newEnv(t, openvsxtest.Options{})
	e.srv.Fault(vsixPattern, openvsxtest.Truncated, 1)
	e.srv.Fault("*.sha256", openvsxtest.WrongSHA256, openvsxtest.Always)
	rep := e.sync(t, demoreg.ParsePolicy(t, "version: 1\nextensions:\n  - id: airvsx-demo.night-theme\n"), false)
	if len(rep.Quarantined) != 1 || !strings.Contains(rep.Quarantined[0].Reason, "sha256 mismatch") {
		t.Fatalf("quarantined = %+v; want the package, for its sha256", rep.Quarantined)
	}
	const name = "airvsx-demo.night-theme-2.1.0.vsix"
	want := openvsxtest.ReadFixture(t, name)
	sum := index.SHA256Hex(want)
	if !strings.Contains(rep.Quarantined[0].Reason, sum) {
		t.Errorf("reason %q; want it to give the package's real sha256 %s", rep.Quarantined[0].Reason, sum)
	}
	got, err := os.ReadFile(filepath.Join(e.dir, filepath.FromSlash(rep.Quarantined[0].Path), name))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("quarantined vsix: %d bytes, %v; want the whole package (%d bytes)", len(got), err, len(want))
	}
	if n := e.srv.Count("/cdn/airvsx-demo/night-theme/2.1.0/" + name); n != 2 {
		t.Errorf("%d package downloads; want 2 (one truncated, one retry)", n)
	}
}

// vsixPattern matches the fixture server's package downloads only.
const vsixPattern = "/cdn/*/*/*/*.vsix"

// checkStoredVSIX checks that the entry and the blob in the registry at
// dir are the fixture package name, byte for byte.
func checkStoredVSIX(t *testing.T, dir string, en index.Entry, name string) {
	t.Helper()
	want := openvsxtest.ReadFixture(t, name)
	sum := index.SHA256Hex(want)
	if en.VsixSHA256 != sum || en.VsixSize != int64(len(want)) {
		t.Errorf("entry sha256 %s size %d; want the fixture's %s and %d", en.VsixSHA256, en.VsixSize, sum, len(want))
	}
	st := storetest.OpenDir(t, dir, dirstore.Options{ReadOnly: true})
	defer st.Close()
	r, err := st.OpenBlob(t.Context(), artifact.Repo(en.ID), "sha256:"+en.VsixSHA256, en.VsixSize)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("stored vsix: %d bytes, %v; want the fixture's %d", len(got), err, len(want))
	}
}

// TestSyncRequiresSignature: a policy that requires upstream signatures
// leaves the unsigned extension out.
func TestSyncRequiresSignature(t *testing.T) {
	e := newEnv(t, openvsxtest.Options{})
	rep := e.sync(t, demoreg.ParsePolicy(t, `version: 1
extensions:
  - id: other-pub.unsigned-tool
requireUpstreamSignature: true
`), false)
	if len(rep.Plan.New) != 0 || len(rep.Plan.Skipped) == 0 || !strings.Contains(rep.Plan.Skipped[0].Reason, "sign") {
		t.Errorf("plan = new %v skipped %+v; want the unsigned version skipped for its signature", rep.Plan.New, rep.Plan.Skipped)
	}
}

// TestSyncMissingDependency: a dependency the registry cannot have (here:
// excluded by the policy) fails the run when the policy asks for
// dependencies.
func TestSyncMissingDependency(t *testing.T) {
	e := newEnv(t, openvsxtest.Options{})
	rep := e.sync(t, demoreg.ParsePolicy(t, `version: 1
extensions:
  - id: airvsx-demo.uses-git
exclude: [airvsx-demo.git-helper]
dependencies: true
`), false)
	if !rep.Failed() || len(rep.Plan.Missing) != 1 || !rep.Plan.Missing[0].Fatal || rep.Plan.Missing[0].ID.Key() != "airvsx-demo.git-helper" {
		t.Fatalf("missing = %+v; want git-helper missing and fatal", rep.Plan.Missing)
	}
}

// TestSyncIdenticalTrees: syncing the same upstream into two empty
// registries gives byte-identical extension trees (metadata differs only
// by ECDSA's random signatures).
func TestSyncIdenticalTrees(t *testing.T) {
	a := newEnv(t, openvsxtest.Options{})
	a.sync(t, demoreg.Policy(t), false)
	b := *a
	b.dir = filepath.Join(t.TempDir(), "registry")
	b.sync(t, demoreg.Policy(t), false)
	ta, tb := filetest.Files(t, filepath.Join(a.dir, "extensions")), filetest.Files(t, filepath.Join(b.dir, "extensions"))
	if len(ta) == 0 {
		t.Fatal("no extension files")
	}
	if diff := cmp.Diff(ta, tb); diff != "" {
		t.Errorf("trees differ (-a +b):\n%s", diff)
	}
}

// failingMetadata is a store whose metadata writes fail: a sync that
// stored every entry but died before signing its catalog.
type failingMetadata struct{ store.Store }

func (failingMetadata) WriteMetadata(context.Context, string, []byte) error {
	return errors.New("killed before the catalog was signed")
}

// TestSyncResumes: a sync that stored its entries but never signed a
// catalog leaves none; the next run signs one without downloading any
// package again (it re-verifies what the store holds).
func TestSyncResumes(t *testing.T) {
	e := newEnv(t, openvsxtest.Options{})
	st := storetest.OpenDir(t, e.dir, dirstore.Options{Create: true})
	_, err := mirror.Sync(t.Context(), mirror.Options{
		Client: e.client, Policy: demoreg.Policy(t), Store: failingMetadata{st}, Signer: e.signer,
		Now: func() time.Time { return demoreg.SyncNow1 }, TempDir: t.TempDir(),
	})
	st.Close()
	if err == nil || !strings.Contains(err.Error(), "killed before") {
		t.Fatalf("first Sync = %v; want the metadata failure", err)
	}
	downloads := func() int {
		n := 0
		for _, r := range e.srv.Requests() {
			if strings.HasPrefix(r.Path, "/cdn/") && strings.HasSuffix(r.Path, ".vsix") {
				n++
			}
		}
		return n
	}
	before := downloads()
	if before != 7 {
		t.Fatalf("first run downloaded %d packages; want 7", before)
	}
	rep := e.sync(t, demoreg.Policy(t), false)
	if rep.Failed() || len(rep.Stored) != 7 {
		t.Fatalf("resumed sync: stored %v, quarantined %v", rep.Stored, rep.Quarantined)
	}
	if got := downloads() - before; got != 0 {
		t.Errorf("the resumed sync downloaded %d packages again; want 0", got)
	}
	if cat := e.catalog(t); len(cat.Entries) != 7 || cat.Serial != 1 {
		t.Errorf("catalog after resume: serial %d, %d entries", cat.Serial, len(cat.Entries))
	}
}

// TestSyncPlansBeforeDownloads: the plan is made, and passed to OnPlan,
// before any package is requested, so that a long sync says at once what
// it is about to do; planner and downloads together never have more than
// Concurrency requests in flight.
func TestSyncPlansBeforeDownloads(t *testing.T) {
	for _, conc := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("concurrency %d", conc), func(t *testing.T) {
			e := newEnv(t, openvsxtest.Options{Latency: 15 * time.Millisecond})
			st := storetest.OpenDir(t, e.dir, dirstore.Options{Create: true})
			defer st.Close()
			var (
				plans        int
				atPlan       []openvsxtest.RequestLog
				plannedItems int
			)
			rep, err := mirror.Sync(t.Context(), mirror.Options{
				Client: e.client, Policy: demoreg.Policy(t), Store: st, Signer: e.signer, Concurrency: conc,
				Now: func() time.Time { return demoreg.SyncNow1 },
				OnPlan: func(p *mirror.Plan) {
					plans++
					atPlan = e.srv.Requests()
					plannedItems = len(p.New)
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Stored) != 7 {
				t.Fatalf("stored %v; want the demo's 7", rep.Stored)
			}
			if plans != 1 || plannedItems != 7 {
				t.Errorf("OnPlan called %d times with %d new items; want once with 7", plans, plannedItems)
			}
			for _, r := range atPlan {
				if strings.HasPrefix(r.Path, "/cdn/") || strings.Contains(r.Path, "/file/") {
					t.Errorf("%s was requested before the plan was shown; want no file before it", r.Path)
				}
			}
			if peak := e.srv.PeakInFlight(); peak > conc || conc > 1 && peak < 2 {
				t.Errorf("at most %d requests in flight at once; want %d (and more than one when allowed)", peak, conc)
			}
			// Every planning request (the dependencies are planned in a
			// second wave) comes before the first package request.
			firstVsix, lastPlan := -1, -1
			for i, r := range rep.Egress {
				switch {
				case strings.Contains(r.URL, "/api/") && !strings.Contains(r.URL, "/file/") && !strings.Contains(r.URL, "/public-key/"):
					lastPlan = i
				case firstVsix < 0 && strings.HasSuffix(r.URL, ".vsix"):
					firstVsix = i
				}
			}
			if firstVsix < 0 || lastPlan < 0 || firstVsix < lastPlan {
				t.Errorf("first package request #%d, last planning request #%d: want every download after the planning", firstVsix, lastPlan)
			}
		})
	}
}

// TestSyncUnstorableQuarantined: a package no registry could hold (a
// Windows device name, a tag longer than 128 characters) is quarantined
// with the reason before it is downloaded, and the rest of the sync
// completes.
func TestSyncUnstorableQuarantined(t *testing.T) {
	longVersion := "1.0.0+" + strings.Repeat("b", 130)
	dir := t.TempDir()
	for _, f := range []struct{ name, version string }{{"con", "1.0.0"}, {"longver", longVersion}, {"fine", "1.0.0"}} {
		data, err := benchVSIX(f.name, f.version, 2048, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, benchNamespace+"."+f.name+"-"+f.version+".vsix"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := openvsxtest.New(t, openvsxtest.Options{Fixtures: dir})
	e := &env{srv: srv, client: demoreg.Client(t, srv), dir: filepath.Join(t.TempDir(), "registry")}
	e.signer, _ = demoreg.Signer(t, t.TempDir(), "signer")
	rep := e.sync(t, demoreg.ParsePolicy(t, "version: 1\nextensions:\n  - id: bench-pub.con\n  - id: bench-pub.longver\n  - id: bench-pub.fine\n"), false)

	if diff := cmp.Diff([]string{"bench-pub.fine@1.0.0"}, rep.Stored); diff != "" {
		t.Errorf("stored (-want +got):\n%s", diff)
	}
	want := map[string]string{
		"bench-pub.con@1.0.0":              "Windows reserved device name",
		"bench-pub.longver@" + longVersion: "tag",
	}
	for _, q := range rep.Quarantined {
		w, ok := want[q.Item]
		if !ok || !strings.Contains(q.Reason, "cannot be stored in a registry") || !strings.Contains(q.Reason, w) {
			t.Errorf("quarantined %s: %q; want a reason about %q", q.Item, q.Reason, w)
		}
		if _, err := os.Stat(filepath.Join(e.dir, filepath.FromSlash(q.Path), "REASON")); err != nil {
			t.Errorf("quarantined %s at %s: %v", q.Item, q.Path, err)
		}
		delete(want, q.Item)
	}
	if len(want) != 0 {
		t.Errorf("not quarantined: %v", want)
	}
	if !rep.Failed() || rep.Catalog == nil || rep.Catalog.Entries != 1 {
		t.Errorf("report failed=%v catalog=%+v; want a failed run that still signed a catalog of 1", rep.Failed(), rep.Catalog)
	}
	if n := srv.Count("/cdn/"); n != 3 {
		t.Errorf("%d file downloads; want 3 (fine's sha256, signature and package only)", n)
	}
}

// TestSyncUndeclaredDependency: a package that declares a dependency its
// upstream metadata omits is refused with the reason, so sync never
// writes a registry whose closure its own verify rejects.
func TestSyncUndeclaredDependency(t *testing.T) {
	fx, err := openvsxtest.LoadFixtures(openvsxtest.DefaultDir())
	if err != nil {
		t.Fatal(err)
	}
	for i := range fx {
		if fx[i].ID() == "airvsx-demo.uses-git" {
			fx[i].Dependencies = nil // upstream's metadata omits git-helper
		}
	}
	h, err := openvsxtest.NewHandler(fx, openvsxtest.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	c, err := openvsx.NewClient(openvsx.ClientOptions{BaseURL: srv.URL, Rate: 1000, Burst: 100})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{client: c, dir: filepath.Join(t.TempDir(), "registry")}
	e.signer, _ = demoreg.Signer(t, t.TempDir(), "signer")
	rep := e.sync(t, demoreg.ParsePolicy(t, "version: 1\nextensions:\n  - id: airvsx-demo.uses-git\ndependencies: true\n"), false)
	if len(rep.Stored) != 0 || len(rep.Quarantined) != 1 {
		t.Fatalf("stored %v, quarantined %+v; want uses-git quarantined and nothing stored", rep.Stored, rep.Quarantined)
	}
	if q := rep.Quarantined[0]; q.Item != "airvsx-demo.uses-git@1.0.0" || !strings.Contains(q.Reason, "extensionDependencies airvsx-demo.git-helper") || !strings.Contains(q.Reason, "upstream's metadata does not list") {
		t.Errorf("quarantined %+v; want uses-git refused for its undeclared dependency on git-helper", q)
	}
}

// slowKey is a signer whose key becomes known to be unusable (a wrong
// password, as trust.PendingSigner reports it) only when fail is closed:
// a decryption that takes as long as the test wants.
type slowKey struct {
	fail chan struct{}
}

var errSlowKey = fmt.Errorf("k.key: decrypt ENCRYPTED SIGSTORE PRIVATE KEY: %w", trust.ErrPassword)

func (k *slowKey) Wait(ctx context.Context) (signature.SignerVerifier, error) {
	select {
	case <-k.fail:
		return nil, errSlowKey
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

func (k *slowKey) PublicKey(...signature.PublicKeyOption) (crypto.PublicKey, error) {
	_, err := k.Wait(context.Background())
	return nil, err
}

func (k *slowKey) SignMessage(io.Reader, ...signature.SignOption) ([]byte, error) {
	_, err := k.Wait(context.Background())
	return nil, err
}

// TestSyncWaitsForKey: with a signer whose key is still being decrypted
// (trust.PendingSigner), Sync plans but downloads and stores nothing
// before the key is ready, and a wrong password stops it with that
// error. The key here fails only once the planner has found all of the
// demo's 7 items, long after the first could have been downloaded: a
// sync that did not wait would have fetched them.
func TestSyncWaitsForKey(t *testing.T) {
	e := newEnv(t, openvsxtest.Options{})
	st := storetest.OpenDir(t, e.dir, dirstore.Options{Create: true})
	defer st.Close()
	key := &slowKey{fail: make(chan struct{})}
	var once sync.Once
	rep, err := mirror.Sync(t.Context(), mirror.Options{
		Client: e.client, Policy: demoreg.Policy(t), Store: st, Signer: key,
		Now: func() time.Time { return demoreg.SyncNow1 }, TempDir: t.TempDir(),
		Progress: func(p mirror.Progress) {
			if p.Planned == 7 {
				once.Do(func() { close(key.fail) })
			}
		},
	})
	if !errors.Is(err, trust.ErrPassword) {
		t.Fatalf("Sync with a wrong password = %v, %v; want an error wrapping trust.ErrPassword", rep, err)
	}
	var fetched []string
	for _, r := range e.srv.Requests() {
		if strings.Contains(r.Path, "/file/") || strings.HasPrefix(r.Path, "/cdn/") {
			fetched = append(fetched, r.Path)
		}
	}
	if len(fetched) > 0 {
		t.Errorf("Sync with a wrong password requested %d files; want none:\n%s", len(fetched), strings.Join(fetched, "\n"))
	}
	var written []string
	err = filepath.WalkDir(e.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.Contains(p, string(filepath.Separator)+"blobs"+string(filepath.Separator)) || strings.Contains(p, "quarantine"+string(filepath.Separator))) {
			written = append(written, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(written) > 0 {
		t.Errorf("Sync with a wrong password wrote %s; want no package in the registry", strings.Join(written, ", "))
	}
}
