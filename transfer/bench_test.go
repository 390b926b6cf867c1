package transfer_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/internal/synthreg"
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
