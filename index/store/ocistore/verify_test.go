package ocistore_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/ocistore"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/verify"
	"github.com/airvsx/airvsx/verify/verifytest"
)

func TestMain(m *testing.M) { demoreg.Main(m) }

const (
	hello      = "airvsx-demo.hello-command@1.0.0"
	helloLinux = "airvsx-demo.hello-command@1.0.0@linux-x64"
	usesGit    = "airvsx-demo.uses-git@1.0.0"
	gitHelper  = "airvsx-demo.git-helper@0.3.0"
)

// readAll reads a blob of src whole.
func readAll(t *testing.T, s store.Store, repo, digest string, size int64) []byte {
	t.Helper()
	rc, err := s.OpenBlob(t.Context(), repo, digest, size)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type ociManifest struct {
	Config struct {
		Digest string `json:"digest"`
		Size   int64  `json:"size"`
	} `json:"config"`
	Layers []struct {
		Digest string `json:"digest"`
		Size   int64  `json:"size"`
	} `json:"layers"`
}

// copyRegistry copies every tagged manifest with its blobs, then every
// metadata file (timestamp.json last), from src to dst: the test's own
// copy, through the Store interface only.
func copyRegistry(t *testing.T, src, dst store.Store) {
	t.Helper()
	ctx := t.Context()
	repos, err := src.Repos(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, repo := range repos {
		tags, err := src.Tags(ctx, repo)
		if err != nil {
			t.Fatal(err)
		}
		for _, te := range tags {
			mb := readAll(t, src, repo, te.Manifest.Digest, te.Manifest.Size)
			var m ociManifest
			if err := json.Unmarshal(mb, &m); err != nil {
				t.Fatal(err)
			}
			blobs := []struct {
				Digest string `json:"digest"`
				Size   int64  `json:"size"`
			}{m.Config}
			for _, l := range append(blobs, m.Layers...) {
				b := readAll(t, src, repo, l.Digest, l.Size)
				if err := dst.PutBlob(ctx, repo, l.Digest, l.Size, store.BytesContent(b)); err != nil {
					t.Fatal(err)
				}
			}
			if err := dst.PutBlob(ctx, repo, te.Manifest.Digest, te.Manifest.Size, store.BytesContent(mb)); err != nil {
				t.Fatal(err)
			}
			if err := dst.Tag(ctx, repo, te.Tag, te.Manifest); err != nil {
				t.Fatal(err)
			}
		}
	}
	names, err := src.ListMetadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names = slices.DeleteFunc(names, func(n string) bool { return n == "timestamp.json" })
	for _, n := range append(names, "timestamp.json") {
		b, err := src.ReadMetadata(ctx, n, 64<<20)
		if err != nil {
			t.Fatal(err)
		}
		if err := dst.WriteMetadata(ctx, n, b); err != nil {
			t.Fatal(err)
		}
	}
}

// demoInRegistry copies the demo registry into a new prefix of r and
// returns the store and its place.
func demoInRegistry(t *testing.T, r *testRegistry, opts ocistore.Options) *ocistore.Store {
	t.Helper()
	dir, err := dirstore.Open(demoreg.Get(t).Dir, dirstore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	s := r.open(t, opts)
	copyRegistry(t, dir, s)
	return s
}

// verifyStore verifies s as a user who pinned the demo's root would, with
// the state directory state ("" for none).
func verifyStore(t *testing.T, s *ocistore.Store, state string) *verify.Report {
	t.Helper()
	o := verify.RegistryOptions{Store: s, Target: s.Place().String(),
		Anchor: trust.Anchor{Root: demoreg.Get(t).Root}, Now: func() time.Time { return demoreg.VerifyNow }}
	if state != "" {
		o.State = trust.OpenStateDir(state)
	}
	rep, err := verify.Registry(t.Context(), o)
	if err != nil {
		t.Fatalf("Registry: %v", err)
	}
	return rep
}

// entry returns the catalog entry named e and its repository.
func entry(t *testing.T, e string) (index.Entry, string) {
	t.Helper()
	cat, _ := demoreg.ReadCatalog(t, demoreg.Get(t).Dir)
	for _, x := range cat.Entries {
		if x.String() == e {
			return x, artifact.Repo(x.ID)
		}
	}
	t.Fatalf("no entry %s", e)
	return index.Entry{}, ""
}

// api makes a request to the registry's API directly, behind the store's
// back, and wants one of the statuses.
func api(t *testing.T, method, url string, body []byte, header http.Header, want ...int) []byte {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if !slices.Contains(want, resp.StatusCode) {
		t.Fatalf("%s %s: %s: %s", method, url, resp.Status, b)
	}
	return b
}

// TestVerifyThroughRegistry: the demo registry copied into a distribution
// registry verifies clean through this store; then, damaged through the
// registry's own API (a tag moved, a manifest replaced, blobs deleted,
// metadata rewritten: what anyone with push rights can do) or its storage
// (what the registry's API refuses: content that does not match its
// digest), verify finds each damage, naming the rule and the entry.
//
// The cases are the kinds of damage of the tamper matrix
// (verify.TestTamperMatrix, whose table is a test file of verify and
// cannot be imported here; verify's tests must not import a network
// store) that a distribution registry can hold:
//
//   - its blob cases: flipped byte, truncated, deleted blob, deleted
//     manifest, manifests swapped between two versions;
//   - its tag cases: a tag moved to another version's manifest (and, here
//     only, a manifest replaced under its tag, and a tag deleted);
//   - its metadata cases, written through the store (which writes through
//     the API): the catalog edited without re-signing, a snapshot of one
//     sync with the catalog of another, a rollback to an older signed
//     catalog, a timestamp with a bad signature, and the re-signed catalog
//     lying about an entry (standing for the matrix's re-signed cases,
//     whose verdicts come from the bytes, whatever store holds them).
//
// What a registry cannot hold, and so is not here: the layout files (a
// damaged oci-layout file; index.json with two descriptors for one tag,
// or a tag to a manifest that is not there: a registry's tag is a pushed
// manifest, and it refuses a manifest whose blobs it lacks), and the
// cases that change only verify's options (wrong key, expired, policy).
func TestVerifyThroughRegistry(t *testing.T) {
	r := startRegistry(t)
	t.Run("clean", func(t *testing.T) {
		s := demoInRegistry(t, r, ocistore.Options{})
		rep := verifyStore(t, s, "")
		if !rep.OK() || rep.Summary.Errors != 0 {
			t.Fatalf("a clean copy does not verify:\n%s", verifytest.ProblemList(rep))
		}
		if len(rep.Problems) != 0 {
			t.Errorf("problems in a clean copy:\n%s", verifytest.ProblemList(rep))
		}
	})
	type want struct {
		rule  verify.Rule
		entry string
	}
	// state is the verification's state directory, fresh for each case:
	// a tamper function may verify with it first.
	cases := []struct {
		name string
		// own marks damage to the registry's storage, whose blobs every
		// prefix shares: the case runs in a registry of its own.
		own    bool
		tamper func(t *testing.T, reg *testRegistry, s *ocistore.Store, base, state string) []want
	}{
		{"tag moved to another entry's manifest", false, func(t *testing.T, reg *testRegistry, s *ocistore.Store, base, _ string) []want {
			e, repo := entry(t, hello)
			other, _ := entry(t, helloLinux)
			mb := readAll(t, s, repo, other.ManifestDigest, other.ManifestSize)
			api(t, "PUT", base+"/"+repo+"/manifests/"+entryTag(t, e), mb, http.Header{"Content-Type": {artifact.MediaTypeManifest}}, 201)
			return []want{{verify.RuleTagMismatch, hello}}
		}},
		{"manifest replaced under its tag", false, func(t *testing.T, reg *testRegistry, s *ocistore.Store, base, _ string) []want {
			e, repo := entry(t, gitHelper)
			mb := readAll(t, s, repo, e.ManifestDigest, e.ManifestSize)
			var m map[string]any
			if err := json.Unmarshal(mb, &m); err != nil {
				t.Fatal(err)
			}
			m["annotations"].(map[string]any)["org.opencontainers.image.description"] = "evil"
			nb, _ := json.Marshal(m)
			api(t, "PUT", base+"/"+repo+"/manifests/"+entryTag(t, e), nb, http.Header{"Content-Type": {artifact.MediaTypeManifest}}, 201)
			return []want{{verify.RuleTagMismatch, gitHelper}}
		}},
		{"manifest deleted", false, func(t *testing.T, reg *testRegistry, s *ocistore.Store, base, _ string) []want {
			e, repo := entry(t, gitHelper)
			api(t, "DELETE", base+"/"+repo+"/blobs/"+e.ManifestDigest, nil, nil, 202)
			api(t, "DELETE", base+"/"+repo+"/manifests/"+e.ManifestDigest, nil, nil, 202)
			return []want{{verify.RuleManifestMissing, gitHelper}}
		}},
		{"blob deleted", false, func(t *testing.T, reg *testRegistry, s *ocistore.Store, base, _ string) []want {
			e, repo := entry(t, usesGit)
			l := layer(t, s, repo, e, artifact.RoleReadme)
			api(t, "DELETE", base+"/"+repo+"/blobs/"+l.Digest, nil, nil, 202)
			return []want{{verify.RuleBlobMissing, usesGit}}
		}},
		{"flipped byte in a vsix in the registry's storage", true, func(t *testing.T, reg *testRegistry, s *ocistore.Store, base, _ string) []want {
			e, repo := entry(t, hello)
			l := layer(t, s, repo, e, artifact.RoleVsix)
			filetest.FlipByte(t, reg.blobData(l.Digest))
			return []want{{verify.RuleBlobDigest, hello}}
		}},
		{"tag deleted", false, func(t *testing.T, reg *testRegistry, s *ocistore.Store, base, _ string) []want {
			e, repo := entry(t, usesGit)
			api(t, "DELETE", base+"/"+repo+"/manifests/"+entryTag(t, e), nil, nil, 202)
			return []want{{verify.RuleTagMissing, usesGit}}
		}},
		{"truncated vsix in the registry's storage", true, func(t *testing.T, reg *testRegistry, s *ocistore.Store, base, _ string) []want {
			e, repo := entry(t, helloLinux)
			l := layer(t, s, repo, e, artifact.RoleVsix)
			f := reg.blobData(l.Digest)
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, b[:len(b)-100], 0o644); err != nil {
				t.Fatal(err)
			}
			return []want{{verify.RuleBlobSize, helloLinux}}
		}},
		{"snapshot metadata removed from the metadata manifest", false, func(t *testing.T, reg *testRegistry, s *ocistore.Store, base, _ string) []want {
			url := base + "/airvsx-metadata/manifests/metadata"
			var m map[string]any
			if err := json.Unmarshal(api(t, "GET", url, nil, http.Header{"Accept": {artifact.MediaTypeManifest}}, 200), &m); err != nil {
				t.Fatal(err)
			}
			var kept []any
			for _, l := range m["layers"].([]any) {
				title, _ := l.(map[string]any)["annotations"].(map[string]any)["org.opencontainers.image.title"].(string)
				if !strings.HasSuffix(title, "snapshot.json") {
					kept = append(kept, l)
				}
			}
			m["layers"] = kept
			b, _ := json.Marshal(m)
			api(t, "PUT", url, b, http.Header{"Content-Type": {artifact.MediaTypeManifest}}, 201)
			return []want{{verify.RuleTrustMissing, ""}}
		}},
		{"timestamp replaced", false, func(t *testing.T, reg *testRegistry, s *ocistore.Store, base, _ string) []want {
			b, err := s.ReadMetadata(t.Context(), "timestamp.json", 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			b = bytes.Replace(b, []byte(`"version": `), []byte(`"version": 9`), 1)
			if err := s.WriteMetadata(t.Context(), "timestamp.json", b); err != nil {
				t.Fatal(err)
			}
			return []want{{verify.RuleTrustSignature, ""}}
		}},
		{"manifests swapped between two versions in the registry's storage", true, func(t *testing.T, reg *testRegistry, s *ocistore.Store, base, _ string) []want {
			a, _ := entry(t, hello)
			b, _ := entry(t, helloLinux)
			fa, fb := reg.blobData(a.ManifestDigest), reg.blobData(b.ManifestDigest)
			ba, err := os.ReadFile(fa)
			if err != nil {
				t.Fatal(err)
			}
			bb, err := os.ReadFile(fb)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(fa, bb, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(fb, ba, 0o644); err != nil {
				t.Fatal(err)
			}
			return []want{{verify.RuleManifestMismatch, hello}, {verify.RuleManifestMismatch, helloLinux}}
		}},
		{"shard edited (entry removed) without re-signing", false, func(t *testing.T, reg *testRegistry, s *ocistore.Store, base, _ string) []want {
			cat, _ := demoreg.ReadCatalog(t, demoreg.Get(t).Dir)
			name := strings.TrimPrefix(trust.ShardPath(cat.Shards[0]), "metadata/")
			b, err := s.ReadMetadata(t.Context(), name, index.MaxCatalogBytes)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			m["entries"] = m["entries"].([]any)[1:]
			nb, _ := json.Marshal(m)
			if err := s.WriteMetadata(t.Context(), name, nb); err != nil {
				t.Fatal(err)
			}
			return []want{{verify.RuleTrustMismatch, ""}}
		}},
		{"snapshot from one sync with the catalog of another (mix-and-match)", false, func(t *testing.T, reg *testRegistry, s *ocistore.Store, base, _ string) []want {
			old, err := os.ReadFile(filepath.Join(demoreg.Get(t).Dir1, "metadata", "1.snapshot.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.WriteMetadata(t.Context(), "2.snapshot.json", old); err != nil {
				t.Fatal(err)
			}
			return []want{{verify.RuleTrustMismatch, ""}}
		}},
		{"rollback to an older validly signed catalog", false, func(t *testing.T, reg *testRegistry, s *ocistore.Store, base, state string) []want {
			if rep := verifyStore(t, s, state); !rep.OK() {
				t.Fatalf("the current registry:\n%s", verifytest.ProblemList(rep))
			}
			old := filepath.Join(demoreg.Get(t).Dir1, "metadata")
			for _, n := range []string{"1.snapshot.json", "timestamp.json"} {
				b, err := os.ReadFile(filepath.Join(old, n))
				if err != nil {
					t.Fatal(err)
				}
				if err := s.WriteMetadata(t.Context(), n, b); err != nil {
					t.Fatal(err)
				}
			}
			return []want{{verify.RuleTrustRollback, ""}}
		}},
		{"catalog summary lies about capabilities (re-signed catalog)", false, func(t *testing.T, reg *testRegistry, s *ocistore.Store, base, _ string) []want {
			cat, tr, err := trust.ReadCatalog(t.Context(), s, trust.CatalogOptions{Load: trust.LoadOptions{Now: func() time.Time { return demoreg.SyncNow2 }}})
			if err != nil {
				t.Fatal(err)
			}
			prev := tr.CatalogDigest
			for i := range cat.Entries {
				if cat.Entries[i].String() == gitHelper {
					cat.Entries[i].DeclaredCapabilities = nil
				}
			}
			cat.Serial++
			cat.Previous = prev
			if _, err := trust.PublishCatalog(t.Context(), trust.Metadata(t.Context(), s), cat, demoreg.Get(t).Signer,
				trust.PublishOptions{Now: func() time.Time { return demoreg.SyncNow2.Add(time.Minute) }}); err != nil {
				t.Fatal(err)
			}
			return []want{{verify.RuleEntrySummary, gitHelper}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			reg := r
			if tc.own {
				reg = startRegistry(t)
			}
			s := demoInRegistry(t, reg, ocistore.Options{})
			base := "http://" + reg.host + "/v2/" + s.Place().Prefix
			state := t.TempDir()
			wants := tc.tamper(t, reg, s, base, state)
			rep := verifyStore(t, s, state)
			if rep.OK() {
				t.Fatalf("verify passed a registry damaged through the API:\n%s", verifytest.ProblemList(rep))
			}
			for _, w := range wants {
				if !slices.ContainsFunc(rep.Errors(), func(p verify.Problem) bool { return p.Rule == w.rule && p.Entry == w.entry }) {
					t.Errorf("no error %s for entry %q; got:\n%s", w.rule, w.entry, verifytest.ProblemList(rep))
				}
			}
		})
	}
}

// entryTag is the tag of e in its repository.
func entryTag(t *testing.T, e index.Entry) string {
	t.Helper()
	tag, err := artifact.Tag(e.Platform, e.Version)
	if err != nil {
		t.Fatal(err)
	}
	return tag
}

// layer returns the entry's layer of role, from its manifest in s.
func layer(t *testing.T, s store.Store, repo string, e index.Entry, role artifact.Role) artifact.Layer {
	t.Helper()
	m, err := artifact.ParseManifest(readAll(t, s, repo, e.ManifestDigest, e.ManifestSize))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range m.Layers {
		if l.Role == role {
			return l
		}
	}
	t.Fatalf("%s has no %s layer", e.String(), role)
	return artifact.Layer{}
}
