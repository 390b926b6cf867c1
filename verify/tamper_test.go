package verify_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/theupdateframework/go-tuf/v2/metadata"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/index/vsix/vsixtest"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/verify"
	"github.com/airvsx/airvsx/verify/verifytest"
)

const (
	hello      = "airvsx-demo.hello-command@1.0.0"
	helloLinux = "airvsx-demo.hello-command@1.0.0@linux-x64"
	usesGit    = "airvsx-demo.uses-git@1.0.0"
	gitHelper  = "airvsx-demo.git-helper@0.3.0"
	unsigned   = "other-pub.unsigned-tool@0.1.0"
	helloIndex = "extensions/airvsx-demo/hello-command/index.json"
)

// want is a problem a tampered registry must produce: the rule, the file
// (a prefix of Path, or the exact path) and the entry ("" for
// registry-wide problems).
type want struct {
	rule  verify.Rule
	path  string
	entry string
}

// tamperCase damages a fresh copy of the fixture registry; setup returns
// the problems verification must report and may change the options.
type tamperCase struct {
	name  string
	setup func(t *testing.T, dir string, o *verify.RegistryOptions) []want
}

func tamperCases() []tamperCase {
	return []tamperCase{
		{"flipped byte in a vsix", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			filetest.FlipByte(t, blobFile(t, dir, hello, artifact.RoleVsix))
			return []want{{verify.RuleBlobDigest, relBlob(t, dir, hello, artifact.RoleVsix), hello}}
		}},
		{"truncated vsix", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			f := blobFile(t, dir, hello, artifact.RoleVsix)
			b := readBlob(t, dir, hello, artifact.RoleVsix)
			filetest.WriteFile(t, f, b[:len(b)-100])
			return []want{{verify.RuleBlobSize, relBlob(t, dir, hello, artifact.RoleVsix), hello}}
		}},
		{"deleted blob", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			rel := relBlob(t, dir, usesGit, artifact.RoleReadme)
			filetest.Remove(t, blobFile(t, dir, usesGit, artifact.RoleReadme))
			return []want{{verify.RuleBlobMissing, rel, usesGit}}
		}},
		{"deleted manifest", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			rel := relBlob(t, dir, gitHelper, "")
			filetest.Remove(t, blobFile(t, dir, gitHelper, ""))
			return []want{{verify.RuleManifestMissing, rel, gitHelper}}
		}},
		{"oci-layout file damaged", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			f := filepath.Join(dir, "extensions", "airvsx-demo", "hello-command", "oci-layout")
			filetest.WriteFile(t, f, []byte(`{"imageLayoutVersion":"2.0.0"}`))
			return []want{{verify.RuleLayoutInvalid, "extensions/airvsx-demo/hello-command/oci-layout", ""}}
		}},
		{"extra entry in index.json (a second descriptor for a tag)", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			cat, _ := demoreg.ReadCatalog(t, dir)
			other := find(t, cat, helloLinux)
			editJSON(t, filepath.Join(dir, filepath.FromSlash(helloIndex)), func(m map[string]any) {
				ms := m["manifests"].([]any)
				ms = append(ms, map[string]any{
					"mediaType": artifact.MediaTypeManifest, "digest": other.ManifestDigest, "size": other.ManifestSize,
					"annotations": map[string]any{"org.opencontainers.image.ref.name": "universal-1.0.0"},
				})
				m["manifests"] = ms
			})
			return []want{{verify.RuleLayoutInvalid, helloIndex, ""}}
		}},
		{"extra entry in index.json (a tag to a missing manifest)", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			editJSON(t, filepath.Join(dir, filepath.FromSlash(helloIndex)), func(m map[string]any) {
				m["manifests"] = append(m["manifests"].([]any), map[string]any{
					"mediaType": artifact.MediaTypeManifest, "digest": index.DigestBytes([]byte("planted")), "size": 7,
					"annotations": map[string]any{"org.opencontainers.image.ref.name": "universal-9.9.9"},
				})
			})
			return []want{{verify.RuleTagDangling, helloIndex, ""}}
		}},
		{"manifest swapped between two versions", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			a, b := blobFile(t, dir, hello, ""), blobFile(t, dir, helloLinux, "")
			ra, rb := relBlob(t, dir, hello, ""), relBlob(t, dir, helloLinux, "")
			ba, bb := filetest.ReadFile(t, a), filetest.ReadFile(t, b)
			filetest.WriteFile(t, a, bb)
			filetest.WriteFile(t, b, ba)
			return []want{{verify.RuleManifestMismatch, ra, hello}, {verify.RuleManifestMismatch, rb, helloLinux}}
		}},
		{"tag pointed at another version's manifest", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			cat, _ := demoreg.ReadCatalog(t, dir)
			other := find(t, cat, helloLinux)
			st := storetest.OpenDir(t, dir, dirstore.Options{})
			defer st.Close()
			if err := st.Tag(t.Context(), "airvsx-demo/hello-command", "universal-1.0.0", store.Descriptor{MediaType: artifact.MediaTypeManifest, Digest: other.ManifestDigest, Size: other.ManifestSize, ArtifactType: artifact.ArtifactType}); err != nil {
				t.Fatal(err)
			}
			return []want{{verify.RuleTagMismatch, helloIndex, hello}}
		}},
		{"catalog edited (shard removed) without re-signing", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			f := catalogFile(t, dir)
			editJSON(t, f, func(m map[string]any) {
				es := m["shards"].([]any)
				m["shards"] = es[1:]
			})
			return []want{{verify.RuleTrustMismatch, "metadata/targets/" + filepath.Base(f), ""}}
		}},
		{"shard edited (entry removed) without re-signing", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			f := shardFile(t, dir, hello)
			editJSON(t, f, func(m map[string]any) {
				es := m["entries"].([]any)
				m["entries"] = es[1:]
			})
			return []want{{verify.RuleTrustMismatch, "metadata/targets/" + filepath.Base(f), ""}}
		}},
		{"shard edited (digest changed) without re-signing", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			f := shardFile(t, dir, hello)
			b := filetest.ReadFile(t, f)
			cat, _ := demoreg.ReadCatalog(t, dir)
			e := find(t, cat, hello)
			planted := index.DigestBytes([]byte("planted"))
			filetest.WriteFile(t, f, []byte(strings.Replace(string(b), e.ManifestDigest, planted, 1)))
			return []want{{verify.RuleTrustMismatch, "metadata/targets/" + filepath.Base(f), ""}}
		}},
		{"shard from another serial", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			old := filetest.ReadFile(t, shardFile(t, dir, hello))
			resign(t, dir, func(_ *dirstore.Store, cat *index.Catalog) {
				find(t, cat, hello).Description = "edited"
			})
			f := shardFile(t, dir, hello)
			if bytes.Equal(old, filetest.ReadFile(t, f)) {
				t.Fatal("the new serial did not change the shard")
			}
			filetest.WriteFile(t, f, old)
			return []want{{verify.RuleTrustMismatch, "metadata/targets/" + filepath.Base(f), ""}}
		}},
		{"shard left out", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			f := shardFile(t, dir, hello)
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
			return []want{{verify.RuleTrustMissing, "metadata/targets/" + filepath.Base(f), ""}}
		}},
		{"shard re-signed by another key", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			publishOther(t, dir, func(cat *index.Catalog) {
				find(t, cat, hello).Description = "edited"
			})
			return []want{{verify.RuleTrustSignature, "metadata/timestamp.json", ""}}
		}},
		{"catalog signed by another key (pinned root)", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			publishWithOtherKey(t, dir)
			return []want{{verify.RuleTrustSignature, "metadata/timestamp.json", ""}}
		}},
		{"catalog signed by another key (--key)", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			publishWithOtherKey(t, dir)
			useKey(t, o, base(t).PubPath)
			return []want{{verify.RuleTrustSignature, "metadata/1.root.json", ""}}
		}},
		{"wrong --key for the registry", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			useKey(t, o, base(t).OtherPub)
			return []want{{verify.RuleTrustSignature, "metadata/1.root.json", ""}}
		}},
		{"rollback to an older validly signed catalog", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			o.State = trust.OpenStateDir(t.TempDir())
			if rep := check(t, dir, func(p *verify.RegistryOptions) { p.State = o.State }); !rep.OK() {
				t.Fatalf("the current registry: %v", rep.Problems)
			}
			if err := os.RemoveAll(filepath.Join(dir, "metadata")); err != nil {
				t.Fatal(err)
			}
			if err := os.CopyFS(filepath.Join(dir, "metadata"), os.DirFS(filepath.Join(base(t).Dir1, "metadata"))); err != nil {
				t.Fatal(err)
			}
			return []want{{verify.RuleTrustRollback, "metadata/timestamp.json", ""}}
		}},
		{"expired timestamp (freeze)", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			o.Now = func() time.Time { return demoreg.SyncNow2.Add(91 * 24 * time.Hour) }
			return []want{{verify.RuleTrustExpired, "metadata/timestamp.json", ""}}
		}},
		{"snapshot from one sync with the catalog of another (mix-and-match)", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			filetest.CopyFile(t, filepath.Join(base(t).Dir1, "metadata", "1.snapshot.json"), filepath.Join(dir, "metadata", "2.snapshot.json"))
			return []want{{verify.RuleTrustMismatch, "metadata/2.snapshot.json", ""}}
		}},
		{"timestamp with a higher version and a bad signature", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			editJSON(t, filepath.Join(dir, "metadata", "timestamp.json"), func(m map[string]any) {
				m["signed"].(map[string]any)["version"] = 3
			})
			return []want{{verify.RuleTrustSignature, "metadata/timestamp.json", ""}}
		}},
		{"root rotation not signed by the trusted root", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			r := metadata.Root(demoreg.SyncNow2.Add(365 * 24 * time.Hour))
			r.Signed.Version = 2
			pub, err := base(t).Other.PublicKey()
			if err != nil {
				t.Fatal(err)
			}
			key, err := metadata.KeyFromPublicKey(pub)
			if err != nil {
				t.Fatal(err)
			}
			for _, role := range []string{metadata.ROOT, metadata.TIMESTAMP, metadata.SNAPSHOT, metadata.TARGETS} {
				if err := r.Signed.AddKey(key, role); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := r.Sign(base(t).Other); err != nil {
				t.Fatal(err)
			}
			b, err := r.ToBytes(false)
			if err != nil {
				t.Fatal(err)
			}
			filetest.WriteFile(t, filepath.Join(dir, "metadata", "2.root.json"), b)
			return []want{{verify.RuleTrustSignature, "metadata/2.root.json", ""}}
		}},
		{"upstream sigzip replaced by one for another vsix (blob swapped)", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			filetest.WriteFile(t, blobFile(t, dir, hello, artifact.RoleUpstreamSignature), readBlob(t, dir, "airvsx-demo.night-theme@2.1.0", artifact.RoleUpstreamSignature))
			return []want{{verify.RuleBlobSize, relBlob(t, dir, hello, artifact.RoleUpstreamSignature), hello}}
		}},
		{"upstream sigzip replaced by one for another vsix (re-signed catalog)", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			swapLayer(t, dir, hello, nightTheme, artifact.RoleUpstreamSignature)
			return []want{{verify.RuleSignatureInvalid, relBlob(t, dir, hello, artifact.RoleVsix), hello}}
		}},
		{"signature layer dropped from a signed entry (re-signed catalog)", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			resign(t, dir, func(st *dirstore.Store, cat *index.Catalog) {
				replaceLayer(t, dir, st, cat, gitHelper, artifact.RoleUpstreamSignature, nil)
			})
			return []want{{verify.RuleSignatureMissing, relBlob(t, dir, gitHelper, ""), gitHelper}}
		}},
		{"vsix replaced by a hostile archive (re-signed catalog)", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			var hostile []byte
			for _, c := range vsixtest.Hostile() {
				if c.Name == "symlink" {
					b, err := vsixtest.Bytes(c.Build)
					if err != nil {
						t.Fatal(err)
					}
					hostile = b
				}
			}
			resign(t, dir, func(st *dirstore.Store, cat *index.Catalog) {
				e := replaceLayer(t, dir, st, cat, unsigned, artifact.RoleVsix, hostile)
				e.Upstream = index.Signature{}
			})
			return []want{{verify.RuleVsixUnsafe, relBlob(t, dir, unsigned, artifact.RoleVsix), unsigned}}
		}},
		{"vsix replaced by another extension's package (re-signed catalog)", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			swapLayer(t, dir, unsigned, nightTheme, artifact.RoleVsix)
			return []want{{verify.RuleVsixIdentity, relBlob(t, dir, unsigned, artifact.RoleVsix), unsigned}}
		}},
		{"catalog summary lies about capabilities (re-signed catalog)", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			resign(t, dir, func(st *dirstore.Store, cat *index.Catalog) {
				find(t, cat, gitHelper).DeclaredCapabilities = nil
			})
			return []want{{verify.RuleEntrySummary, relBlob(t, dir, gitHelper, artifact.RoleVsix), gitHelper}}
		}},
		{"catalog hash chain broken (re-signed catalog)", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			o.State = trust.OpenStateDir(t.TempDir())
			check(t, dir, func(p *verify.RegistryOptions) { p.State = o.State })
			resign(t, dir, func(st *dirstore.Store, cat *index.Catalog) { cat.Previous = "bogus" })
			return []want{{verify.RuleCatalogChain, "metadata/targets/", ""}}
		}},
		{"policy excludes an entry present", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			p := demoreg.Policy(t)
			q := demoreg.ParsePolicy(t, "version: 1\nextensions:\n  - id: '*.*'\nexclude: [other-pub.*]\n")
			p.Exclude = q.Exclude
			o.Policy = p
			return []want{{verify.RulePolicyExcluded, "metadata/targets/", unsigned}}
		}},
		{"policy requires upstream signatures", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			p := demoreg.Policy(t)
			p.RequireUpstreamSignature = true
			o.Policy = p
			return []want{{verify.RulePolicyUnsigned, "metadata/targets/", unsigned}}
		}},
		{"dependency removed from the registry (re-signed catalog)", func(t *testing.T, dir string, o *verify.RegistryOptions) []want {
			resign(t, dir, func(st *dirstore.Store, cat *index.Catalog) {
				e := find(t, cat, gitHelper)
				var kept []index.Entry
				for _, x := range cat.Entries {
					if x.String() != e.String() {
						kept = append(kept, x)
					}
				}
				cat.Entries = kept
			})
			return []want{{verify.RuleDependency, "metadata/targets/", usesGit}}
		}},
	}
}

