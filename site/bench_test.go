//go:build unix

package site_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"

	"github.com/chromedp/chromedp"

	"github.com/airvsx/airvsx/site"
	"github.com/airvsx/airvsx/site/sitetest"
)

// BenchmarkSite renders a synthetic registry (SITE_BENCH_N extensions,
// default 10,000, two versions each, 5 KB READMEs) and reports:
//
//	render:  the wall time of one render (ns/op), and peak-RSS-MB of a
//	         separate process that only renders (goal < 10 s, < 500 MB);
//	search:  the time from typing a query to the updated list laid out,
//	         in Chromium on the home page of that site (goal < 50 ms).
//
// The registry is built straight through the store API (on /dev/shm when
// there is one, where fsync is free), not by sync.
func BenchmarkSite(b *testing.B) {
	n := 10_000
	if s := os.Getenv("SITE_BENCH_N"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		n = v
	}
	scratch := b.TempDir()
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		d, err := os.MkdirTemp("/dev/shm", "site-bench-")
		if err == nil {
			scratch = d
			b.Cleanup(func() { os.RemoveAll(d) })
		}
	}
	reg := filepath.Join(scratch, "registry")
	out := filepath.Join(scratch, "site")
	// SITE_BENCH_REGISTRY keeps the registry between runs (it is built
	// there when absent); the site is then rendered unverified.
	keep := os.Getenv("SITE_BENCH_REGISTRY")
	if keep != "" {
		reg = keep
	}
	sv, _, err := sitetest.NewSigner()
	if err != nil {
		b.Fatal(err)
	}
	opts := site.Options{Out: out, Anchor: trust.Anchor{Key: sv}}
	if _, err := os.Stat(reg); keep != "" && err == nil {
		opts = site.Options{Out: out, Unverified: true}
		b.Logf("using the registry in %s", reg)
	} else {
		start := time.Now()
		exts := sitetest.Synthetic(n, 2, 5000, 1)
		if _, err := sitetest.Build(b.Context(), reg, exts, sv, sitetest.Options{}); err != nil {
			b.Fatal(err)
		}
		b.Logf("built a registry of %d extensions × 2 versions in %v", n, time.Since(start).Round(time.Millisecond))
	}

	b.Run("render", func(b *testing.B) {
		st := storetest.OpenDir(b, reg, dirstore.Options{ReadOnly: true})
		defer st.Close()
		for b.Loop() {
			if _, err := site.Render(b.Context(), st, opts); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		wall, rss := renderChild(b, reg, filepath.Join(scratch, "child-site"))
		b.ReportMetric(wall.Seconds(), "child-s")
		b.ReportMetric(float64(rss)/1024, "peak-RSS-MB")
	})

	b.Run("search", func(b *testing.B) {
		if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
			if _, err := renderOnce(b, reg, out); err != nil {
				b.Fatal(err)
			}
		}
		tb := newTab(b)
		t0 := time.Now()
		tb.run(chromedp.Navigate("file://"+out+"/index.html"), chromedp.WaitVisible(chromedp.ID("q")))
		b.Logf("home page with %d cards loaded in %v", n, time.Since(t0).Round(time.Millisecond))
		queries := []string{"pub42.", "python", "lint fo", "golf", "pub7.alpha", "zulu yaml", "x", "deploy docker"}
		var times []float64
		for b.Loop() {
			times = append(times, get(tb, chromedp.Evaluate[[]float64](searchTiming(queries)))...)
		}
		slices.Sort(times)
		b.ReportMetric(times[len(times)/2], "median-ms/query")
		b.ReportMetric(times[len(times)*95/100], "p95-ms/query")
		b.ReportMetric(times[len(times)-1], "max-ms/query")
	})
}

// searchTiming is a script that types each query into the search box and
// returns, per query, the milliseconds until the list is laid out.
func searchTiming(queries []string) string {
	js := `(function () { var q = document.getElementById("q"); var out = []; var qs = [`
	for i, s := range queries {
		if i > 0 {
			js += ","
		}
		js += strconv.Quote(s)
	}
	return js + `];
	for (var i = 0; i < qs.length; i++) {
		var t0 = performance.now();
		q.value = qs[i];
		q.dispatchEvent(new Event("input"));
		void document.body.offsetHeight;
		out.push(performance.now() - t0);
		q.value = ""; q.dispatchEvent(new Event("input")); void document.body.offsetHeight;
	}
	return out; })()`
}

func renderOnce(tb testing.TB, reg, out string) (*site.Result, error) {
	st, err := dirstore.Open(reg, dirstore.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return site.Render(tb.Context(), st, site.Options{Out: out, Unverified: true})
}

// renderChild renders in a new process (this test binary running
// TestRenderChild) and returns its wall time and peak RSS in KiB.
func renderChild(b *testing.B, reg, out string) (time.Duration, int64) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestRenderChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SITE_BENCH_CHILD_REGISTRY="+reg, "SITE_BENCH_CHILD_OUT="+out)
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("render child: %v", err)
	}
	wall := time.Since(start)
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return wall, 0
	}
	return wall, ru.Maxrss
}

// TestRenderChild is the process renderChild measures; it does nothing
// unless SITE_BENCH_CHILD_REGISTRY is set.
func TestRenderChild(t *testing.T) {
	reg := os.Getenv("SITE_BENCH_CHILD_REGISTRY")
	if reg == "" {
		t.Skip("only run by BenchmarkSite")
	}
	if _, err := renderOnce(t, reg, os.Getenv("SITE_BENCH_CHILD_OUT")); err != nil {
		t.Fatal(err)
	}
}
