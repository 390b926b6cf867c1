//go:build linux

package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/airvsx/airvsx/testkit/filetest"
)

// The launcher runs outside every sandbox layer: what a host can make it
// hold must be bounded. These floods are the ones that took it to 12 GB
// and 7.5 GB: 400 reads, none awaited, of an 8 MiB workspace file (no
// capability needed), and 150 fetches, none awaited, of a 16 MiB response
// (network granted, through the real network broker to a server on
// loopback), from a host in the sandbox. The launcher is a process of its
// own (hostprobe flood), as airvsx run is one.

// floodResult is what a flood did: requests served and refused for a
// limit (ERR_AIRVSX_BUSY), another error if any, and the launcher's peak
// resident memory (its whole life).
type floodResult struct {
	OK, Busy int
	Other    string
	PeakMiB  int64 `json:"peakMiB"`
}

// floodJS is the flooding extension: flood.fs and flood.fetch, each
// firing n requests at once and counting how they ended.
const floodJS = `
const count = async (n, f) => {
  const rs = await Promise.allSettled(Array.from({ length: n }, f));
  let ok = 0, busy = 0, other = '';
  for (const r of rs) {
    if (r.status === 'fulfilled') ok++;
    else if (r.reason && r.reason.code === 'ERR_AIRVSX_BUSY') busy++;
    else other = other || String(r.reason && r.reason.message || r.reason);
  }
  return { ok, busy, other };
};
exports.activate = () => {
  vscode.commands.registerCommand('flood.fs', (file, n) => count(n, () => vscode.workspace.fs.readFile(vscode.Uri.file(file)).then((b) => b.length)));
  vscode.commands.registerCommand('flood.fetch', (url, n) => count(n, () => fetch(url).then((r) => r.arrayBuffer())));
};
`

// flood runs one flood ("fs" or "fetch") from a sandboxed host, its
// launcher hostlaunch/internal/cmd/hostprobe (a fresh process without the race
// detector, as airvsx run is), and returns what it did with the
// launcher's peak resident memory.
func flood(tb testing.TB, kind string) floodResult {
	tb.Helper()
	body := bytes.Repeat([]byte("airvsx flood "), (16<<20)/13)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	tb.Cleanup(srv.Close)
	root := tb.TempDir()
	dir, ws := filepath.Join(root, "ext", "a.flood"), filepath.Join(root, "ws")
	writeExt(tb, dir, "a.flood", "const vscode = require('vscode');\n"+floodJS, "flood.fs", "flood.fetch")
	if err := os.Mkdir(ws, 0o755); err != nil {
		tb.Fatal(err)
	}
	filetest.WriteFile(tb, filepath.Join(ws, "big.bin"), body[:8<<20])
	cmd := exec.Command(hostprobe(tb), "flood", kind, dir, srv.URL, ws, filepath.Join(root, "storage"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("%s flood: %v\n%s", kind, err, stderr.Bytes())
	}
	var r floodResult
	if err := json.Unmarshal(out, &r); err != nil {
		tb.Fatalf("%s flood: %q: %v", kind, out, err)
	}
	if r.PeakMiB == 0 {
		tb.Fatalf("%s flood: the launcher reported no peak", kind)
	}
	return r
}

// writeExt writes an extension folder: package.json declaring commands,
// and extension.js.
func writeExt(tb testing.TB, dir, name, js string, commands ...string) {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	var cmds []map[string]string
	for _, c := range commands {
		cmds = append(cmds, map[string]string{"command": c, "title": c})
	}
	pkg, err := json.Marshal(map[string]any{"name": name, "main": "./extension.js", "contributes": map[string]any{"commands": cmds}})
	if err != nil {
		tb.Fatal(err)
	}
	filetest.WriteFile(tb, filepath.Join(dir, "package.json"), pkg)
	filetest.WriteFile(tb, filepath.Join(dir, "extension.js"), []byte(js))
}

// TestLauncherFloods: each flood is refused in part, with an error the
// extension sees, and leaves the launcher under 256 MiB of resident
// memory at its peak (it reached 12 GB and 7.5 GB without the limits).
func TestLauncherFloods(t *testing.T) {
	for _, kind := range []string{"fs", "fetch"} {
		t.Run(kind, func(t *testing.T) {
			r := flood(t, kind)
			t.Logf("%s flood: %d served, %d refused (busy), launcher peak %d MiB", kind, r.OK, r.Busy, r.PeakMiB)
			if r.Busy == 0 || r.OK == 0 || r.Other != "" {
				t.Errorf("%s flood: %+v; want some served and some refused as busy, nothing else", kind, r)
			}
			if r.PeakMiB >= floodLimitMiB {
				t.Errorf("%s flood: the launcher's peak resident memory is %d MiB; want under %d", kind, r.PeakMiB, floodLimitMiB)
			}
		})
	}
}

// BenchmarkLauncherFlood reports the launcher's peak resident memory
// (the whole process) under each flood, and how many requests were served
// and refused. Goal: peak < 256 MB.
func BenchmarkLauncherFlood(b *testing.B) {
	for _, kind := range []string{"fs", "fetch"} {
		b.Run(kind, func(b *testing.B) {
			var last floodResult
			for b.Loop() {
				last = flood(b, kind)
			}
			b.ReportMetric(float64(last.PeakMiB), "peak-rss-MiB")
			b.ReportMetric(float64(last.OK), "served")
			b.ReportMetric(float64(last.Busy), "refused")
			fmt.Fprintf(os.Stderr, "launcher flood %s: peak resident memory %d MiB (goal < %d), %d served, %d refused\n", kind, last.PeakMiB, floodLimitMiB, last.OK, last.Busy)
		})
	}
}
