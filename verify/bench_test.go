package verify_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/verify"
	"github.com/airvsx/airvsx/verify/internal/benchreg"
)

// BenchmarkRegistry verifies a registry made at run time (BENCH_ENTRIES
// entries of BENCH_SIZE random bytes, default 40 × 5 MiB; BENCH_SIGNED=1
// signs them upstream, as Open VSX does) and reports its throughput. scripts/bench-verify.sh compares
// the CLI with openssl on a 2 GB registry.
func BenchmarkRegistry(b *testing.B) {
	o, res, _ := benchRegistry(b, os.Getenv("BENCH_SIGNED") == "1")
	for _, mode := range []struct {
		name   string
		noRead bool
	}{{"read-data", false}, {"no-read-data", true}} {
		b.Run(mode.name, func(b *testing.B) {
			o := o
			o.NoReadData = mode.noRead
			b.SetBytes(res.Bytes)
			for b.Loop() {
				rep, err := verify.Registry(b.Context(), o)
				if err != nil || !rep.OK() {
					b.Fatalf("verify: %v %v", err, rep.Problems)
				}
			}
		})
	}
}

// benchRegistry makes the registry the benchmarks verify (BENCH_ENTRIES
// entries of BENCH_SIZE bytes, upstream-signed when signed) and returns
// the options that verify it with its key, what benchreg made and the
// number of entries.
func benchRegistry(b *testing.B, signed bool) (verify.RegistryOptions, *benchreg.Result, int) {
	b.Helper()
	entries, size := envInt(b, "BENCH_ENTRIES", 40), envInt(b, "BENCH_SIZE", 5<<20)
	dir := b.TempDir()
	res, err := benchreg.Make(b.Context(), filepath.Join(dir, "reg"), filepath.Join(dir, "bench"), benchreg.Options{Entries: entries, Size: int64(size), Signed: signed})
	if err != nil {
		b.Fatal(err)
	}
	key, err := trust.LoadVerifier(res.PubKey)
	if err != nil {
		b.Fatal(err)
	}
	st := storetest.OpenDir(b, filepath.Join(dir, "reg"), dirstore.Options{ReadOnly: true})
	b.Cleanup(func() { st.Close() })
	return verify.RegistryOptions{Store: st, Anchor: trust.Anchor{Key: key}}, res, entries
}

func envInt(b *testing.B, name string, def int) int {
	if s := os.Getenv(name); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		return n
	}
	return def
}
