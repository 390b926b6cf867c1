//go:build linux

package mirror_test

// The sync benchmark of issue 3: mirror 200 extensions (about 500 MB) from
// the fixture upstream with 50 ms added to every response, and compare the
// wall time with the bound
//
//	max(bytes / bandwidth, requests × latency / concurrency)
//
// where bandwidth is the loopback throughput measured once by downloading
// every package at the same concurrency without latency, and requests and
// bytes are what the client actually sent and read (its egress log).
//
// "inproc" runs call mirror.Sync in this process. "binary" runs the real
// airvsx sync as a child process against the same in-process fixture
// server and also report its peak RSS, which must not grow with the number
// or the size of the packages: BenchmarkSync100 syncs half the bytes,
// BenchmarkSyncLargeFiles the same bytes in 4× larger packages.
//
// Peak RSS is the child's VmHWM, polled from /proc while it runs, not
// ProcessState.SysUsage's ru_maxrss: os/exec starts children with
// CLONE_VM|CLONE_VFORK, so the kernel records the parent's RSS high-water
// mark (here the fixtures, hundreds of MB) as the child's at exec, and
// ru_maxrss reports that instead of the child's own peak.
//
// The packages are generated at run time (nothing is committed) and held in
// memory by the fixture server; every run writes its registry to a
// b.TempDir. Run them with scripts/bench-sync.sh, or:
//
//	go test -run '^$' -bench '^BenchmarkSync' -benchtime 1x -timeout 30m ./mirror/
//
// AIRVSX_BENCH_BIN names a prebuilt airvsx binary; without it the binary is
// built with go build. -short skips them.

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/index/vsix/vsixtest"
	"github.com/airvsx/airvsx/mirror"
	"github.com/airvsx/airvsx/mirror/openvsx"
	"github.com/airvsx/airvsx/policies"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
)

const (
	// benchLatency is added to every fixture response.
	benchLatency = 50 * time.Millisecond
	// benchRate is the client's rate limit: high enough never to be the
	// bottleneck (the default, openvsx.DefaultRate, is 2 requests/s).
	benchRate = 1000
	// benchNamespace is the publisher of the generated extensions.
	benchNamespace = "bench-pub"
)

// benchPolicy selects every generated extension through upstream's
// sitemap, and requires the fixture server's signatures.
const benchPolicy = `version: 1
editor: 1.95.0
extensions:
  - id: bench-pub.*
requireUpstreamSignature: true
catalog:
  expires: 90d
`

// benchSpec is a set of generated extensions: n packages of minSize plus
// up to spread random bytes each.
type benchSpec struct {
	name          string
	n             int
	minSize       int
	spread        int
	concurrencies []int
	inproc        bool
}

const mib = 1 << 20

var (
	spec200 = benchSpec{name: "200x2.5MiB", n: 200, minSize: 2 * mib, spread: mib, concurrencies: []int{4, 8}, inproc: true}
	spec100 = benchSpec{name: "100x2.5MiB", n: 100, minSize: 2 * mib, spread: mib, concurrencies: []int{4, 8}}
	specBig = benchSpec{name: "50x10MiB", n: 50, minSize: 8 * mib, spread: 4 * mib, concurrencies: []int{4, 8}}
)

// BenchmarkSync200 syncs 200 extensions, about 500 MB.
func BenchmarkSync200(b *testing.B) { benchSync(b, spec200) }

// BenchmarkSync100 syncs the first 100 of them, half the bytes: peak RSS
// must stay where BenchmarkSync200 has it.
func BenchmarkSync100(b *testing.B) { benchSync(b, spec100) }

// BenchmarkSyncLargeFiles syncs the same bytes as BenchmarkSync200 in 50
// packages of about 10 MiB: peak RSS must not grow with the package size.
func BenchmarkSyncLargeFiles(b *testing.B) { benchSync(b, specBig) }

