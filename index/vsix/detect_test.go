package vsix

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index"
)

func TestScanJS(t *testing.T) {
	tests := []struct {
		src  string
		want []jsUse // nil: nothing
	}{
		// Every module, in every form.
		{`const cp = require("child_process");`, []jsUse{{FindingSpawn, `require("child_process")`}}},
		{`require('node:child_process').spawn('x')`, []jsUse{{FindingSpawn, `require("node:child_process")`}}},
		{"require(`cluster`)", []jsUse{{FindingSpawn, `require("cluster")`}}},
		{`const n = require ( 'net' )`, []jsUse{{FindingNetwork, `require("net")`}}},
		{`import http from "http";`, []jsUse{{FindingNetwork, `import "http"`}}},
		{`import * as https from 'node:https'`, []jsUse{{FindingNetwork, `import "node:https"`}}},
		{`import {connect} from"http2"`, []jsUse{{FindingNetwork, `import "http2"`}}},
		{`import "dgram";`, []jsUse{{FindingNetwork, `import "dgram"`}}},
		{`export * from 'tls'`, []jsUse{{FindingNetwork, `import "tls"`}}},
		{`const m = await import("node:dns")`, []jsUse{{FindingNetwork, `import("node:dns")`}}},
		{"import(`worker_threads`)", []jsUse{{FindingWorker, `import("worker_threads")`}}},
		{`import{Worker}from"node:worker_threads"`, []jsUse{{FindingWorker, `import "node:worker_threads"`}}},
		{`var a=__require("child_process"),b=n(require("https"))`, []jsUse{
			{FindingSpawn, `require("child_process")`}, {FindingNetwork, `require("https")`},
		}},
		{"require(\n\t\"net\"\n)", []jsUse{{FindingNetwork, `require("net")`}}},
		{`const {resolve} = require("dns/promises")`, []jsUse{{FindingNetwork, `require("dns/promises")`}}},
		{`import {lookup} from 'node:dns/promises'`, []jsUse{{FindingNetwork, `import "node:dns/promises"`}}},
		// fs needs fsWide only beyond the workspace: no finding.
		{`require("fs"); import("node:fs/promises")`, nil},
		// Not module specifiers.
		{`require("httpx")`, nil},
		{`require("http-proxy-agent")`, nil},
		{`require("./net")`, nil},
		{`require("node:netx")`, nil},
		{`require("xnet")`, nil},
		{`const s = "http"; log('net', "https")`, nil},
		{`// uses http and net`, nil},
		{`fetch("http://example.com/net")`, nil},
		{`myimport("net")`, nil},
		{`reimport "net"`, nil},
		{`x.from("net")`, nil},
		{`require("net')`, nil},
		{`import x from "http`, nil},
		{`"net"`, nil},
		{``, nil},
	}
	for _, tt := range tests {
		got := scanJS([]byte(tt.src))
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(jsUse{})); diff != "" {
			t.Errorf("scanJS(%q) (-want +got):\n%s", tt.src, diff)
		}
	}
}

func peHeader() []byte {
	b := make([]byte, 0x84)
	copy(b, "MZ")
	b[0x3c] = 0x80
	copy(b[0x80:], "PE\x00\x00")
	return b
}

func TestMagic(t *testing.T) {
	mzOnly := make([]byte, 128)
	copy(mzOnly, "MZ")
	mzBad := peHeader()
	copy(mzBad[0x80:], "NE\x00\x00")
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"elf", []byte("\x7fELF\x02\x01\x01\x00"), "ELF magic"},
		{"pe", peHeader(), "PE magic"},
		{"mz without pe", mzOnly, ""},
		{"mz with ne", mzBad, ""},
		{"macho 64 le", []byte("\xcf\xfa\xed\xfe\x07\x00\x00\x01"), "Mach-O magic"},
		{"macho 32 be", []byte("\xfe\xed\xfa\xce"), "Mach-O magic"},
		{"macho 64 be", []byte("\xfe\xed\xfa\xcf"), "Mach-O magic"},
		{"macho 32 le", []byte("\xce\xfa\xed\xfe"), "Mach-O magic"},
		{"fat", []byte("\xca\xfe\xba\xbe\x00\x00\x00\x02"), "Mach-O fat magic"},
		{"fat reversed", []byte("\xbe\xba\xfe\xca\x02\x00\x00\x00"), "Mach-O fat magic"},
		{"java class", []byte("\xca\xfe\xba\xbe\x00\x00\x00\x34"), ""},
		{"text", []byte("hello world"), ""},
		{"short", []byte("\x7fEL"), ""},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		if got := magic(tt.data); got != tt.want {
			t.Errorf("magic(%s %q) = %q; want %q", tt.name, tt.data, got, tt.want)
		}
		hdr, err := readHeader(strings.NewReader(string(tt.data)))
		if err != nil {
			t.Fatal(err)
		}
		if got := magic(hdr); got != tt.want {
			t.Errorf("magic(readHeader(%s)) = %q; want %q", tt.name, got, tt.want)
		}
	}
}

