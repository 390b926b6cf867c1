package verify_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/verify"
	"github.com/airvsx/airvsx/verify/internal/benchreg"
)

// BenchmarkRegistryRepeat is BenchmarkRegistry's read-data case for an
// upstream-signed registry verified before with the same state directory:
// the signature verdicts come from its cache, every blob is still hashed
// (BENCH_ENTRIES, BENCH_SIZE as there).
func BenchmarkRegistryRepeat(b *testing.B) {
	entries, size := envInt(b, "BENCH_ENTRIES", 40), envInt(b, "BENCH_SIZE", 5<<20)
	dir := b.TempDir()
	res, err := benchreg.Make(b.Context(), filepath.Join(dir, "reg"), filepath.Join(dir, "bench"), benchreg.Options{Entries: entries, Size: int64(size), Signed: true})
	if err != nil {
		b.Fatal(err)
	}
	key, err := trust.LoadVerifier(res.PubKey)
	if err != nil {
		b.Fatal(err)
	}
	st, err := store.OpenDir(filepath.Join(dir, "reg"), store.DirOptions{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	state := filepath.Join(dir, "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		b.Fatal(err)
	}
	o := verify.RegistryOptions{Store: st, Anchor: trust.Anchor{Key: key}, State: trust.OpenStateDir(state)}
	if rep, err := verify.Registry(b.Context(), o); err != nil || !rep.OK() {
		b.Fatalf("verify: %v %v", err, rep.Problems)
	}
	b.SetBytes(res.Bytes)
	for b.Loop() {
		rep, err := verify.Registry(b.Context(), o)
		if err != nil || !rep.OK() || rep.Summary.SignaturesCached != entries {
			b.Fatalf("verify: %v %v %+v", err, rep.Problems, rep.Summary)
		}
	}
}
