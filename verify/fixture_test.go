package verify_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/verify"
	"github.com/airvsx/airvsx/verify/verifytest"
)

func TestMain(m *testing.M) { demoreg.Main(m) }

// base returns the registry every test copies: the demo policy synced
// twice from the fixture upstream (testkit/demoreg).
func base(t *testing.T) *demoreg.Registry {
	t.Helper()
	return demoreg.Get(t)
}

// fresh returns a private copy of the fixture registry.
func fresh(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "registry")
	if err := os.CopyFS(dir, os.DirFS(base(t).Dir)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// check verifies dir with the pinned root at demoreg.VerifyNow; opts
// may change the options.
func check(t *testing.T, dir string, opts ...func(*verify.RegistryOptions)) *verify.Report {
	t.Helper()
	o := regOpts(t, dir)
	for _, f := range opts {
		f(&o)
	}
	rep, err := verify.Registry(t.Context(), o)
	if err != nil {
		t.Fatalf("Registry: %v", err)
	}
	return rep
}

// regOpts returns the options that verify the registry in dir (opened
// read-only for the test) with the pinned root at demoreg.VerifyNow.
func regOpts(t *testing.T, dir string) verify.RegistryOptions {
	t.Helper()
	st := storetest.OpenDir(t, dir, dirstore.Options{ReadOnly: true})
	t.Cleanup(func() { st.Close() })
	return verify.RegistryOptions{Store: st, Target: dir, Anchor: trust.Anchor{Root: base(t).Root}, Now: func() time.Time { return demoreg.VerifyNow }}
}

// find returns the entry named s ("ns.name@version[@platform]").
func find(t *testing.T, cat *index.Catalog, s string) *index.Entry {
	t.Helper()
	for i := range cat.Entries {
		if cat.Entries[i].String() == s {
			return &cat.Entries[i]
		}
	}
	t.Fatalf("no entry %s", s)
	return nil
}

// manifestOf returns the parsed manifest of an entry.
func manifestOf(t *testing.T, dir string, e *index.Entry) *artifact.Manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(artifact.BlobName(artifact.Repo(e.ID), e.ManifestDigest))))
	if err != nil {
		t.Fatal(err)
	}
	m, err := artifact.ParseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// blobFile returns the OS path of an entry's blob with the given role
// ("" for the manifest).
func blobFile(t *testing.T, dir, entry string, role artifact.Role) string {
	t.Helper()
	cat, _ := demoreg.ReadCatalog(t, dir)
	e := find(t, cat, entry)
	digest := e.ManifestDigest
	if role != "" {
		l, ok := manifestOf(t, dir, e).Layer(role)
		if !ok {
			t.Fatalf("%s has no %s layer", entry, role)
		}
		digest = l.Digest
	}
	return filepath.Join(dir, filepath.FromSlash(artifact.BlobName(artifact.Repo(e.ID), digest)))
}

// relBlob is blobFile relative to the registry, as reports name it.
func relBlob(t *testing.T, dir, entry string, role artifact.Role) string {
	rel, _ := filepath.Rel(dir, blobFile(t, dir, entry, role))
	return filepath.ToSlash(rel)
}

// resign changes the catalog (and, through the store, the blobs) and
// publishes it with the registry's own key, as a publisher would: serial
// + 1, chained to the current catalog.
func resign(t *testing.T, dir string, edit func(st *dirstore.Store, cat *index.Catalog)) {
	t.Helper()
	cat, digest := demoreg.ReadCatalog(t, dir)
	st := storetest.OpenDir(t, dir, dirstore.Options{})
	defer st.Close()
	edit(st, cat)
	cat.Serial++
	if cat.Previous != "bogus" {
		cat.Previous = digest
	} else {
		cat.Previous = index.DigestBytes([]byte("another catalog"))
	}
	if err := cat.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := trust.PublishCatalog(t.Context(), trust.Metadata(t.Context(), st), cat, base(t).Signer, trust.PublishOptions{Now: func() time.Time { return demoreg.SyncNow2.Add(time.Minute) }}); err != nil {
		t.Fatal(err)
	}
}

