package verify_test

import (
	"cmp"
	"os"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index/problem"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/verify"
	"github.com/airvsx/airvsx/verify/verifytest"
)

// finding is what two verifications of one registry through two stores
// must agree on: a problem without its message and fix, which may quote
// a store's own error text.
type finding struct {
	Severity verify.Severity
	Rule     verify.Rule
	Path     string
	Entry    string
}

// dirOnly reports whether only a directory store can show p. Verify
// checks the layout itself (each repository's oci-layout file, files and
// directories the layout has no place for, blobs no entry references,
// which it finds by walking the directory) only through the FS method a
// directory store has besides store.Store; a store without a layout, such
// as storetest.Mem, has none of these files, so these findings have no
// counterpart there:
//
//   - layout-invalid at an oci-layout file, or where a directory could not
//     be listed ("." , "extensions/", "extensions/<ns>/"): not at an
//     index.json, which a store's Tags reports;
//   - extra-file;
//   - orphan-blob.
func dirOnly(p verify.Problem) bool {
	switch p.Rule {
	case verify.RuleExtraFile, verify.RuleOrphanBlob:
		return true
	case verify.RuleLayoutInvalid:
		return !strings.HasSuffix(p.File, "/index.json")
	}
	return false
}

// findings returns the problems of rep as findings, sorted, leaving out
// those only a directory store can show when storeOnly is set.
func findings(rep *verify.Report, storeOnly bool) []finding {
	var out []finding
	for _, p := range rep.Problems {
		if storeOnly && dirOnly(p) {
			continue
		}
		out = append(out, finding{p.Severity, p.Rule, p.File, p.Entry})
	}
	slices.SortFunc(out, func(a, b finding) int {
		return cmp.Or(cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Entry, b.Entry), cmp.Compare(a.Severity, b.Severity))
	})
	return out
}

// checkOnMem verifies the registry in dir again, copied raw (damage and
// all) into a storetest.Mem, with the options o the directory run used,
// and checks that it finds what the directory run dirRep found, save what
// only a directory can show (dirOnly). When every expected problem is
// such, the Mem run must find no error at all. Before it runs, dir is
// replaced by a pristine copy of the fixture registry: a verifier that
// read files by path instead of through its store would see an intact
// registry and miss the damage.
func checkOnMem(t *testing.T, dir string, o verify.RegistryOptions, dirRep *verify.Report, wants []want) {
	t.Helper()
	mem := storetest.MemFromDir(t, dir)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(base(t).Dir)); err != nil {
		t.Fatal(err)
	}
	o.Store = mem
	rep, err := verify.Registry(t.Context(), o)
	if err != nil {
		t.Fatalf("Registry(Mem): %v", err)
	}
	if diff := gocmp.Diff(findings(dirRep, true), findings(rep, false)); diff != "" {
		t.Errorf("verifying through a Mem found other problems than through the directory (-dir +mem):\n%s", diff)
	}
	onlyDir := true
	for _, w := range wants {
		onlyDir = onlyDir && dirOnly(verify.Problem{Problem: problem.Problem{Rule: w.rule, File: w.path}})
	}
	if onlyDir && !rep.OK() {
		t.Errorf("only a directory can show this damage, yet verifying through a Mem failed:\n%s", verifytest.ProblemList(rep))
	}
	if !onlyDir && rep.OK() {
		t.Errorf("verifying through a Mem passed the damaged registry")
	}
}