// TestTamperMatrix damages a fresh copy of a registry made by sync in
// each way an attacker or a bad medium could, and checks that verify
// fails naming the right rule, file and entry; then that verifying the
// damaged registry committed into a git store (checkOnGit) and through an
// in-memory store (checkOnMem) finds the same.
func TestTamperMatrix(t *testing.T) {
	cases := tamperCases()
	if len(cases) < 20 {
		t.Fatalf("%d cases; the issue asks for at least 20", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := fresh(t)
			o := regOpts(t, dir)
			wants := tc.setup(t, dir, &o)
			rep, err := verify.Registry(t.Context(), o)
			if err != nil {
				t.Fatalf("Registry: %v", err)
			}
			if rep.OK() || rep.Summary.Errors == 0 {
				t.Fatalf("verify passed a tampered registry; problems: %v", rep.Problems)
			}
			checkWants(t, rep, wants)
			checkOnGit(t, dir, o, rep)
			checkOnMem(t, dir, o, rep, wants)
		})
	}
}

// TestCleanRegistry: the registry as sync made it verifies with no
// problem at all, in every trust mode and with --no-read-data, through
// its directory store and through an in-memory copy.
func TestCleanRegistry(t *testing.T) {
	dir := fresh(t)
	for name, opt := range map[string]func(*verify.RegistryOptions){
		"root":         func(*verify.RegistryOptions) {},
		"key":          func(o *verify.RegistryOptions) { useKey(t, o, base(t).PubPath) },
		"no-read-data": func(o *verify.RegistryOptions) { o.NoReadData = true },
		"policy":       func(o *verify.RegistryOptions) { o.Policy = demoreg.Policy(t) },
	} {
		for _, mem := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/mem=%v", name, mem), func(t *testing.T) {
				opts := []func(*verify.RegistryOptions){opt}
				if mem {
					opts = append(opts, func(o *verify.RegistryOptions) { o.Store = storetest.MemFromDir(t, dir) })
				}
				rep := check(t, dir, opts...)
				if !rep.OK() || len(rep.Problems) != 0 {
					t.Fatalf("problems in a clean registry:\n%s", verifytest.ProblemList(rep))
				}
				if rep.Summary.Entries != 7 || rep.Summary.EntryOK != 7 || rep.Catalog == nil || rep.Catalog.Serial != 2 {
					t.Errorf("summary %+v catalog %+v; want 7 entries ok at serial 2", rep.Summary, rep.Catalog)
				}
				if rep.Summary.ReadData && rep.Summary.Bytes == 0 {
					t.Error("no bytes hashed")
				}
			})
		}
	}
}

