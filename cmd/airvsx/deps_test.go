package main

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// dialers may make network connections: the sync engine (the only client,
// ARCHITECTURE.md) and the binary that wires it in. The fixture upstream
// and its command only listen, on loopback; the tests' demo registry
// syncs from it there.
var dialers = []string{
	"github.com/airvsx/airvsx/mirror",
	"github.com/airvsx/airvsx/cmd/airvsx",
	"github.com/airvsx/airvsx/mirror/openvsxtest",
	"github.com/airvsx/airvsx/cmd/openvsx-fixture",
	"github.com/airvsx/airvsx/internal/demoreg",
}

// netPackages are the standard packages through which Go code opens
// connections.
var netPackages = []string{"net/http", "net/http/httptrace", "net/rpc", "net/smtp", "crypto/tls", "net/http/httputil"}

type listedPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// TestOnlyMirrorDials proves from the import graph that no package of
// airvsx but mirror can reach an HTTP or TLS client: none of them depends,
// even through a third-party module, on net/http or crypto/tls, and none
// imports net itself. (Every package may reach net through crypto/x509,
// which parses IP addresses in certificates; that is why the check on net
// is on direct imports.) cmd/airvsx reaches net/http only through mirror.
func TestOnlyMirrorDials(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps=false", "-json", "github.com/airvsx/airvsx/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 8 {
		t.Fatalf("go list found %d packages; the check would prove nothing", len(pkgs))
	}
	checked := 0
	for _, p := range pkgs {
		if slices.Contains(p.Imports, "net") && !slices.Contains(dialers, p.ImportPath) {
			t.Errorf("%s imports net: only %v may", p.ImportPath, dialers)
		}
		if slices.Contains(dialers, p.ImportPath) {
			continue
		}
		checked++
		for _, n := range netPackages {
			if slices.Contains(p.Deps, n) {
				t.Errorf("%s depends on %s (through %s): only %v may reach a network client", p.ImportPath, n, via(pkgs, p, n), dialers)
			}
		}
	}
	// cmd/airvsx itself reaches net/http only through mirror.
	for _, p := range pkgs {
		if p.ImportPath == "github.com/airvsx/airvsx/cmd/airvsx" {
			for _, n := range append([]string{"net"}, netPackages...) {
				if slices.Contains(p.Imports, n) {
					t.Errorf("cmd/airvsx imports %s directly; it must reach the network only through mirror", n)
				}
			}
		}
	}
	t.Logf("%d packages checked offline-only", checked)
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