func benchSync(b *testing.B, spec benchSpec) {
	if testing.Short() {
		b.Skip("a sync of hundreds of megabytes; skipped with -short")
	}
	set := loadBenchSet(b, spec)
	bin := benchBinary(b)
	pol, err := policies.Parse("bench.yaml", []byte(benchPolicy))
	if err != nil {
		b.Fatal(err)
	}
	for _, conc := range spec.concurrencies {
		bw := loopbackBandwidth(b, spec, set, conc)
		if spec.inproc {
			b.Run(fmt.Sprintf("inproc/conc=%d", conc), func(b *testing.B) {
				for range b.N {
					r := syncInProcess(b, set, pol, conc)
					r.report(b, spec, conc, bw, "inproc")
				}
			})
		}
		b.Run(fmt.Sprintf("binary/conc=%d", conc), func(b *testing.B) {
			for range b.N {
				r := syncBinary(b, bin, set, conc)
				r.report(b, spec, conc, bw, "binary")
			}
		})
	}
}

// benchSet is a generated set of extensions served by a fixture handler
// with benchLatency.
type benchSet struct {
	fx    openvsxtest.Fixtures
	bytes int64 // sum of the package sizes
	h     http.Handler
}

var benchSets sync.Map // benchSpec.name → *benchSet

// loadBenchSet generates spec's packages (once per process) into a
// temporary directory, loads them as fixtures and removes the directory.
func loadBenchSet(b *testing.B, spec benchSpec) *benchSet {
	b.Helper()
	if s, ok := benchSets.Load(spec.name); ok {
		return s.(*benchSet)
	}
	start := time.Now()
	fx := genFixtures(b, spec)
	s := &benchSet{fx: fx}
	for _, f := range fx {
		s.bytes += int64(len(f.VSIX))
	}
	h, err := openvsxtest.NewHandler(fx, openvsxtest.Options{Latency: benchLatency, EagerETags: true}, func(r *http.Request) {
		b.Errorf("fixture server: no fixture for %s", r.URL)
	})
	if err != nil {
		b.Fatal(err)
	}
	s.h = h
	b.Logf("generated, loaded and signed %d packages (%s) in %s", len(fx), mb(s.bytes), time.Since(start).Round(time.Millisecond))
	benchSets.Store(spec.name, s)
	return s
}