// TestNoReadDataSkipsContent: --no-read-data catches a truncated blob by
// its size but, by design, not a flipped byte.
func TestNoReadDataSkipsContent(t *testing.T) {
	dir := fresh(t)
	f := blobFile(t, dir, hello, artifact.RoleVsix)
	b := filetest.ReadFile(t, f)
	b[10] ^= 1
	filetest.WriteFile(t, f, b)
	if rep := check(t, dir, func(o *verify.RegistryOptions) { o.NoReadData = true }); !rep.OK() {
		t.Errorf("--no-read-data hashed the blob:\n%s", verifytest.ProblemList(rep))
	}
	filetest.WriteFile(t, f, b[:len(b)-1])
	rep := check(t, dir, func(o *verify.RegistryOptions) { o.NoReadData = true })
	if !hasProblem(rep, want{verify.RuleBlobSize, relBlob(t, dir, hello, artifact.RoleVsix), hello}) {
		t.Errorf("--no-read-data missed a truncated blob:\n%s", verifytest.ProblemList(rep))
	}
}

// TestExtrasAreHints: a tag, a blob and a repository no entry references
// are warnings; the registry still verifies.
func TestExtrasAreHints(t *testing.T) {
	dir := fresh(t)
	cat, _ := demoreg.ReadCatalog(t, dir)
	other := find(t, cat, helloLinux)
	st := storetest.OpenDir(t, dir, dirstore.Options{})
	ctx := t.Context()
	if err := st.Tag(ctx, "airvsx-demo/hello-command", "universal-9.0.0", store.Descriptor{MediaType: artifact.MediaTypeManifest, Digest: other.ManifestDigest, Size: other.ManifestSize, ArtifactType: artifact.ArtifactType}); err != nil {
		t.Fatal(err)
	}
	stray := []byte("left behind")
	if err := st.PutBlob(ctx, "airvsx-demo/hello-command", index.DigestBytes(stray), int64(len(stray)), store.BytesContent(stray)); err != nil {
		t.Fatal(err)
	}
	if err := st.PutBlob(ctx, "pruned/ext", index.DigestBytes(stray), int64(len(stray)), store.BytesContent(stray)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	filetest.WriteFile(t, filepath.Join(dir, "notes.txt"), []byte("hi"))
	rep := check(t, dir)
	if !rep.OK() {
		t.Fatalf("extras failed the registry:\n%s", verifytest.ProblemList(rep))
	}
	for _, w := range []want{
		{verify.RuleOrphanTag, helloIndex, ""},
		{verify.RuleOrphanBlob, "extensions/airvsx-demo/hello-command/blobs/sha256/", ""},
		{verify.RuleOrphanRepo, "extensions/pruned/ext/", ""},
		{verify.RuleExtraFile, "notes.txt", ""},
	} {
		if !hasWarning(rep, w) {
			t.Errorf("no warning %s at %s; got:\n%s", w.rule, w.path, verifytest.ProblemList(rep))
		}
	}
}
