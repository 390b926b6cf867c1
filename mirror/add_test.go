package mirror_test

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/index/vsix/vsixtest"
	"github.com/airvsx/airvsx/mirror"
	"github.com/airvsx/airvsx/policies"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
)

// addNow is when the tests' adds happen: after the demo registry's syncs,
// before it is verified.
var addNow = demoreg.SyncNow1.Add(90 * time.Minute)

// extFiles are the files of a small valid extension pub.name at version;
// more is added to its package.json (`, "extensionDependencies": [...]`).
func extFiles(pub, name, version, more string) map[string]string {
	return map[string]string{
		"extension.vsixmanifest": vsixtest.VSIXManifest(pub, name, version),
		"extension/package.json": fmt.Sprintf(`{"name": %q, "displayName": "In-house %[1]s", "publisher": %q, "version": %q, "engines": {"vscode": "^1.80.0"}%s}`,
			name, pub, version, more),
		"extension/extension.js": "exports.activate = () => {};\n",
	}
}

// writeVsix writes the archive build makes as dir/name and returns its
// path.
func writeVsix(t *testing.T, dir, name string, build func(w io.Writer) error) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := vsixtest.Write(p, build); err != nil {
		t.Fatal(err)
	}
	return p
}

func addTo(t *testing.T, dir string, signer signature.Signer, pol *policies.Policy, max int64, files ...string) (*mirror.AddReport, error) {
	t.Helper()
	st := storetest.OpenDir(t, dir, dirstore.Options{Create: true})
	defer st.Close()
	return mirror.Add(t.Context(), mirror.AddOptions{
		Files: files, Store: st, Signer: signer, Policy: pol, MaxVsixBytes: max,
		TempDir: t.TempDir(), Now: func() time.Time { return addNow },
	})
}