func mapFile(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }

func TestDetect(t *testing.T) {
	fsys := fstest.MapFS{
		"extension.vsixmanifest":               mapFile("<PackageManifest/>"),
		"extension/package.json":               mapFile(`{"main": "./out/main"}`),
		"extension/out/main":                   mapFile(`require("child_process")`),
		"extension/out/extension.js":           mapFile(`const net = require("node:net"); import("https"); require("httpx")`),
		"extension/out/esm.MJS":                mapFile(`import { Worker } from "worker_threads"`),
		"extension/out/lib.cjs":                mapFile(`require('http')`),
		"extension/out/data.json":              mapFile(`{"x": "require(\"net\")"}`),
		"extension/bin/tool":                   {Data: []byte("\x7fELF\x02\x01\x01\x00rest")},
		"extension/bin/tool.exe":               {Data: peHeader()},
		"extension/bin/tool-mac":               {Data: []byte("\xcf\xfa\xed\xfe\x07\x00\x00\x01")},
		"extension/node_modules/a/b.node":      {Data: []byte("\x7fELF")},
		"extension/node_modules/a/index.js":    mapFile(`module.exports = require("./build/Release/b.node")`),
		"extension/node_modules/a/Hello.class": {Data: []byte("\xca\xfe\xba\xbe\x00\x00\x00\x34")},
		"outside.js":                           mapFile(`require("child_process")`),
		"extension/empty.js":                   mapFile(``),
	}
	m := &Manifest{Main: "./out/main", ActivationEvents: []string{"*", "onCommand:x"}}
	got, err := Detect(fsys, m, DetectOptions{})
	if err != nil {
		t.Fatalf("Detect = %v", err)
	}
	want := []Finding{
		{FindingExecutable, "extension/bin/tool", "ELF magic"},
		{FindingExecutable, "extension/bin/tool-mac", "Mach-O magic"},
		{FindingExecutable, "extension/bin/tool.exe", "PE magic"},
		{FindingNativeAddon, "extension/node_modules/a/b.node", ".node file"},
		{FindingWorker, "extension/out/esm.MJS", `import "worker_threads"`},
		{FindingNetwork, "extension/out/extension.js", `import("https")`},
		{FindingNetwork, "extension/out/extension.js", `require("node:net")`},
		{FindingNetwork, "extension/out/lib.cjs", `require("http")`},
		{FindingSpawn, "extension/out/main", `require("child_process")`},
		{FindingEagerActivation, "extension/package.json", `activationEvents "*"`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Detect (-want +got):\n%s", diff)
	}
	again, _ := Detect(fsys, m, DetectOptions{})
	if diff := cmp.Diff(got, again); diff != "" {
		t.Errorf("Detect is not deterministic (-first +second):\n%s", diff)
	}
	var caps []index.Capability
	for _, f := range got {
		if c := f.Capability(); c != "" {
			caps = append(caps, c)
		}
	}
	if diff := cmp.Diff(index.CapabilitySet{index.Network, index.Spawn}, index.NewCapabilitySet(caps...)); diff != "" {
		t.Errorf("capabilities of findings (-want +got):\n%s", diff)
	}
}

func TestDetectNoEagerWithoutStar(t *testing.T) {
	fsys := fstest.MapFS{"extension/x.txt": mapFile("hi")}
	got, err := Detect(fsys, &Manifest{ActivationEvents: []string{"onStartupFinished"}}, DetectOptions{})
	if err != nil || len(got) != 0 {
		t.Errorf("Detect = %v, %v; want no findings", got, err)
	}
	got, err = Detect(fsys, nil, DetectOptions{})
	if err != nil || len(got) != 0 {
		t.Errorf("Detect(nil manifest) = %v, %v; want no findings", got, err)
	}
}

func TestDetectLimits(t *testing.T) {
	big := strings.Repeat(" ", 100) + `require("net")`
	fsys := fstest.MapFS{
		"extension/a.js": mapFile(`require("child_process")` + big),
		"extension/b.js": mapFile(big),
		"extension/c.js": mapFile(`require("net")`),
		"extension/d.js": mapFile(`require("net")`),
	}
	got, err := Detect(fsys, nil, DetectOptions{MaxFileBytes: 100, MaxTotalBytes: 150})
	if err != nil {
		t.Fatal(err)
	}
	want := []Finding{
		{FindingIncomplete, "", "total scan limit of 150 bytes reached: 2 JavaScript file(s) not scanned"},
		{FindingIncomplete, "extension/a.js", "only the first 100 bytes scanned"},
		{FindingSpawn, "extension/a.js", `require("child_process")`},
		{FindingIncomplete, "extension/b.js", "only the first 50 bytes scanned"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Detect with limits (-want +got):\n%s", diff)
	}
}

// failOpenFS fails to open one file.
type failOpenFS struct {
	fstest.MapFS
	bad string
}

func (f failOpenFS) Open(name string) (fs.File, error) {
	if name == f.bad {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("crc mismatch")}
	}
	return f.MapFS.Open(name)
}

func TestDetectReadError(t *testing.T) {
	fsys := failOpenFS{fstest.MapFS{
		"extension/bad.js":  mapFile(`require("net")`),
		"extension/good.js": mapFile(`require("net")`),
	}, "extension/bad.js"}
	got, err := Detect(fsys, nil, DetectOptions{})
	if err == nil || !strings.Contains(err.Error(), "extension/bad.js") {
		t.Errorf("Detect error = %v; want one naming extension/bad.js", err)
	}
	want := []Finding{{FindingNetwork, "extension/good.js", `require("net")`}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Detect (-want +got):\n%s", diff)
	}
}

func BenchmarkScanJS(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 8<<20; i++ {
		fmt.Fprintf(&sb, "function f%d(a){return a+'http://example.com/net'+require(\"./m%d\")}\n", i, i)
	}
	src := []byte(sb.String())
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		scanJS(src)
	}
}

