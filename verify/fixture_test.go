package verify_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/mirror"
	"github.com/airvsx/airvsx/mirror/openvsxtest"
	"github.com/airvsx/airvsx/policies"
	"github.com/airvsx/airvsx/verify"
)

// The clock: the first sync signs at testNow, the second an hour later,
// and verification runs two hours after that (catalogs are valid 90 days).
var (
	testNow   = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	syncNow2  = testNow.Add(time.Hour)
	verifyNow = testNow.Add(3 * time.Hour)
)

// fixture is the registry every test copies: the demo policy synced twice
// from the fixture upstream by mirror.Sync (serial 2), with a copy of the
// registry after the first sync (serial 1), and the keys.
type fixture struct {
	dir      string // the registry after two syncs
	dir1     string // a copy after the first sync
	root     []byte // its 1.root.json: the pinned anchor
	signer   signature.SignerVerifier
	pubPath  string // the signer's public key file
	other    signature.SignerVerifier
	otherPub string
}

var (
	fixOnce sync.Once
	fix     *fixture
	fixErr  string
	tmpRoot string
)

func TestMain(m *testing.M) {
	var err error
	tmpRoot, err = os.MkdirTemp("", "airvsx-verify-test-")
	if err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(tmpRoot)
	os.Exit(code)
}

