package verify_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/verify"
	"github.com/airvsx/airvsx/verify/verifytest"
)

// TestLayoutListingErrorsReported: a directory of the registry that cannot
// be listed (here extensions/ is a symbolic link out of the registry,
// which the directory store never follows) is a problem naming it, never
// silently skipped.
func TestLayoutListingErrorsReported(t *testing.T) {
	dir := fresh(t)
	outside := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Rename(filepath.Join(dir, "extensions"), outside); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "extensions")); err != nil {
		t.Fatal(err)
	}
	rep := check(t, dir)
	if rep.OK() {
		t.Fatal("verify passed a registry whose extensions/ leads outside it")
	}
	// Both readers of the listing report it: the store's list of
	// repositories, and the directory walk for files with no place.
	for _, want := range []string{"cannot list the repositories: ", "cannot list: "} {
		found := false
		for _, p := range rep.Problems {
			if p.Rule == verify.RuleLayoutInvalid && p.File == "extensions/" && strings.HasPrefix(p.Message, want) {
				found = true
			}
		}
		if !found {
			t.Errorf("no layout-invalid problem at extensions/ starting %q; got:\n%s", want, verifytest.ProblemList(rep))
		}
	}
}