// TestFindingCapability: the capability of each kind of finding is the one
// index.NodeModules (the host's seat belt reads the same map) gives every
// module of that kind, and every module with a finding is detected as it.
func TestFindingCapability(t *testing.T) {
	byKind := make(map[string]index.Capability)
	for _, m := range index.NodeModules() {
		if m.Finding == "" {
			if got := scanJS([]byte(`require("` + m.Module + `")`)); got != nil {
				t.Errorf("scanJS(require(%q)) = %v; want nothing (nodemodules.json gives it no finding)", m.Module, got)
			}
			continue
		}
		if c, ok := byKind[m.Finding]; ok && c != m.Capability {
			t.Errorf("nodemodules.json: finding %q is %q for %s but %q for another module; a kind needs one capability", m.Finding, m.Capability, m.Module, c)
		}
		byKind[m.Finding] = m.Capability
		if got := (Finding{Kind: m.Finding}).Capability(); got != m.Capability {
			t.Errorf("Finding{Kind: %q}.Capability() = %q; want %q (module %s)", m.Finding, got, m.Capability, m.Module)
		}
		want := []jsUse{{m.Finding, `require("node:` + m.Module + `")`}}
		if diff := cmp.Diff(want, scanJS([]byte(`require('node:`+m.Module+`')`)), cmp.AllowUnexported(jsUse{})); diff != "" {
			t.Errorf("scanJS of module %s (-want +got):\n%s", m.Module, diff)
		}
	}
	for _, tc := range []struct {
		kind string
		want index.Capability
	}{
		{FindingSpawn, index.Spawn},
		{FindingNetwork, index.Network},
		// A worker runs code where the host's require seat belt does not
		// reach: it needs spawn, as the host says (policy.js).
		{FindingWorker, index.Spawn},
		{FindingNativeAddon, ""},
		{FindingExecutable, ""},
		{FindingEagerActivation, ""},
		{FindingIncomplete, ""},
	} {
		if got := (Finding{Kind: tc.kind}).Capability(); got != tc.want {
			t.Errorf("Finding{Kind: %q}.Capability() = %q; want %q", tc.kind, got, tc.want)
		}
	}
}
