package transfer_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/transfer"
	"github.com/airvsx/airvsx/verify"
)

// TestCopyStray: files in the source's metadata/ that its signed metadata
// does not name (junk, an evil.html, a version past the chain's, a
// catalog whose bytes are not its name's digest) are not copied; they are
// counted in the report, and the destination verifies with no warning.
func TestCopyStray(t *testing.T) {
	reg := demoreg.Get(t)
	src := filepath.Join(t.TempDir(), "src")
	filetest.CopyDir(t, reg.Dir, src)
	stray := []string{"evil.html", "9.root.json", "99.snapshot.json", "targets/" + strings.Repeat("0", 64) + ".catalog.json"}
	for i := range 30 {
		stray = append(stray, fmt.Sprintf("junk-%04d", i))
	}
	for _, name := range stray {
		if err := os.WriteFile(filepath.Join(src, "metadata", filepath.FromSlash(name)), []byte("<script>alert(1)</script>"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "dst")
	dst := openDir(t, dir)
	rep, err := transfer.Copy(t.Context(), readOnly(t, src), dst, options(reg))
	if err != nil {
		t.Fatalf("Copy: %v", err)
	}
	if rep.Stray != len(stray) || len(rep.StrayNames) != 5 {
		t.Errorf("report: %d stray files, named %q; want %d, 5 named", rep.Stray, rep.StrayNames, len(stray))
	}
	for _, name := range stray {
		if _, err := os.Lstat(filepath.Join(dir, "metadata", filepath.FromSlash(name))); err == nil {
			t.Errorf("metadata/%s was copied", name)
		}
	}
	vrep, err := verify.Registry(t.Context(), verify.RegistryOptions{Store: dst, Anchor: trust.Anchor{Key: reg.Signer}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range vrep.Problems {
		t.Errorf("destination: %s %s %s: %s", p.Severity, p.Rule, p.File, p.Message)
	}
}
