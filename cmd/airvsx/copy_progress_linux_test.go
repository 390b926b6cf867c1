package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/synthreg"
)

// TestCopyProgressOnTerminal runs copy with stderr on a terminal: the
// manifest and blob counts are shown there and cleared at the end; stdout
// has only the summary. With --json nothing is written to the terminal.
func TestCopyProgressOnTerminal(t *testing.T) {
	dir := t.TempDir()
	signer, key := demoreg.Signer(t, dir, "k")
	src := filepath.Join(dir, "src")
	if _, err := synthreg.Build(t.Context(), src, synthreg.Options{Entries: 3, Signer: signer}, synthreg.RandomEntry("crash", 64<<10)); err != nil {
		t.Fatal(err)
	}
	args := func(name string) []string {
		return []string{"copy", src, filepath.Join(dir, "dst-"+name), "--key", key, "--no-state"}
	}
	testProgressOnTerminal(t, args, "\r\033[Kcopy: checking the source's trust chain", "the counts", func(t *testing.T, stdout string) {
		if strings.Contains(stdout, "\r") || !strings.HasPrefix(stdout, "copied catalog serial 1") {
			t.Errorf("stdout: %q; want only the summary", stdout)
		}
	})
}