func genFixtures(b *testing.B, spec benchSpec) openvsxtest.Fixtures {
	b.Helper()
	dir, err := os.MkdirTemp("", "airvsx-bench-fixtures-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for i := range spec.n {
		name := fmt.Sprintf("ext-%03d", i)
		size := spec.minSize + int(rand.New(rand.NewPCG(uint64(i), uint64(spec.minSize))).Int64N(int64(spec.spread)))
		data, err := benchVSIX(name, "1.0.0", size, uint64(i))
		if err != nil {
			b.Fatal(err)
		}
		file := filepath.Join(dir, fmt.Sprintf("%s.%s-1.0.0.vsix", benchNamespace, name))
		if err := os.WriteFile(file, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	fx, err := openvsxtest.LoadFixtures(dir)
	if err != nil {
		b.Fatal(err)
	}
	return fx
}

// benchModified is every entry's time, and so each version's publish time.
var benchModified = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// benchVSIX builds a valid package of about size bytes: the manifests, a
// readme, a license and a stored payload of random bytes (so building it
// costs no compression and a sync's checks see incompressible data).
func benchVSIX(name, version string, size int, seed uint64) ([]byte, error) {
	files := []struct {
		name string
		data string
	}{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="utf-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension=".json" ContentType="application/json"/><Default Extension=".md" ContentType="text/markdown"/><Default Extension=".txt" ContentType="text/plain"/><Default Extension=".bin" ContentType="application/octet-stream"/><Default Extension=".vsixmanifest" ContentType="text/xml"/></Types>
`},
		{"extension.vsixmanifest", vsixtest.VSIXManifest(benchNamespace, name, version,
			vsixtest.Asset{Type: vsixtest.AssetReadme, Path: "extension/README.md"},
			vsixtest.Asset{Type: vsixtest.AssetLicense, Path: "extension/LICENSE.txt"})},
		{"extension/LICENSE.txt", "MIT License\n"},
		{"extension/README.md", "# " + name + "\n\nA generated extension for the sync benchmark.\n"},
		{"extension/package.json", fmt.Sprintf(`{
  "name": %q,
  "displayName": "Bench %[1]s",
  "description": "A generated extension for the sync benchmark.",
  "publisher": %q,
  "version": %q,
  "license": "MIT",
  "engines": { "vscode": "^1.80.0" },
  "categories": ["Other"]
}
`, name, benchNamespace, version)},
	}
	var buf bytes.Buffer
	buf.Grow(size + 4096)
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: benchModified})
		if err != nil {
			return nil, err
		}
		if _, err := io.WriteString(w, f.data); err != nil {
			return nil, err
		}
	}
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "extension/payload.bin", Method: zip.Store, Modified: benchModified})
	if err != nil {
		return nil, err
	}
	var key [32]byte
	key[0], key[1] = byte(seed), byte(seed>>8)
	payload := make([]byte, max(size-buf.Len()-1024, 0))
	rand.NewChaCha8(key).Read(payload)
	if _, err := w.Write(payload); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// loopbackBandwidth returns the bytes per second of downloading every
// package of set from a fixture server without latency, conc at a time,
// bodies discarded. It is measured once per set and concurrency.
func loopbackBandwidth(b *testing.B, spec benchSpec, set *benchSet, conc int) float64 {
	b.Helper()
	key := fmt.Sprint(spec.name, conc)
	if v, ok := bandwidths.Load(key); ok {
		return v.(float64)
	}
	// The same packages, unsigned: only the files are fetched, and the
	// server need not sign them again.
	fx := slices.Clone(set.fx)
	for i := range fx {
		fx[i].Unsigned = true
	}
	h, err := openvsxtest.NewHandler(fx, openvsxtest.Options{EagerETags: true}, nil)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	urls := make(chan string, len(set.fx))
	for _, f := range set.fx {
		urls <- fmt.Sprintf("%s/cdn/%s/%s/%s/%s.vsix", srv.URL, f.Namespace, f.Name, f.Version, f.FileBase())
	}
	close(urls)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		total int64
		errs  []error
	)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc}}
	start := time.Now()
	for range conc {
		wg.Go(func() {
			for u := range urls {
				resp, err := client.Get(u)
				if err == nil {
					var n int64
					n, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if err == nil && resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("GET %s: %s", u, resp.Status)
					}
					mu.Lock()
					total += n
					mu.Unlock()
				}
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if len(errs) > 0 {
		b.Fatal(errs[0])
	}
	bw := float64(total) / elapsed.Seconds()
	b.Logf("loopback bandwidth, concurrency %d: %s in %s = %.0f MB/s", conc, mb(total), elapsed.Round(time.Millisecond), bw/1e6)
	bandwidths.Store(key, bw)
	return bw
}

var bandwidths sync.Map // spec name and concurrency → bytes per second

// benchBinary returns AIRVSX_BENCH_BIN, or an airvsx built into a temp
// directory of b.
func benchBinary(b *testing.B) string {
	b.Helper()
	if p := os.Getenv("AIRVSX_BENCH_BIN"); p != "" {
		return p
	}
	out := filepath.Join(b.TempDir(), "airvsx")
	cmd := exec.Command("go", "build", "-o", out, "github.com/airvsx/airvsx/cmd/airvsx")
	if o, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, o)
	}
	return out
}

// syncResult is one measured sync.
type syncResult struct {
	start  time.Time // when the sync started
	wall   time.Duration
	rss    rssPeaks      // zero for in-process runs
	cpu    time.Duration // the child's user + system time; zero in process
	egress []openvsx.EgressRecord
	stored int
}

func syncInProcess(b *testing.B, set *benchSet, pol *policies.Policy, conc int) syncResult {
	b.Helper()
	b.StopTimer()
	srv := httptest.NewServer(set.h)
	defer srv.Close()
	dir := b.TempDir()
	c, err := openvsx.NewClient(openvsx.ClientOptions{BaseURL: srv.URL, Rate: benchRate})
	if err != nil {
		b.Fatal(err)
	}
	st := storetest.OpenDir(b, filepath.Join(dir, "registry"), dirstore.Options{Create: true})
	defer st.Close()
	priv, _, err := trust.GenerateKeyPair([]byte("pw"))
	if err != nil {
		b.Fatal(err)
	}
	sv, err := trust.ParseSigner("bench.key", priv, []byte("pw"))
	if err != nil {
		b.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	start := time.Now()
	rep, err := mirror.Sync(b.Context(), mirror.Options{Client: c, Policy: pol, Store: st, Signer: sv, Concurrency: conc, TempDir: tmp})
	wall := time.Since(start)
	b.StopTimer()
	if err != nil {
		b.Fatalf("Sync: %v", err)
	}
	if rep.Failed() {
		b.Fatalf("sync failed: quarantined %v, missing %v", rep.Quarantined, rep.Plan.Missing)
	}
	r := syncResult{start: start, wall: wall, egress: rep.Egress, stored: len(rep.Stored)}
	b.StartTimer()
	return r
}

func syncBinary(b *testing.B, bin string, set *benchSet, conc int) syncResult {
	b.Helper()
	b.StopTimer()
	srv := httptest.NewServer(set.h)
	defer srv.Close()
	dir := b.TempDir()
	polFile := filepath.Join(dir, "bench.yaml")
	if err := os.WriteFile(polFile, []byte(benchPolicy), 0o644); err != nil {
		b.Fatal(err)
	}
	if _, _, err := trust.WriteKeyPair(filepath.Join(dir, "bench"), []byte("pw")); err != nil {
		b.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		b.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(b.Context(), bin, "sync",
		"--upstream", srv.URL, "--policy", polFile, "--registry", filepath.Join(dir, "registry"),
		"--key", filepath.Join(dir, "bench.key"), "--rate", fmt.Sprint(benchRate),
		"--concurrency", fmt.Sprint(conc), "--json")
	cmd.Env = append(os.Environ(), "COSIGN_PASSWORD=pw", "TMPDIR="+tmp)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	b.StartTimer()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	peaks := watchRSS(cmd.Process.Pid)
	err := cmd.Wait()
	wall := time.Since(start)
	b.StopTimer()
	rss := peaks()
	if err != nil {
		b.Fatalf("airvsx sync: %v\n%s", err, tail(stderr.String(), 2000))
	}
	var rep mirror.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		b.Fatalf("airvsx sync --json: %v", err)
	}
	if rss.hwm == 0 {
		b.Fatal("no VmHWM read for the child")
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	r := syncResult{start: start, wall: wall, rss: rss, cpu: cpu, egress: rep.Egress, stored: len(rep.Stored)}
	b.StartTimer()
	return r
}

// rssPeaks are the peaks of a child's memory, in KiB: VmHWM (the peak
// RSS), and the largest RssAnon (heap, stacks) and RssFile (the binary's
// pages, mapped files) seen by the polls.
type rssPeaks struct{ hwm, anon, file int64 }

// watchRSS polls /proc/PID/status every 5 ms until the returned function
// is called, which stops the polling and returns the peaks seen. Growth
// after the last poll is missed; the polls are frequent and a sync's last
// moments (signing the catalog) are not where it peaks.
func watchRSS(pid int) func() rssPeaks {
	var (
		mu sync.Mutex
		p  rssPeaks
	)
	stop := make(chan struct{})
	done := make(chan struct{})
	file := fmt.Sprintf("/proc/%d/status", pid)
	go func() {
		defer close(done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			if b, err := os.ReadFile(file); err == nil {
				mu.Lock()
				for line := range strings.Lines(string(b)) {
					k, v, _ := strings.Cut(line, ":")
					kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
					if err != nil {
						continue
					}
					switch k {
					case "VmHWM":
						p.hwm = max(p.hwm, kib)
					case "RssAnon":
						p.anon = max(p.anon, kib)
					case "RssFile":
						p.file = max(p.file, kib)
					}
				}
				mu.Unlock()
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() rssPeaks {
		close(stop)
		<-done
		mu.Lock()
		defer mu.Unlock()
		return p
	}
}

// report prints and records one run against the bound.
func (r syncResult) report(b *testing.B, spec benchSpec, conc int, bw float64, how string) {
	b.Helper()
	if r.stored != spec.n {
		b.Fatalf("stored %d of %d", r.stored, spec.n)
	}
	var bytesRead int64
	var planReqs int
	var planEnd time.Time
	for _, e := range r.egress {
		bytesRead += e.Bytes
		if planEnd.IsZero() && isFetchURL(e.URL) {
			planEnd = e.Time
		}
		if planEnd.IsZero() {
			planReqs++
		}
	}
	reqs := len(r.egress)
	var planWall, before, after time.Duration
	if reqs > 0 {
		// Before the first request: starting, reading the registry.
		// After the last: the last packages stored, the catalog signed.
		before = r.egress[0].Time.Sub(r.start)
		after = r.start.Add(r.wall).Sub(r.egress[reqs-1].Time)
		if !planEnd.IsZero() {
			planWall = planEnd.Sub(r.egress[0].Time)
		}
	}
	bwTerm := float64(bytesRead) / bw
	latTerm := float64(reqs) * benchLatency.Seconds() / float64(conc)
	bound := max(bwTerm, latTerm)
	ratio := r.wall.Seconds() / bound
	b.SetBytes(bytesRead)
	b.ReportMetric(r.wall.Seconds(), "wall-s")
	b.ReportMetric(bound, "bound-s")
	b.ReportMetric(ratio, "wall/bound")
	b.ReportMetric(float64(reqs), "requests")
	b.ReportMetric(planWall.Seconds(), "plan-s")
	rss, cpu := "n/a (in process)", "n/a (in process)"
	if r.cpu > 0 {
		// CPU time depends less on the machine's load than wall time: it
		// tells a faster sync from a quieter machine.
		b.ReportMetric(r.cpu.Seconds(), "cpu-s")
		cpu = fmt.Sprintf("%.1fs", r.cpu.Seconds())
	}
	if r.rss.hwm > 0 {
		b.ReportMetric(float64(r.rss.hwm)/1024, "peakRSS-MiB")
		b.ReportMetric(float64(r.rss.anon)/1024, "peakAnon-MiB")
		rss = fmt.Sprintf("%.1f MiB (largest anon %.1f MiB, file-backed %.1f MiB)", float64(r.rss.hwm)/1024, float64(r.rss.anon)/1024, float64(r.rss.file)/1024)
	}
	load := "?"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			load = strings.Join(f[:3], " ")
		}
	}
	b.Logf("SUMMARY %s %s conc=%d: wall %.1fs, bound %.1fs = max(bytes/bw %.2fs [%s at %.0f MB/s], requests×latency/conc %.1fs [%d × %s / %d]), wall/bound %.2f; before the first request %.2fs, plan %.1fs (%d requests), fetch %.1fs, after the last request %.2fs; airvsx CPU %s; peak RSS %s; the default --rate %g would take ≥ %.0fs; load %s",
		spec.name, how, conc, r.wall.Seconds(), bound, bwTerm, mb(bytesRead), bw/1e6, latTerm, reqs, benchLatency, conc, ratio,
		before.Seconds(), planWall.Seconds(), planReqs, (r.wall - before - planWall).Seconds(), after.Seconds(), cpu, rss, openvsx.DefaultRate, float64(reqs)/openvsx.DefaultRate,
		load)
}

// isFetchURL tells the fetch phase's requests (package files, the HEAD
// that locates them, the public key) from the planner's (sitemap, query
// pages).
func isFetchURL(u string) bool {
	return strings.Contains(u, "/file/") || strings.Contains(u, "/cdn/") || strings.Contains(u, "/public-key/")
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
