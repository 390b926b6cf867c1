package transfer_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/gitstore"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/gittest"
	"github.com/airvsx/airvsx/testkit/synthreg"
	"github.com/airvsx/airvsx/transfer"
)

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
	if _, err := synthreg.Build(ctx, src, synthreg.Options{Entries: entries, Signer: signer}, synthreg.RandomEntry("bench", size)); err != nil {
		b.Fatal(err)
	}
	s, err := dirstore.Open(src, dirstore.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.SetBytes(entries * size)
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		dir := filepath.Join(work, fmt.Sprint("dst-", i))
		d, err := dirstore.Open(dir, dirstore.Options{Create: true})
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

// BenchmarkCopyGitLargeMetadata copies from a git registry whose head
// adds n files under metadata/targets/ that look like catalogs (names the
// signed metadata could name, so each is read and hashed before it is
// left out as stray) to a new directory: once in a commit the registry's
// key signed, where each file is found in the tree indexed once, and once
// in a commit nobody signed, refused before its tree is read. Before the
// tree was indexed, each lookup scanned the whole directory: 40k files
// took seconds, 500k over ten minutes.
func BenchmarkCopyGitLargeMetadata(b *testing.B) {
	reg := demoreg.Get(b)
	for _, bc := range []struct {
		n      int
		signed bool
	}{{10_000, true}, {40_000, true}, {40_000, false}, {500_000, false}} {
		n, signed := bc.n, bc.signed
		b.Run(fmt.Sprintf("files=%d/signed=%v", n, signed), func(b *testing.B) {
			path := largeMetadataGit(b, reg, n, signed)
			src := openGit(b, path, nil)
			runtime.GC()
			b.ResetTimer()
			for i := range b.N {
				dst := openDir(b, filepath.Join(b.TempDir(), fmt.Sprint("dst-", i)))
				rep, err := transfer.Copy(b.Context(), src, dst, options(reg))
				switch {
				case signed && err != nil:
					b.Fatal(err)
				case signed && rep.Stray < n:
					b.Fatalf("%d stray files left out; want %d", rep.Stray, n)
				case !signed && !errors.Is(err, trust.ErrHistorySignature):
					b.Fatalf("Copy = %v; want ErrHistorySignature", err)
				}
			}
		})
	}
}

// largeMetadataGit makes a git registry of the demo registry with n files
// under metadata/targets/ added on top, in a commit the registry's key
// signed or in one nobody signed.
func largeMetadataGit(b *testing.B, reg *demoreg.Registry, n int, signed bool) string {
	b.Helper()
	path := gitFromDir(b, reg.Signer, reg.Dir)
	files := make(map[string][]byte, n)
	for i := range n {
		files[fmt.Sprintf("metadata/targets/%064x.catalog.json", i)] = []byte("{}")
	}
	if !signed {
		gittest.CommitOnTop(b, path, files)
		return path
	}
	st, err := gitstore.Open(path, gitstore.Options{Write: true, Signer: reg.Signer})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	for p, data := range files {
		if err := st.WriteMetadata(b.Context(), strings.TrimPrefix(p, "metadata/"), data); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.Commit(b.Context(), "many files"); err != nil {
		b.Fatal(err)
	}
	return path
}
