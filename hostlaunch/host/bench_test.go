package host

import (
	"context"
	"slices"
	"testing"
	"time"
)

// BenchmarkColdStart measures a host from nothing to the first command's
// result: write the scripts, start node, handshake, initialize, activate
// on the command, run it. Close is outside the timing. Goal: < 300 ms.
func BenchmarkColdStart(b *testing.B) {
	needNode(b)
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
