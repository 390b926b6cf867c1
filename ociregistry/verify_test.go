package ociregistry_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/internal/demoreg"
	"github.com/airvsx/airvsx/ociregistry"
	"github.com/airvsx/airvsx/verify"
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
func demoInRegistry(t *testing.T, r *testRegistry, opts ociregistry.Options) *ociregistry.Store {
	t.Helper()
	dir, err := store.OpenDir(demoreg.Get(t).Dir, store.DirOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	s := r.open(t, opts)
	copyRegistry(t, dir, s)
	return s
}

func verifyStore(t *testing.T, s *ociregistry.Store) *verify.Report {
	t.Helper()
	rep, err := verify.Registry(t.Context(), verify.RegistryOptions{Store: s, Target: s.Place().String(),
		Anchor: trust.Anchor{Root: demoreg.Get(t).Root}, Now: func() time.Time { return demoreg.VerifyNow }})
	if err != nil {
		t.Fatalf("Registry: %v", err)
	}
	return rep
}

func problems(rep *verify.Report) string {
	var b strings.Builder
	for _, p := range rep.Problems {
		b.WriteString("  " + string(p.Severity) + " " + string(p.Rule) + " " + p.Path + " [" + p.Entry + "] " + p.Message + "\n")
	}
	return b.String()
}

// entry returns the catalog entry named e and its repository.
func entry(t *testing.T, e string) (index.Entry, string) {
	t.Helper()
	cat, _ := demoreg.ReadCatalog(t, demoreg.Get(t).Dir)
	for _, x := range cat.Entries {
		if x.String() == e {
			return x, store.Repo(x.ID)
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
// registry's own API (a tag moved, a manifest replaced, blobs deleted) or
// its storage, verify finds each damage, naming the rule and the entry.
func TestVerifyThroughRegistry(t *testing.T) {
	r := startRegistry(t)
	t.Run("clean", func(t *testing.T) {
		s := demoInRegistry(t, r, ociregistry.Options{})
		rep := verifyStore(t, s)
		if !rep.OK() || rep.Summary.Errors != 0 {
			t.Fatalf("a clean copy does not verify:\n%s", problems(rep))
		}
		if len(rep.Problems) != 0 {
			t.Errorf("problems in a clean copy:\n%s", problems(rep))
		}
	})
	type want struct {
		rule  verify.Rule
		entry string
	}
	cases := []struct {
		name   string
		tamper func(t *testing.T, s *ociregistry.Store, base string) []want
	}{
		{"tag moved to another entry's manifest", func(t *testing.T, s *ociregistry.Store, base string) []want {
			e, repo := entry(t, hello)
			other, _ := entry(t, helloLinux)
			mb := readAll(t, s, repo, other.ManifestDigest, other.ManifestSize)
			api(t, "PUT", base+"/"+repo+"/manifests/"+entryTag(t, e), mb, http.Header{"Content-Type": {store.MediaTypeManifest}}, 201)
			return []want{{verify.RuleTagMismatch, hello}}
		}},
		{"manifest replaced under its tag", func(t *testing.T, s *ociregistry.Store, base string) []want {
			e, repo := entry(t, gitHelper)
			mb := readAll(t, s, repo, e.ManifestDigest, e.ManifestSize)
			var m map[string]any
			if err := json.Unmarshal(mb, &m); err != nil {
				t.Fatal(err)
			}
			m["annotations"].(map[string]any)["org.opencontainers.image.description"] = "evil"
			nb, _ := json.Marshal(m)
			api(t, "PUT", base+"/"+repo+"/manifests/"+entryTag(t, e), nb, http.Header{"Content-Type": {store.MediaTypeManifest}}, 201)
			return []want{{verify.RuleTagMismatch, gitHelper}}
		}},
		{"manifest deleted", func(t *testing.T, s *ociregistry.Store, base string) []want {
			e, repo := entry(t, gitHelper)
			api(t, "DELETE", base+"/"+repo+"/blobs/"+e.ManifestDigest, nil, nil, 202)
			api(t, "DELETE", base+"/"+repo+"/manifests/"+e.ManifestDigest, nil, nil, 202)
			return []want{{verify.RuleManifestMissing, gitHelper}}
		}},
		{"blob deleted", func(t *testing.T, s *ociregistry.Store, base string) []want {
			e, repo := entry(t, usesGit)
			l := layer(t, s, repo, e, store.RoleReadme)
			api(t, "DELETE", base+"/"+repo+"/blobs/"+l.Digest, nil, nil, 202)
			return []want{{verify.RuleBlobMissing, usesGit}}
		}},
		{"flipped byte in a vsix in the registry's storage", func(t *testing.T, s *ociregistry.Store, base string) []want {
			e, repo := entry(t, hello)
			l := layer(t, s, repo, e, store.RoleVsix)
			f := r.blobData(l.Digest)
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 1
			if err := os.WriteFile(f, b, 0o644); err != nil {
				t.Fatal(err)
			}
			return []want{{verify.RuleBlobDigest, hello}}
		}},
		{"tag deleted", func(t *testing.T, s *ociregistry.Store, base string) []want {
			e, repo := entry(t, usesGit)
			api(t, "DELETE", base+"/"+repo+"/manifests/"+entryTag(t, e), nil, nil, 202)
			return []want{{verify.RuleTagMissing, usesGit}}
		}},
		{"truncated vsix in the registry's storage", func(t *testing.T, s *ociregistry.Store, base string) []want {
			e, repo := entry(t, helloLinux)
			l := layer(t, s, repo, e, store.RoleVsix)
			f := r.blobData(l.Digest)
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, b[:len(b)-100], 0o644); err != nil {
				t.Fatal(err)
			}
			return []want{{verify.RuleBlobSize, helloLinux}}
		}},
		{"snapshot metadata removed from the metadata manifest", func(t *testing.T, s *ociregistry.Store, base string) []want {
			url := base + "/airvsx-metadata/manifests/metadata"
			var m map[string]any
			if err := json.Unmarshal(api(t, "GET", url, nil, http.Header{"Accept": {store.MediaTypeManifest}}, 200), &m); err != nil {
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
			api(t, "PUT", url, b, http.Header{"Content-Type": {store.MediaTypeManifest}}, 201)
			return []want{{verify.RuleTrustMissing, ""}}
		}},
		{"timestamp replaced", func(t *testing.T, s *ociregistry.Store, base string) []want {
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
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := demoInRegistry(t, r, ociregistry.Options{})
			base := "http://" + r.host + "/v2/" + s.Place().Prefix
			wants := tc.tamper(t, s, base)
			rep := verifyStore(t, s)
			if rep.OK() {
				t.Fatalf("verify passed a registry damaged through the API:\n%s", problems(rep))
			}
			for _, w := range wants {
				if !slices.ContainsFunc(rep.Errors(), func(p verify.Problem) bool { return p.Rule == w.rule && p.Entry == w.entry }) {
					t.Errorf("no error %s for entry %q; got:\n%s", w.rule, w.entry, problems(rep))
				}
			}
		})
	}
}

// entryTag is the tag of e in its repository.
func entryTag(t *testing.T, e index.Entry) string {
	t.Helper()
	tag, err := store.Tag(e.Platform, e.Version)
	if err != nil {
		t.Fatal(err)
	}
	return tag
}

// layer returns the entry's layer of role, from its manifest in s.
func layer(t *testing.T, s store.Store, repo string, e index.Entry, role store.Role) store.Layer {
	t.Helper()
	m, err := store.ParseManifest(readAll(t, s, repo, e.ManifestDigest, e.ManifestSize))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range m.Layers {
		if l.Role == role {
			return l
		}
	}
	t.Fatalf("%s has no %s layer", e.String(), role)
	return store.Layer{}
}
