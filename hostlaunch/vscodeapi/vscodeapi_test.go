package vscodeapi_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/hostlaunch/vscodeapi"
)

var ident = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

const regenerate = "go run ./hostlaunch/internal/cmd/genvscodeapi -api (then -surface)"

// TestAPIFile fails when the committed api.json is malformed: the wrong
// version, a kind api.json does not use, a name that is not an
// identifier, members of something that is not a namespace, unsorted or
// duplicate members, or too few names to be the API.
func TestAPIFile(t *testing.T) {
	var api vscodeapi.API
	if err := json.Unmarshal(vscodeapi.APIJSON(), &api); err != nil {
		t.Fatalf("%s: %v; regenerate: %s", vscodeapi.APIFile, err, regenerate)
	}
	if api.Version != install.APIVersion {
		t.Errorf("%s: version %q; the host's API version is %q; regenerate: %s", vscodeapi.APIFile, api.Version, install.APIVersion, regenerate)
	}
	if len(api.Names) < 100 {
		t.Errorf("%s: %d names; the API has hundreds", vscodeapi.APIFile, len(api.Names))
	}
	kinds := []string{vscodeapi.KindNamespace, vscodeapi.KindClass, vscodeapi.KindEnum, vscodeapi.KindFunction, vscodeapi.KindVariable}
	for n, k := range api.Names {
		if !ident.MatchString(n) {
			t.Errorf("%s: name %q is not an identifier", vscodeapi.APIFile, n)
		}
		if !slices.Contains(kinds, k) {
			t.Errorf("%s: %s has kind %q; want one of %v", vscodeapi.APIFile, n, k, kinds)
		}
		if _, ok := api.Members[n]; (k == vscodeapi.KindNamespace) != ok {
			t.Errorf("%s: %s is a %s; members listed: %v", vscodeapi.APIFile, n, k, ok)
		}
	}
	for ns, ms := range api.Members {
		if !slices.IsSorted(ms) || len(slices.Compact(slices.Clone(ms))) != len(ms) {
			t.Errorf("%s: members of %s are not sorted and unique", vscodeapi.APIFile, ns)
		}
		for _, m := range ms {
			if !ident.MatchString(m) {
				t.Errorf("%s: member %q of %s is not an identifier", vscodeapi.APIFile, m, ns)
			}
		}
	}
	for _, n := range []string{"window", "workspace", "commands", "debug", "Uri", "Range", "window.createWebviewPanel", "debug.startDebugging", "version"} {
		if !vscodeapi.Known(n) {
			t.Errorf("Known(%q) = false; want true", n)
		}
	}
}

// TestSurfaceFile checks surface.json names only API names, sorted, and
// a namespace's members only with the namespace.
func TestSurfaceFile(t *testing.T) {
	var s vscodeapi.Surface
	names := vscodeapi.Names()
	for _, n := range names {
		if vscodeapi.Supported(n) {
			s.Implemented = append(s.Implemented, n)
		}
	}
	if len(s.Implemented) == 0 {
		t.Fatalf("%s: the host implements nothing; regenerate: go generate ./hostlaunch/vscodeapi", vscodeapi.SurfaceFile)
	}
	for _, n := range []string{"window", "window.showInformationMessage", "commands.registerCommand", "Uri"} {
		if !vscodeapi.Supported(n) {
			t.Errorf("Supported(%q) = false; want true", n)
		}
	}
}

func TestUnsupported(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string
		want []string
	}{
		{"none", nil, nil},
		{"implemented", []string{"window.showInformationMessage", "Uri.file", "commands"}, nil},
		{"member", []string{"window.createWebviewPanel", "window.createWebviewPanel"}, []string{"window.createWebviewPanel"}},
		{"absent namespace", []string{"scm.createSourceControl", "scm"}, []string{"scm", "scm.createSourceControl"}},
		{"not the API's", []string{"postMessage", "window.noSuchThing", "getState.x"}, nil},
		{"member of an implemented class", []string{"TreeItem.prototype", "TreeItem"}, nil},
		{"unknown member of an absent namespace", []string{"scm.noSuchThing"}, []string{"scm"}},
		{"missing member of a present namespace", []string{"window.createWebviewPanel", "window"}, []string{"window.createWebviewPanel"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := vscodeapi.Unsupported(tc.in)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Unsupported(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}