func demoPolicy(t testing.TB) *policies.Policy {
	t.Helper()
	p, err := policies.Load(filepath.Join("..", "policies", "examples", "demo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func policyFrom(t testing.TB, yaml string) *policies.Policy {
	t.Helper()
	p, err := policies.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newSigner(t testing.TB, dir, name string) (signature.SignerVerifier, string) {
	t.Helper()
	// An unencrypted PKCS#8 key: GenerateKeyPair's scrypt would cost
	// seconds on a loaded machine.
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	priv := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	pub := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	sv, err := trust.ParseSigner(name+".key", priv, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name+".pub")
	if err := os.WriteFile(p, pub, 0o644); err != nil {
		t.Fatal(err)
	}
	return sv, p
}

// base returns the shared fixture, building it on first use.
func base(t *testing.T) *fixture {
	t.Helper()
	fixOnce.Do(func() {
		f, err := buildFixture(t)
		if err != nil {
			fixErr = err.Error()
			return
		}
		fix = f
	})
	if fix == nil {
		t.Fatalf("fixture: %s", fixErr)
	}
	return fix
}

func buildFixture(t *testing.T) (*fixture, error) {
	srv := openvsxtest.New(t, openvsxtest.Options{})
	c, err := mirror.NewClient(mirror.ClientOptions{BaseURL: srv.URL, Rate: 1000, Burst: 100, RetryWaitMin: time.Millisecond, RetryWaitMax: 20 * time.Millisecond})
	if err != nil {
		return nil, err
	}
	f := &fixture{dir: filepath.Join(tmpRoot, "base", "registry"), dir1: filepath.Join(tmpRoot, "base", "registry-1")}
	f.signer, f.pubPath = newSigner(t, tmpRoot, "signer")
	f.other, f.otherPub = newSigner(t, tmpRoot, "other")
	for i, now := range []time.Time{testNow, syncNow2} {
		st, err := store.OpenDir(f.dir, store.DirOptions{Create: true})
		if err != nil {
			return nil, err
		}
		_, err = mirror.Sync(context.Background(), mirror.Options{Client: c, Policy: demoPolicy(t), Store: st, Signer: f.signer,
			Now: func() time.Time { return now }, TempDir: tmpRoot})
		st.Close()
		if err != nil {
			return nil, err
		}
		if i == 0 {
			if err := copyTree(f.dir, f.dir1); err != nil {
				return nil, err
			}
		}
	}
	f.root, err = os.ReadFile(filepath.Join(f.dir, "metadata", "1.root.json"))
	return f, err
}

// copyTree copies a directory of regular files.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
}

// fresh returns a private copy of the fixture registry.
func fresh(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "registry")
	if err := copyTree(base(t).dir, dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// check verifies dir with the pinned root at verifyNow; opts may change
// the options.
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
// read-only for the test) with the pinned root at verifyNow.
func regOpts(t *testing.T, dir string) verify.RegistryOptions {
	t.Helper()
	st, err := store.OpenDir(dir, store.DirOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return verify.RegistryOptions{Store: st, Target: dir, Anchor: trust.Anchor{Root: base(t).root}, Now: func() time.Time { return verifyNow }}
}

// catalogOf reads a registry's catalog (checked against its own root).
func catalogOf(t *testing.T, dir string) (*index.Catalog, string) {
	t.Helper()
	st, err := store.OpenDir(dir, store.DirOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cat, tr, err := trust.ReadCatalog(t.Context(), st, trust.CatalogOptions{Load: trust.LoadOptions{Now: func() time.Time { return verifyNow }}})
	if err != nil {
		t.Fatal(err)
	}
	return cat, tr.CatalogDigest
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
func manifestOf(t *testing.T, dir string, e *index.Entry) *store.Manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(store.BlobName(store.Repo(e.ID), e.ManifestDigest))))
	if err != nil {
		t.Fatal(err)
	}
	m, err := store.ParseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// blobFile returns the OS path of an entry's blob with the given role
// ("" for the manifest).
func blobFile(t *testing.T, dir, entry string, role store.Role) string {
	t.Helper()
	cat, _ := catalogOf(t, dir)
	e := find(t, cat, entry)
	digest := e.ManifestDigest
	if role != "" {
		l, ok := manifestOf(t, dir, e).Layer(role)
		if !ok {
			t.Fatalf("%s has no %s layer", entry, role)
		}
		digest = l.Digest
	}
	return filepath.Join(dir, filepath.FromSlash(store.BlobName(store.Repo(e.ID), digest)))
}

// relBlob is blobFile relative to the registry, as reports name it.
func relBlob(t *testing.T, dir, entry string, role store.Role) string {
	rel, _ := filepath.Rel(dir, blobFile(t, dir, entry, role))
	return filepath.ToSlash(rel)
}

// resign changes the catalog (and, through the store, the blobs) and
// publishes it with the registry's own key, as a publisher would: serial
// + 1, chained to the current catalog.
func resign(t *testing.T, dir string, edit func(st *store.Dir, cat *index.Catalog)) {
	t.Helper()
	cat, digest := catalogOf(t, dir)
	st, err := store.OpenDir(dir, store.DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	edit(st, cat)
	cat.Serial++
	if cat.Previous != "bogus" {
		cat.Previous = digest
	} else {
		cat.Previous = index.DigestBytes([]byte("another catalog"))
	}
	data, err := cat.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := trust.Publish(t.Context(), trust.Metadata(t.Context(), st), data, base(t).signer, trust.PublishOptions{Now: func() time.Time { return syncNow2.Add(time.Minute) }}); err != nil {
		t.Fatal(err)
	}
}

// replaceLayer stores data as the layer of role (nil drops the layer) of
// the entry, rebuilds the manifest and points the entry at it; fix may
// adjust the entry further.
func replaceLayer(t *testing.T, dir string, st *store.Dir, cat *index.Catalog, entry string, role store.Role, data []byte) *index.Entry {
	t.Helper()
	ctx := t.Context()
	e := find(t, cat, entry)
	m := manifestOf(t, dir, e)
	repo := store.Repo(e.ID)
	var layers []store.Layer
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
	if role == store.RoleVsix {
		sum := strings.TrimPrefix(index.DigestBytes(data), "sha256:")
		info.UpstreamSHA256 = sum
		e.VsixSHA256, e.VsixSize = sum, int64(len(data))
	}
	raw, err := store.BuildManifest(info, layers)
	if err != nil {
		t.Fatal(err)
	}
	nm, err := store.PutArtifact(ctx, st, raw)
	if err != nil {
		t.Fatal(err)
	}
	e.ManifestDigest, e.ManifestSize = nm.Digest, nm.Size
	return e
}

// readBlob reads an entry's layer from the store.
func readBlob(t *testing.T, dir, entry string, role store.Role) []byte {
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
	_, digest := catalogOf(t, dir)
	return filepath.Join(dir, "metadata", "targets", strings.TrimPrefix(digest, "sha256:")+".catalog.json")
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
