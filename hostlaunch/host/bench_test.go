package host

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/airvsx/airvsx/testkit/citool"
)

// The benchmarks report the goals; they assert none (a loaded machine is
// slow). Each fails only when a figure is off by an order of magnitude,
// which is a bug and not noise.

// BenchmarkColdStart measures a host from nothing to the first command's
// result with the full vscode API: write the scripts, start node,
// handshake, initialize (Launch), then activate the extension on the
// command and run it (ExecuteCommand). Close is outside the timing. It
// reports the median as cold-ms (ns/op is the mean), and the median of
// its first part, Launch to ready, as launch-ms. Goal: < 300 ms; fails
// over 3 s.
func BenchmarkColdStart(b *testing.B) {
	citool.Need(b, "node")
	root := b.TempDir()
	e := ext(b, root, "a.bench", command("a.bench", "return 1;"))
	ctx := context.Background()
	var times, launched []time.Duration
	for b.Loop() {
		start := time.Now()
		h, err := Launch(ctx, Options{Extensions: []Extension{e}, StorageDir: root + "/storage"})
		if err != nil {
			b.Fatal(err)
		}
		launched = append(launched, time.Since(start))
		r, err := h.ExecuteCommand(ctx, "a.bench.cmd")
		if err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		b.StopTimer()
		times = append(times, d)
		if string(r.Value) != "1" {
			b.Fatalf("a.bench.cmd = %s; want 1", r.Value)
		}
		h.Close(ctx)
		b.StartTimer()
	}
	p50 := percentileOf(times, 50)
	b.ReportMetric(inMS(p50), "cold-ms")
	b.ReportMetric(inMS(percentileOf(launched, 50)), "launch-ms")
	if p50 > 3*time.Second {
		b.Fatalf("cold start to the first command's result: median %v; the goal is 300 ms", p50)
	}
}

// roundTrips is how many commands one iteration of
// BenchmarkCommandRoundTrip runs: enough for a p99 at -benchtime 3x.
const roundTrips = 100

// BenchmarkCommandRoundTrip measures one command on an active extension,
// launcher to host and back (ExecuteCommand with one argument, the
// handler returning it). Each iteration runs roundTrips commands; it
// reports the per-command p50 and p99 (ns/op is per iteration). Goal:
// p50 < 1 ms; fails over 100 ms.
func BenchmarkCommandRoundTrip(b *testing.B) {
	root := b.TempDir()
	e := ext(b, root, "a.bench", command("a.bench", "return a[0];"))
	h := launch(b, root, Options{}, e)
	ctx := context.Background()
	run(b, h, "a.bench.cmd", 0) // activation is not measured
	var times []time.Duration
	for b.Loop() {
		for range roundTrips {
			start := time.Now()
			r, err := h.ExecuteCommand(ctx, "a.bench.cmd", 1)
			d := time.Since(start)
			if err != nil {
				b.Fatal(err)
			}
			if string(r.Value) != "1" {
				b.Fatalf("a.bench.cmd 1 = %s; want 1", r.Value)
			}
			times = append(times, d)
		}
	}
	p50 := percentileOf(times, 50)
	b.ReportMetric(inUS(p50), "p50-µs")
	b.ReportMetric(inUS(percentileOf(times, 99)), "p99-µs")
	if p50 > 100*time.Millisecond {
		b.Fatalf("command round trip: p50 %v; the goal is 1 ms", p50)
	}
}

// percentileOf returns the p-th percentile of times (sorting them).
func percentileOf(times []time.Duration, p int) time.Duration {
	if len(times) == 0 {
		return 0
	}
	slices.Sort(times)
	return times[min(len(times)-1, len(times)*p/100)]
}

func inMS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func inUS(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

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
