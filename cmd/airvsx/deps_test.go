package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// dialers may make network connections: the Open VSX client (the only
// client of an upstream, docs/architecture.md), the sync engine that uses it
// (but imports no network package itself, see upstreamClient) and the binary
// that wires them in. The fixture upstream and its command only listen, on
// loopback; the tests' demo registry syncs from it there.
var dialers = []string{
	"github.com/airvsx/airvsx/mirror/openvsx",
	"github.com/airvsx/airvsx/mirror",
	"github.com/airvsx/airvsx/cmd/airvsx",
	"github.com/airvsx/airvsx/testkit/openvsxtest",
	"github.com/airvsx/airvsx/cmd/openvsx-fixture",
	"github.com/airvsx/airvsx/testkit/demoreg",
	// Tests only: starts a distribution registry on loopback and waits
	// for it to answer.
	"github.com/airvsx/airvsx/testkit/ocitest",
	// The extension host's network broker: it makes the requests
	// hostlaunch/host allowed (see networkBrokers).
	"github.com/airvsx/airvsx/hostlaunch/netbroker",
	// The OCI-registry store and the registry of place kinds that opens
	// it (see networkStores).
	"github.com/airvsx/airvsx/index/store/ocistore",
	"github.com/airvsx/airvsx/index/store/place",
	// Tests only: the launcher of hostlaunch/sandbox's flood tests, which
	// wires the network broker as cmd/airvsx does (see wirers), and
	// fetches from a server on loopback.
	"github.com/airvsx/airvsx/hostlaunch/internal/cmd/hostprobe",
}

// listeners may listen: serve, the one server of airvsx (airvsx serve),
// which answers editors and dials nothing (it is an offline reader too:
// it takes a store.Store, and only cmd/airvsx imports it).
var listeners = []string{"github.com/airvsx/airvsx/serve"}

// upstreamClient is the package that talks to an upstream Open VSX
// registry; syncEngine reaches the network only through it.
const (
	upstreamClient = "github.com/airvsx/airvsx/mirror/openvsx"
	syncEngine     = "github.com/airvsx/airvsx/mirror"
)

// wirers are the binaries that may import a network store or broker:
// airvsx, and the flood tests' launcher.
var wirers = []string{"github.com/airvsx/airvsx/cmd/airvsx", "github.com/airvsx/airvsx/hostlaunch/internal/cmd/hostprobe"}

// networkBrokers make the requests the extension host's brokers allow.
// Like a network store, each lives in a package of its own that only
// cmd/airvsx imports, so the host package itself (hostlaunch/host), which
// decides what is allowed, never links a network client.
var networkBrokers = []string{"github.com/airvsx/airvsx/hostlaunch/netbroker"}

// mustStayOffline are packages that must be among those the checks
// below cover, so that moving them out of reach of the checks fails.
var mustStayOffline = []string{
	"github.com/airvsx/airvsx/hostlaunch/host",
	"github.com/airvsx/airvsx/hostlaunch/install",
	"github.com/airvsx/airvsx/policies",
}

// networkStores are the stores that can dial (an OCI registry over HTTP),
// and the registry of place kinds that opens them (index/store/place):
// each lives in a package of its own that only cmd/airvsx imports, so a
// reader that takes a store.Store never links a network client.
var networkStores = []string{"github.com/airvsx/airvsx/index/store/ocistore", "github.com/airvsx/airvsx/index/store/place"}

// offlineReaders are the package trees that read registries and must work
// with no network at all: they may not depend on any dialer or network
// store, whatever they import.
var offlineReaders = []string{
	"github.com/airvsx/airvsx/verify",
	"github.com/airvsx/airvsx/site",
	"github.com/airvsx/airvsx/index",
	"github.com/airvsx/airvsx/policies",
	"github.com/airvsx/airvsx/hostlaunch",
	"github.com/airvsx/airvsx/transfer",
	"github.com/airvsx/airvsx/prune",
	"github.com/airvsx/airvsx/serve",
}

