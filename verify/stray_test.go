package verify_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/verify"
	"github.com/airvsx/airvsx/verify/verifytest"
)

// TestStrayMetadata: files in metadata/ the signed metadata does not name
// are stray-file warnings, the first 20 by name and the rest counted; the
// chain's own files (the current ones and their history) are not; a
// catalog whose bytes are not its name's digest is one unless
// --no-read-data. The registry still verifies.
func TestStrayMetadata(t *testing.T) {
	dir := fresh(t)
	fake := "targets/" + strings.Repeat("0", 64) + ".catalog.json"
	names := []string{"9.root.json", "evil.html", fake}
	for i := range 30 {
		names = append(names, fmt.Sprintf("junk-%04d", i))
	}
	for _, n := range names {
		filetest.WriteFile(t, filepath.Join(dir, "metadata", filepath.FromSlash(n)), []byte("<script>alert(1)</script>"))
	}
	for _, tc := range []struct {
		name       string
		noReadData bool
		all        int
	}{
		{"read data", false, 33},
		{"no read data", true, 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := check(t, dir, func(o *verify.RegistryOptions) { o.NoReadData = tc.noReadData })
			if !rep.OK() {
				t.Fatalf("stray files failed the registry:\n%s", verifytest.ProblemList(rep))
			}
			var got []string
			for _, p := range rep.Warnings() {
				if p.Rule == verify.RuleStrayFile {
					got = append(got, p.File+": "+p.Message)
				}
			}
			var want []string
			want = append(want, fmt.Sprintf("metadata/: %d more files the signed metadata does not name (%d in all)", tc.all-20, tc.all))
			for _, n := range names[:2] {
				want = append(want, "metadata/"+n+": the signed metadata does not name this file: no signature covers it")
			}
			for i := range 18 {
				want = append(want, fmt.Sprintf("metadata/junk-%04d: the signed metadata does not name this file: no signature covers it", i))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("stray-file warnings (-want +got):\n%s", diff)
			}
		})
	}
}
