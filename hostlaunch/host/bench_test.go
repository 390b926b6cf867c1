package host

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/airvsx/airvsx/internal/citool"
)

// BenchmarkColdStart measures a host from nothing to the first command's
// result: write the scripts, start node, handshake, initialize, activate
// on the command, run it. Close is outside the timing. Goal: < 300 ms.
func BenchmarkColdStart(b *testing.B) {
	citool.Need(b, "node")
	root := b.TempDir()
	e := ext(b, root, "a.bench", command("a.bench", "return 1;"))
	ctx := context.Background()
	for b.Loop() {
		h, err := Launch(ctx, Options{Extensions: []Extension{e}, StorageDir: root + "/storage"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := h.ExecuteCommand(ctx, "a.bench.cmd"); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		h.Close(ctx)
		b.StartTimer()
	}
}

// BenchmarkCommandRoundTrip measures one command on an active extension,
// launcher to host and back; it reports the p50 and p99. Goal: p50 < 1 ms.
func BenchmarkCommandRoundTrip(b *testing.B) {
	root := b.TempDir()
	e := ext(b, root, "a.bench", command("a.bench", "return a[0];"))
	h := launch(b, root, Options{}, e)
	ctx := context.Background()
	run(b, h, "a.bench.cmd", 0) // activation is not measured
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := h.ExecuteCommand(ctx, "a.bench.cmd", 1); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkStartupScaling measures cold start to a command's result with
// 100 installed, lazily activated extensions against 1 (goal: < 1.5×):
// extensions that are not asked for must cost next to nothing. It
// reports both times and their ratio.
func BenchmarkStartupScaling(b *testing.B) {
	citool.Need(b, "node")
	root := b.TempDir()
	exts := make([]Extension, 100)
	for i := range exts {
		id := fmt.Sprintf("a.lazy%03d", i)
		exts[i] = ext(b, root, id, command(id, "return 1;"))
	}
	ctx := context.Background()
	start := func(es []Extension) time.Duration {
		t0 := time.Now()
		h, err := Launch(ctx, Options{Extensions: es, StorageDir: root + "/storage"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := h.ExecuteCommand(ctx, "a.lazy000.cmd"); err != nil {
			b.Fatal(err)
		}
		d := time.Since(t0)
		h.Close(ctx)
		return d
	}
	var one, hundred time.Duration
	for b.Loop() { // alternately, so both see the same load
		one += start(exts[:1])
		hundred += start(exts)
	}
	b.ReportMetric(float64(one.Milliseconds())/float64(b.N), "1ext-ms")
	b.ReportMetric(float64(hundred.Milliseconds())/float64(b.N), "100ext-ms")
	b.ReportMetric(float64(hundred)/float64(one), "ratio")
}