// netPackages are the standard packages through which Go code opens
// connections.
var netPackages = []string{"net/http", "net/http/httptrace", "net/rpc", "net/smtp", "crypto/tls", "net/http/httputil"}

type listedPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// listPackages returns every package of airvsx as go list describes it:
// its direct imports and all its dependencies.
func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps=false", "-json", "github.com/airvsx/airvsx/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestOnlyMirrorDials proves from the import graph that no package of
// airvsx but the dialers (the Open VSX client, mirror/openvsx, and the sync
// engine that uses it, mirror) can reach an HTTP or TLS client: none of
// them depends, even through a third-party module, on net/http or
// crypto/tls, and none imports net itself. (Every package may reach net through crypto/x509,
// which parses IP addresses in certificates; that is why the check on net
// is on direct imports.) cmd/airvsx reaches net/http only through
// mirror/openvsx and the extension host's network broker (hostlaunch/netbroker), which
// hostlaunch/host cannot reach.
func TestOnlyMirrorDials(t *testing.T) {
	pkgs := listPackages(t)
	if len(pkgs) < 8 {
		t.Fatalf("go list found %d packages; the check would prove nothing", len(pkgs))
	}
	checked := 0
	var checkedPkgs []string
	for _, p := range pkgs {
		if slices.Contains(p.Imports, "net") && !slices.Contains(dialers, p.ImportPath) && !slices.Contains(listeners, p.ImportPath) {
			t.Errorf("%s imports net: only %v and the listeners %v may", p.ImportPath, dialers, listeners)
		}
		if slices.Contains(dialers, p.ImportPath) || slices.Contains(listeners, p.ImportPath) {
			continue
		}
		checked++
		checkedPkgs = append(checkedPkgs, p.ImportPath)
		for _, n := range netPackages {
			if slices.Contains(p.Deps, n) {
				t.Errorf("%s depends on %s (through %s): only %v may reach a network client", p.ImportPath, n, via(pkgs, p, n), dialers)
			}
		}
	}
	for _, m := range mustStayOffline {
		if !slices.Contains(checkedPkgs, m) {
			t.Errorf("%s was not checked: it must be a package that cannot reach a network client", m)
		}
	}
	// cmd/airvsx itself reaches net/http only through mirror/openvsx.
	for _, p := range pkgs {
		if p.ImportPath == "github.com/airvsx/airvsx/cmd/airvsx" {
			for _, n := range append([]string{"net"}, netPackages...) {
				if slices.Contains(p.Imports, n) {
					t.Errorf("cmd/airvsx imports %s directly; it must reach the network only through mirror/openvsx and the network broker", n)
				}
			}
		}
	}
	t.Logf("%d packages checked offline-only", checked)
}

// TestEngineDialsThroughClient proves from the import graph that the sync
// engine (mirror) imports no network package itself, so every connection it
// causes is one the Open VSX client (mirror/openvsx) makes, and that the
// client does not depend on the engine.
func TestEngineDialsThroughClient(t *testing.T) {
	found := 0
	for _, p := range listPackages(t) {
		switch p.ImportPath {
		case syncEngine:
			found++
			for _, n := range append([]string{"net"}, netPackages...) {
				if slices.Contains(p.Imports, n) {
					t.Errorf("%s imports %s: the sync engine must reach the network only through %s", syncEngine, n, upstreamClient)
				}
			}
			if !slices.Contains(p.Imports, upstreamClient) {
				t.Errorf("%s does not import %s: the check would prove nothing", syncEngine, upstreamClient)
			}
		case upstreamClient:
			found++
			if slices.Contains(p.Deps, syncEngine) {
				t.Errorf("%s depends on %s: the client must not depend on the sync engine", upstreamClient, syncEngine)
			}
		}
	}
	if found != 2 {
		t.Fatalf("found %d of %s and %s; want both", found, syncEngine, upstreamClient)
	}
}

