package synthreg

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
)

// RandomEntry stores entry i as namespace.ext-NNNN 1.0.0: a vsix of size
// random bytes (seeded by i, so entry i is the same in every registry)
// and two small layers. Its packages are not real ones: it serves what
// checks hashes and the trust chain (copy), not the package rules.
func RandomEntry(namespace string, size int64) EntryFunc {
	return func(ctx context.Context, st store.Store, i int) (index.Entry, error) {
		name := fmt.Sprintf("ext-%04d", i)
		id := index.ID{Namespace: namespace, Name: name}
		var seed [32]byte
		seed[0], seed[1] = byte(i), byte(i>>8)
		data := make([]byte, size)
		mrand.NewChaCha8(seed).Read(data)
		a := NewArtifact(st, id)
		pkg := []byte(fmt.Sprintf(`{"name":%q,"publisher":%q,"version":"1.0.0"}`, name, namespace))
		if err := a.Add(ctx, artifact.RoleVsix, namespace+"."+name+"-1.0.0.vsix", data); err != nil {
			return index.Entry{}, err
		}
		if err := a.Add(ctx, artifact.RoleUpstreamMetadata, "openvsx.json", []byte(`{"synthetic":true}`)); err != nil {
			return index.Entry{}, err
		}
		if err := a.Add(ctx, artifact.RoleManifest, "package.json", pkg); err != nil {
			return index.Entry{}, err
		}
		published := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		sum := index.SHA256Hex(data)
		m, err := a.Put(ctx, artifact.ArtifactInfo{ID: id, Version: "1.0.0", Platform: index.Universal, Created: published, UpstreamSHA256: sum})
		if err != nil {
			return index.Entry{}, err
		}
		return index.Entry{ID: id, Version: "1.0.0", Platform: index.Universal, Published: published, VsixSHA256: sum,
			VsixSize: size, Engine: "^1.80.0", DisplayName: name, ManifestDigest: m.Digest, ManifestSize: m.Size}, nil
	}
}
