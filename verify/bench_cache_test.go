package verify_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/verify"
)

// BenchmarkRegistryRepeat is BenchmarkRegistry's read-data case for an
// upstream-signed registry verified before with the same state directory:
// the signature verdicts come from its cache, every blob is still hashed
// (BENCH_ENTRIES, BENCH_SIZE as there).
func BenchmarkRegistryRepeat(b *testing.B) {
	o, res, entries := benchRegistry(b, true)
	state := filepath.Join(b.TempDir(), "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		b.Fatal(err)
	}
	o.State = trust.OpenStateDir(state)
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