// TestReadersStayOffline proves from the import graph that verify, site,
// index/... (the vocabulary, the offline stores, the trust path), policies and
// hostlaunch (but its network broker) depend on no package that can dial
// (mirror, the fixture upstream, a network store, the network broker),
// and that only cmd/airvsx imports a network store or broker.
func TestReadersStayOffline(t *testing.T) {
	checked := 0
	for _, p := range listPackages(t) {
		for _, ns := range append(slices.Clone(networkStores), networkBrokers...) {
			// The place registry (itself a network store here) opens the
			// OCI-registry store; nothing else but a wirer may import one.
			if slices.Contains(p.Imports, ns) && !slices.Contains(wirers, p.ImportPath) && !slices.Contains(networkStores, p.ImportPath) {
				t.Errorf("%s imports the network package %s: only %s may", p.ImportPath, ns, strings.Join(wirers, " and "))
			}
		}
		if slices.Contains(networkBrokers, p.ImportPath) || slices.Contains(networkStores, p.ImportPath) || slices.Contains(wirers, p.ImportPath) {
			// A network package or a binary that wires one, not a
			// reader: the OCI store sits beside the offline stores, the
			// flood tests' launcher beside the host it launches.
			continue
		}
		if !slices.ContainsFunc(offlineReaders, func(r string) bool { return p.ImportPath == r || strings.HasPrefix(p.ImportPath, r+"/") }) {
			continue
		}
		checked++
		for _, d := range append(slices.Clone(dialers), networkStores...) {
			if slices.Contains(p.Deps, d) {
				t.Errorf("%s depends on %s, which can dial: readers must work with no network", p.ImportPath, d)
			}
		}
	}
	if checked < 8 {
		t.Fatalf("checked %d reader packages; the check would prove nothing", checked)
	}
	t.Logf("%d reader packages checked", checked)
}

// TestOnlyServeListens proves from the import graph that the listeners
// (serve) are imported by cmd/airvsx alone, so no other command or
// library can start a server, and that serve's query engine
// (serve/gallery) imports no network package: it is a pure library.
func TestOnlyServeListens(t *testing.T) {
	found := 0
	for _, p := range listPackages(t) {
		if slices.Contains(listeners, p.ImportPath) {
			found++
		}
		for _, l := range listeners {
			if slices.Contains(p.Imports, l) && p.ImportPath != "github.com/airvsx/airvsx/cmd/airvsx" {
				t.Errorf("%s imports the listener %s: only cmd/airvsx may", p.ImportPath, l)
			}
			if strings.HasPrefix(p.ImportPath, l+"/") {
				for _, n := range netPackages {
					if slices.Contains(p.Deps, n) {
						t.Errorf("%s depends on %s: a library under %s answers what the listener hands it and touches no network", p.ImportPath, n, l)
					}
				}
			}
		}
	}
	if found != len(listeners) {
		t.Fatalf("found %d of the listeners %v; the check would prove nothing", found, listeners)
	}
}

// via names a direct import of p that leads to target, for the message.
func via(pkgs []listedPackage, p listedPackage, target string) string {
	for _, imp := range p.Imports {
		if imp == target {
			return "a direct import"
		}
		for _, q := range pkgs {
			if q.ImportPath == imp && slices.Contains(q.Deps, target) {
				return imp
			}
		}
	}
	return "a third-party module"
}

// TestBinaryLinksNoTestSupport proves from the import graph that airvsx
// links no test support: nothing under testkit/ (the fixtures, the fake
// upstream, the registries made for tests) and no *test package (the
// conformance suite, the site's and verify's test helpers).
func TestBinaryLinksNoTestSupport(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/airvsx/airvsx/cmd/airvsx").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps found %d packages; the check would prove nothing", len(deps))
	}
	for _, d := range deps {
		rel, ok := strings.CutPrefix(d, "github.com/airvsx/airvsx/")
		if !ok {
			continue
		}
		if strings.HasPrefix(rel, "testkit/") || strings.HasSuffix(rel, "test") {
			t.Errorf("airvsx links %s, which is test support", d)
		}
	}
}