// TestAdd adds each file to a copy of the demo registry (7 entries, none
// local), and checks what was added or refused, with which rule, and that
// a refusal writes no catalog.
func TestAdd(t *testing.T) {
	src := t.TempDir()
	good := writeVsix(t, src, "good.vsix", vsixtest.Minimal(extFiles("in-house", "tool", "1.0.0", "")))
	// The demo registry has airvsx-demo.night-theme@2.1.0 with other bytes.
	conflict := writeVsix(t, src, "conflict.vsix", vsixtest.Minimal(extFiles("airvsx-demo", "night-theme", "2.1.0", "")))
	withDep := writeVsix(t, src, "with-dep.vsix", vsixtest.Minimal(extFiles("in-house", "uses-tool", "1.0.0", `, "extensionDependencies": ["in-house.tool"]`)))
	missingDep := writeVsix(t, src, "missing-dep.vsix", vsixtest.Minimal(extFiles("in-house", "lonely", "1.0.0", `, "extensionDependencies": ["nobody.nothing"]`)))
	depOnRegistry := writeVsix(t, src, "dep-on-registry.vsix", vsixtest.Minimal(extFiles("in-house", "themed", "1.0.0", `, "extensionDependencies": ["airvsx-demo.night-theme"]`)))
	mismatch := writeVsix(t, src, "mismatch.vsix", vsixtest.ManifestMismatch())
	device := writeVsix(t, src, "device.vsix", vsixtest.Named("in-house", "con", "1.0.0"))
	notZip := filepath.Join(src, "not-a-zip.vsix")
	filetest.WriteFile(t, notZip, []byte("this is not a zip archive\n"))
	var slip string
	for _, c := range vsixtest.Hostile() {
		if c.Name == "traversal" {
			slip = writeVsix(t, src, "zip-slip.vsix", c.Build)
		}
	}
	if slip == "" {
		t.Fatal("vsixtest has no traversal case; fix the test")
	}
	excludes, err := policies.Parse("excludes.yaml", []byte("version: 1\nextensions:\n  - id: in-house.*\nexclude: [in-house.tool]\n"))
	if err != nil {
		t.Fatal(err)
	}
	allows, err := policies.Parse("allows.yaml", []byte("version: 1\nextensions:\n  - id: in-house.*\n"))
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name      string
		files     []string
		pol       *policies.Policy
		max       int64
		added     []string
		unchanged int
		refused   map[string]string // file → rule
		nRefused  int               // refusals, when a file is given twice; 0: len(refused)
		reason    string            // in the first refusal's reason
	}{
		{name: "good", files: []string{good}, added: []string{"in-house.tool@1.0.0"}},
		{name: "good, allowed by the policy", files: []string{good}, pol: allows, added: []string{"in-house.tool@1.0.0"}},
		{name: "the same file twice", files: []string{good, good}, added: []string{"in-house.tool@1.0.0"}},
		{name: "with its dependency", files: []string{withDep, good}, added: []string{"in-house.uses-tool@1.0.0", "in-house.tool@1.0.0"}},
		{name: "dependency in the registry", files: []string{depOnRegistry}, added: []string{"in-house.themed@1.0.0"}},
		{name: "zip slip", files: []string{slip}, refused: map[string]string{slip: mirror.AddRuleUnsafe}, reason: "unsafe package"},
		{name: "not a zip", files: []string{notZip}, refused: map[string]string{notZip: mirror.AddRuleUnsafe}},
		{name: "identity mismatch", files: []string{mismatch}, refused: map[string]string{mismatch: mirror.AddRulePackage}, reason: "1.0.1"},
		{name: "a name no registry can hold", files: []string{device}, refused: map[string]string{device: mirror.AddRulePackage}, reason: "unstorable-name"},
		{name: "oversized", files: []string{good}, max: 100, refused: map[string]string{good: mirror.AddRuleUnreadable}, reason: "too large"},
		{name: "other bytes than the registry's", files: []string{conflict}, refused: map[string]string{conflict: mirror.AddRuleConflict}, reason: "airvsx-demo.night-theme@2.1.0 with other bytes (sha256:"},
		{name: "policy refusal", files: []string{good}, pol: excludes, refused: map[string]string{good: mirror.AddRulePolicy}, reason: "excluded by in-house.tool"},
		{name: "dependency missing", files: []string{missingDep}, refused: map[string]string{missingDep: mirror.AddRuleDependency}, reason: "nobody.nothing"},
		{name: "refused twice", files: []string{missingDep, missingDep}, refused: map[string]string{missingDep: mirror.AddRuleDependency}, nRefused: 2},
		{name: "dependency refused with it", files: []string{withDep, slip}, refused: map[string]string{withDep: mirror.AddRuleDependency, slip: mirror.AddRuleUnsafe}},
		{name: "one good, one hostile", files: []string{slip, good}, added: []string{"in-house.tool@1.0.0"}, refused: map[string]string{slip: mirror.AddRuleUnsafe}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, signer := demoCopy(t)
			before, beforeDigest := demoreg.ReadCatalog(t, dir)
			rep, err := addTo(t, dir, signer, tt.pol, tt.max, tt.files...)
			if err != nil {
				t.Fatalf("Add: %v", err)
			}
			var added []string
			for _, a := range rep.Added {
				added = append(added, a.Entry)
			}
			if fmt.Sprint(added) != fmt.Sprint(tt.added) || len(rep.Unchanged) != tt.unchanged {
				t.Errorf("added %v, unchanged %v; want %v, %d unchanged", added, rep.Unchanged, tt.added, tt.unchanged)
			}
			got := map[string]string{}
			for _, r := range rep.Refused {
				got[r.File] = r.Rule
				if r.Quarantine == "" || r.Reason == "" {
					t.Errorf("refusal %+v: want a reason and a quarantine", r)
				}
				if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(r.Quarantine), "REASON")); err != nil {
					t.Errorf("refused %s: %v", r.File, err)
				}
			}
			if n := cmp.Or(tt.nRefused, len(tt.refused)); len(rep.Refused) != n {
				t.Errorf("%d refusals; want %d", len(rep.Refused), n)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.refused) && len(got)+len(tt.refused) > 0 {
				t.Errorf("refused %v; want %v", got, tt.refused)
			}
			if tt.reason != "" && (len(rep.Refused) == 0 || !strings.Contains(rep.Refused[0].Reason, tt.reason)) {
				t.Errorf("refusals %+v; want the first's reason to contain %q", rep.Refused, tt.reason)
			}
			if rep.Failed() != (len(tt.refused) > 0) {
				t.Errorf("Failed() = %v with %d refused", rep.Failed(), len(rep.Refused))
			}
			after, afterDigest := demoreg.ReadCatalog(t, dir)
			if len(tt.added) == 0 {
				if afterDigest != beforeDigest || !rep.Catalog.Unchanged {
					t.Fatalf("nothing added, but the catalog went from %s to %s (report %+v)", beforeDigest, afterDigest, rep.Catalog)
				}
				return
			}
			if after.Serial != before.Serial+1 || after.Previous != beforeDigest || len(after.Entries) != len(before.Entries)+len(tt.added) {
				t.Fatalf("catalog serial %d, previous %s, %d entries; want serial %d chained to %s with %d entries",
					after.Serial, after.Previous, len(after.Entries), before.Serial+1, beforeDigest, len(before.Entries)+len(tt.added))
			}
			if after.Upstream != before.Upstream || after.PolicyDigest != before.PolicyDigest {
				t.Errorf("catalog upstream %q policy %s; want the previous %q, %s", after.Upstream, after.PolicyDigest, before.Upstream, before.PolicyDigest)
			}
			keyID := keyIDOf(t, signer)
			for _, a := range rep.Added {
				e := findEntry(after, a.Entry)
				if e == nil {
					t.Fatalf("%s is not in the new catalog", a.Entry)
				}
				if e.Local == nil || e.Local.AddedBy != keyID || !e.Local.AddedAt.Equal(addNow) || e.Upstream.Signed {
					t.Errorf("%s: local %+v, upstream %+v; want added by %s at %s, unsigned", a.Entry, e.Local, e.Upstream, keyID, addNow)
				}
				if e.VsixSHA256 != a.SHA256 || e.DisplayName == "" {
					t.Errorf("%s: vsix %s, display name %q; want %s and the package's display name", a.Entry, e.VsixSHA256, e.DisplayName, a.SHA256)
				}
			}
			for _, e := range before.Entries {
				if after.Find(e.ID, e.Version, e.Platform) == nil {
					t.Errorf("%s left the catalog", e.String())
				}
			}
		})
	}
}

