package serve_test

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/serve"
	"github.com/airvsx/airvsx/testkit/synthreg"
)

// builds are the entries of the multi-version registry: one extension
// in three versions, the newest also for linux-x64.
var builds = []struct {
	version  string
	platform index.Platform
}{{"1.0.0", index.Universal}, {"1.1.0", index.Universal}, {"2.0.0", index.Universal}, {"2.0.0", index.LinuxX64}}

// multiFixture serves a synthetic registry of builds (packages of random
// bytes: what ovsx downloads is checked byte for byte, not unpacked).
func multiFixture(t *testing.T) *fixture {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "registry")
	signer, _, err := synthreg.NewSigner()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	_, err = synthreg.Build(t.Context(), dir, synthreg.Options{Entries: len(builds), Signer: signer, Now: now, Workers: 1},
		func(ctx context.Context, st store.Store, i int) (index.Entry, error) {
			b := builds[i]
			id := index.ID{Namespace: "syn", Name: "multi"}
			data := make([]byte, 64<<10+i)
			mrand.NewChaCha8([32]byte{byte(i)}).Read(data)
			a := synthreg.NewArtifact(st, id)
			if err := a.Add(ctx, artifact.RoleVsix, fmt.Sprintf("syn.multi-%s.vsix", b.version), data); err != nil {
				return index.Entry{}, err
			}
			pkg := []byte(fmt.Sprintf(`{"name":"multi","publisher":"syn","version":%q}`, b.version))
			if err := a.Add(ctx, artifact.RoleManifest, "package.json", pkg); err != nil {
				return index.Entry{}, err
			}
			published := time.Date(2026, 11, 1, i, 0, 0, 0, time.UTC)
			sum := index.SHA256Hex(data)
			m, err := a.Put(ctx, artifact.ArtifactInfo{ID: id, Version: b.version, Platform: b.platform, Created: published, UpstreamSHA256: sum})
			if err != nil {
				return index.Entry{}, err
			}
			return index.Entry{ID: id, Version: b.version, Platform: b.platform, Published: published, VsixSHA256: sum,
				VsixSize: int64(len(data)), Engine: "^1.80.0", DisplayName: "Multi", ManifestDigest: m.Digest, ManifestSize: m.Size}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(t.Context(), serve.Options{
		Open: func(context.Context) (store.Store, error) {
			return dirstore.Open(dir, dirstore.Options{ReadOnly: true})
		},
		Anchor: trust.Anchor{Key: signer}, Poll: -1,
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	f := &fixture{dir: dir, srv: srv}
	f.ts = newTestServer(t, srv)
	return f
}
