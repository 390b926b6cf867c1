package sandbox

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/airvsx/airvsx/hostlaunch/host"
)

// BenchmarkSandboxOverhead measures what the kernel sandbox adds: host
// cold start (launch to the first command's result) and a command's round
// trip on an active extension, each with node started directly and
// through the sandbox helper (namespaces, remounts, Landlock, seccomp,
// rlimits, permission flags), alternately so both see the same load. It
// reports the medians as shipped (seat belt on) and what the kernel
// layers alone add. Goals: < 50 ms on cold start,
// < 0.2 ms on a round trip.
func BenchmarkSandboxOverhead(b *testing.B) {
	sb := newSandbox(b)
	root := b.TempDir()
	e := testExt(b, root, "a.bench", "return a[0];")
	if err := os.Mkdir(root+"/ws", 0o755); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	// The kernel layers alone are compared with the seat belt off on both
	// sides: with it on, node's permission flags make the host skip the
	// import() hook's loader thread, which costs more than the sandbox.
	modes := []struct {
		cmd      host.CommandFunc
		unbelted bool
	}{{host.Direct, false}, {sb.Command, false}, {host.Direct, true}, {sb.Command, true}}
	var cold, rtt [4][]time.Duration
	for b.Loop() {
		for i, m := range modes {
			t0 := time.Now()
			h, err := host.Launch(ctx, host.Options{Extensions: []host.Extension{e}, StorageDir: root + "/storage", Workspace: []string{root + "/ws"}, Command: m.cmd, InsecureNoSeatBelt: m.unbelted})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := h.ExecuteCommand(ctx, "a.bench.cmd", 0); err != nil {
				b.Fatal(err)
			}
			cold[i] = append(cold[i], time.Since(t0))
			for range 50 {
				t1 := time.Now()
				if _, err := h.ExecuteCommand(ctx, "a.bench.cmd", 1); err != nil {
					b.Fatal(err)
				}
				rtt[i] = append(rtt[i], time.Since(t1))
			}
			h.Close(ctx)
		}
	}
	med := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	us := func(d time.Duration) float64 { return float64(d.Microseconds()) }
	c := [4]time.Duration{med(cold[0]), med(cold[1]), med(cold[2]), med(cold[3])}
	r := [4]time.Duration{med(rtt[0]), med(rtt[1]), med(rtt[2]), med(rtt[3])}
	b.ReportMetric(ms(c[0]), "cold-direct-ms")
	b.ReportMetric(ms(c[1]), "cold-sandbox-ms")
	b.ReportMetric(ms(c[3]-c[2]), "cold-kernel-added-ms")
	b.ReportMetric(us(r[0]), "rtt-direct-µs")
	b.ReportMetric(us(r[1]), "rtt-sandbox-µs")
	b.ReportMetric(us(r[3]-r[2]), "rtt-kernel-added-µs")
}
