package artifact

import (
	"context"
	"fmt"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
)

// EntryManifest reads the manifest the catalog pins for e (by digest and
// size, verified), parses it strictly and checks that it is e's (see
// CheckEntry).
func EntryManifest(ctx context.Context, s store.Store, e *index.Entry) (*Manifest, error) {
	raw, err := store.ReadBlob(ctx, s, Repo(e.ID), e.ManifestDigest, e.ManifestSize, MaxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("manifest of %s: %w", e, err)
	}
	m, err := ParseManifest(raw)
	if err != nil {
		return nil, fmt.Errorf("manifest of %s: %w", e, err)
	}
	if err := CheckEntry(m, e); err != nil {
		return nil, err
	}
	return m, nil
}

// CheckEntry reports whether manifest m is the one catalog entry e names:
// the same ID, version and platform, and a vsix layer with the entry's
// size and sha256.
func CheckEntry(m *Manifest, e *index.Entry) error {
	in := m.Info
	if !in.ID.Equal(e.ID) || in.Version != e.Version || in.Platform != e.Platform {
		return fmt.Errorf("manifest %s is for %s@%s@%s, not %s", m.Digest, in.ID, in.Version, in.Platform, e)
	}
	l, ok := m.Layer(RoleVsix)
	if !ok {
		return fmt.Errorf("manifest %s of %s has no vsix layer", m.Digest, e)
	}
	if want := VsixDigest(e); l.Digest != want || l.Size != e.VsixSize {
		return fmt.Errorf("manifest %s of %s: vsix layer %s (%d bytes); the catalog pins %s (%d bytes)", m.Digest, e, l.Digest, l.Size, want, e.VsixSize)
	}
	return nil
}

// VsixDigest returns the digest of e's vsix blob, "sha256:<hex>".
func VsixDigest(e *index.Entry) string { return index.SHA256Digest(e.VsixSHA256) }
