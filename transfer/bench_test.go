package transfer_test

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/internal/synthreg"
	"github.com/airvsx/airvsx/transfer"
)

// benchEntry stores entry i: a vsix of size random bytes and two small
// layers (copy checks hashes, not the package rules).
func benchEntry(size int64) synthreg.EntryFunc {
	return func(ctx context.Context, st store.Store, i int) (index.Entry, error) {
		name := fmt.Sprintf("ext-%04d", i)
		id := index.ID{Namespace: "bench", Name: name}
		var seed [32]byte
		seed[0], seed[1] = byte(i), byte(i>>8)
		data := make([]byte, size)
		mrand.NewChaCha8(seed).Read(data)
		a := synthreg.NewArtifact(st, id)
		if err := a.Add(ctx, store.RoleVsix, "bench."+name+"-1.0.0.vsix", data); err != nil {
			return index.Entry{}, err
		}
		if err := a.Add(ctx, store.RoleUpstreamMetadata, "openvsx.json", []byte(`{"bench":true}`)); err != nil {
			return index.Entry{}, err
		}
		if err := a.Add(ctx, store.RoleManifest, "package.json", []byte(`{"name":"`+name+`"}`)); err != nil {
			return index.Entry{}, err
		}
		published := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		sum := strings.TrimPrefix(index.DigestBytes(data), "sha256:")
		m, err := a.Put(ctx, store.ArtifactInfo{ID: id, Version: "1.0.0", Platform: index.Universal, Created: published, UpstreamSHA256: sum})
		if err != nil {
			return index.Entry{}, err
		}
		return index.Entry{ID: id, Version: "1.0.0", Platform: index.Universal, Published: published, VsixSHA256: sum,
			VsixSize: size, Engine: "^1.80.0", DisplayName: name, ManifestDigest: m.Digest, ManifestSize: m.Size}, nil
	}
}

// BenchmarkCopyDir copies a directory registry of 40 entries of 4 MiB
// (160 MiB) to a new directory: the source verified, every blob hashed
// and written durably. scripts/bench-copy.sh compares a 2 GB copy with
// cp -r.
func BenchmarkCopyDir(b *testing.B) {
	ctx := b.Context()
	work := b.TempDir()
	signer, _, err := synthreg.NewSigner()
	if err != nil {
		b.Fatal(err)
	}
	src := filepath.Join(work, "src")
	const entries, size = 40, 4 << 20
	if _, err := synthreg.Build(ctx, src, synthreg.Options{Entries: entries, Signer: signer}, benchEntry(size)); err != nil {
		b.Fatal(err)
	}
	s, err := store.OpenDir(src, store.DirOptions{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.SetBytes(entries * size)
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		dir := filepath.Join(work, fmt.Sprint("dst-", i))
		d, err := store.OpenDir(dir, store.DirOptions{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := transfer.Copy(ctx, s, d, transfer.Options{Anchor: trust.Anchor{Key: signer}}); err != nil {
			b.Fatal(err)
		}
		if err := d.Close(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.RemoveAll(dir)
		b.StartTimer()
	}
}