// TestAddAgain: adding what the registry has, byte for byte, changes
// nothing; the file with other bytes under the same identity is refused
// naming both digests.
func TestAddAgain(t *testing.T) {
	dir, signer := demoCopy(t)
	src := t.TempDir()
	v1 := writeVsix(t, src, "tool.vsix", vsixtest.Minimal(extFiles("in-house", "tool", "1.0.0", "")))
	if _, err := addTo(t, dir, signer, nil, 0, v1); err != nil {
		t.Fatal(err)
	}
	_, digest := demoreg.ReadCatalog(t, dir)
	meta := filetest.Files(t, filepath.Join(dir, "metadata"))

	rep, err := addTo(t, dir, signer, nil, 0, v1)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Added) != 0 || len(rep.Unchanged) != 1 || rep.Failed() || !rep.Catalog.Unchanged || rep.Catalog.Digest != digest {
		t.Errorf("added again: %+v; want it unchanged and the catalog %s as it was", rep, digest)
	}
	if got := filetest.Files(t, filepath.Join(dir, "metadata")); fmt.Sprint(got) != fmt.Sprint(meta) {
		t.Error("adding the same bytes again changed metadata/")
	}

	other := writeVsix(t, src, "tool-rebuilt.vsix", vsixtest.Minimal(extFiles("in-house", "tool", "1.0.0", `, "description": "rebuilt"`)))
	rep, err = addTo(t, dir, signer, nil, 0, other)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Refused) != 1 || rep.Refused[0].Rule != mirror.AddRuleConflict ||
		!strings.Contains(rep.Refused[0].Reason, sha256Hex(t, v1)) || !strings.Contains(rep.Refused[0].Reason, sha256Hex(t, other)) {
		t.Errorf("refused %+v; want %s naming both digests", rep.Refused, mirror.AddRuleConflict)
	}
}

// TestAddUnreadable: a file that is not there, or not a regular file,
// stops Add before anything is written.
func TestAddUnreadable(t *testing.T) {
	dir, signer := demoCopy(t)
	_, digest := demoreg.ReadCatalog(t, dir)
	src := t.TempDir()
	good := writeVsix(t, src, "good.vsix", vsixtest.Minimal(extFiles("in-house", "tool", "1.0.0", "")))
	for _, name := range []string{filepath.Join(src, "missing.vsix"), src} {
		_, err := addTo(t, dir, signer, nil, 0, good, name)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("Add(%s) = %v; want an error naming it", name, err)
		}
	}
	if _, d := demoreg.ReadCatalog(t, dir); d != digest {
		t.Errorf("catalog went from %s to %s", digest, d)
	}
}

// TestSyncKeepsLocal: a sync after an add keeps the local entry, as
// neither unchanged nor leaving, with --prune too.
func TestSyncKeepsLocal(t *testing.T) {
	e := newEnv(t, openvsxtest.Options{})
	e.sync(t, demoreg.Policy(t), false)
	src := t.TempDir()
	good := writeVsix(t, src, "good.vsix", vsixtest.Minimal(extFiles("in-house", "tool", "1.0.0", "")))
	if _, err := addTo(t, e.dir, e.signer, nil, 0, good); err != nil {
		t.Fatal(err)
	}
	tool := index.MustParseID("in-house.tool")
	for _, prune := range []bool{false, true} {
		st := storetest.OpenDir(t, e.dir, dirstore.Options{})
		rep, err := mirror.Sync(t.Context(), mirror.Options{
			Client: e.client, Policy: demoreg.Policy(t), Store: st, Signer: e.signer, Prune: prune, Renew: true,
			Now: func() time.Time { return demoreg.SyncNow2 }, TempDir: t.TempDir(),
		})
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Plan.Local) != 1 || len(rep.Plan.Leaving) != 0 {
			t.Errorf("prune %v: plan local %v, leaving %v; want in-house.tool local, nothing leaving", prune, rep.Plan.Local, rep.Plan.Leaving)
		}
		cat := e.catalog(t)
		if got := cat.Find(tool, "1.0.0", index.Universal); got == nil || got.Local == nil {
			t.Errorf("prune %v: sync dropped the local entry (catalog serial %d)", prune, cat.Serial)
		}
	}
}

// demoCopy is a copy of the demo registry (catalog serial 2, 7 entries)
// and the key that signed it.
func demoCopy(t *testing.T) (string, signature.Signer) {
	t.Helper()
	r := demoreg.Get(t)
	dir := filepath.Join(t.TempDir(), "registry")
	filetest.CopyDir(t, r.Dir, dir)
	return dir, r.Signer
}

func findEntry(c *index.Catalog, name string) *index.Entry {
	for i := range c.Entries {
		if c.Entries[i].String() == name {
			return &c.Entries[i]
		}
	}
	return nil
}

func keyIDOf(t *testing.T, s signature.Signer) string {
	t.Helper()
	pub, err := s.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	id, err := trust.KeyID(pub)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func sha256Hex(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