// replaceLayer stores data as the layer of role (nil drops the layer) of
// the entry, rebuilds the manifest and points the entry at it; fix may
// adjust the entry further.
func replaceLayer(t *testing.T, dir string, st *dirstore.Store, cat *index.Catalog, entry string, role artifact.Role, data []byte) *index.Entry {
	t.Helper()
	ctx := t.Context()
	e := find(t, cat, entry)
	m := manifestOf(t, dir, e)
	repo := artifact.Repo(e.ID)
	var layers []artifact.Layer
	for _, l := range m.Layers {
		if l.Role == role {
			if data == nil {
				continue
			}
			l.Digest, l.Size = index.DigestBytes(data), int64(len(data))
			if err := st.PutBlob(ctx, repo, l.Digest, l.Size, store.BytesContent(data)); err != nil {
				t.Fatal(err)
			}
		}
		layers = append(layers, l)
	}
	info := m.Info
	if role == artifact.RoleVsix {
		sum := index.SHA256Hex(data)
		info.UpstreamSHA256 = sum
		e.VsixSHA256, e.VsixSize = sum, int64(len(data))
	}
	raw, err := artifact.BuildManifest(info, layers)
	if err != nil {
		t.Fatal(err)
	}
	nm, err := artifact.PutArtifact(ctx, st, raw)
	if err != nil {
		t.Fatal(err)
	}
	e.ManifestDigest, e.ManifestSize = nm.Digest, nm.Size
	return e
}

// swapLayer gives entry the layer of role that entry from has, as a
// signer would (manifest rebuilt, catalog re-signed).
func swapLayer(t *testing.T, dir, entry, from string, role artifact.Role) {
	t.Helper()
	data := readBlob(t, dir, from, role)
	resign(t, dir, func(st *dirstore.Store, cat *index.Catalog) {
		replaceLayer(t, dir, st, cat, entry, role, data)
	})
}

// readBlob reads an entry's layer from the store.
func readBlob(t *testing.T, dir, entry string, role artifact.Role) []byte {
	b, err := os.ReadFile(blobFile(t, dir, entry, role))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// editJSON rewrites a JSON file through a generic map.
func editJSON(t *testing.T, file string, edit func(m map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// catalogFile returns the OS path of the current catalog target.
func catalogFile(t *testing.T, dir string) string {
	_, digest := demoreg.ReadCatalog(t, dir)
	return filepath.Join(dir, filepath.FromSlash(trust.CatalogPath(digest)))
}

func hasProblem(rep *verify.Report, w want) bool {
	for _, p := range rep.Errors() {
		if p.Rule == w.rule && strings.HasPrefix(p.File, w.path) && p.Entry == w.entry && p.Fix != "" && p.Message != "" {
			return true
		}
	}
	return false
}

// checkWants checks that rep has each of the errors wants names.
func checkWants(t *testing.T, rep *verify.Report, wants []want) {
	t.Helper()
	for _, w := range wants {
		if !hasProblem(rep, w) {
			t.Errorf("no error %s at %s for entry %q; got:\n%s", w.rule, w.path, w.entry, verifytest.ProblemList(rep))
		}
	}
}

func hasWarning(rep *verify.Report, w want) bool {
	for _, p := range rep.Warnings() {
		if p.Rule == w.rule && strings.HasPrefix(p.File, w.path) && p.Entry == w.entry {
			return true
		}
	}
	return false
}

func useKey(t *testing.T, o *verify.RegistryOptions, pubPath string) {
	t.Helper()
	v, err := trust.LoadVerifier(pubPath)
	if err != nil {
		t.Fatal(err)
	}
	o.Anchor = trust.Anchor{Key: v}
}

// publishWithOtherKey replaces the registry's metadata with a new TUF
// repository for the same catalog, signed by another key.
func publishWithOtherKey(t *testing.T, dir string) {
	t.Helper()
	publishOther(t, dir, func(*index.Catalog) {})
}

// publishOther replaces the registry's metadata with a catalog edit makes
// of the current one, signed by another key from a new root, as someone
// who holds the registry but not its key would.
func publishOther(t *testing.T, dir string, edit func(cat *index.Catalog)) {
	t.Helper()
	cat, _ := demoreg.ReadCatalog(t, dir)
	edit(cat)
	if err := os.RemoveAll(filepath.Join(dir, "metadata")); err != nil {
		t.Fatal(err)
	}
	st := storetest.OpenDir(t, dir, dirstore.Options{})
	defer st.Close()
	if _, err := trust.PublishCatalog(t.Context(), trust.Metadata(t.Context(), st), cat, base(t).Other, trust.PublishOptions{Now: func() time.Time { return demoreg.SyncNow2 }}); err != nil {
		t.Fatal(err)
	}
}

// shardFile returns the file of the shard that holds the entries of the
// extension of entry (an entry's String form).
func shardFile(t *testing.T, dir, entry string) string {
	t.Helper()
	cat, _ := demoreg.ReadCatalog(t, dir)
	ref := cat.Shard(find(t, cat, entry).ID)
	if ref == nil {
		t.Fatalf("no shard for %s", entry)
	}
	return filepath.Join(dir, filepath.FromSlash(trust.ShardPath(*ref)))
}
