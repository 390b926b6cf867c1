package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/internal/filetest"
	"github.com/airvsx/airvsx/internal/synthreg"
)

// TestCopyProgressOnTerminal runs copy with stderr on a terminal: the
// manifest and blob counts are shown there and cleared at the end; stdout
// has only the summary. With --json nothing is written to the terminal.
func TestCopyProgressOnTerminal(t *testing.T) {
	dir := t.TempDir()
	signer, pub, err := synthreg.NewSigner()
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, "k.pub")
	filetest.WriteFile(t, key, pub)
	src := filepath.Join(dir, "src")
	if _, err := synthreg.Build(t.Context(), src, synthreg.Options{Entries: 3, Signer: signer}, synthreg.RandomEntry("crash", 64<<10)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		json bool
	}{
		{"text", false},
		{"json", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			master, slave := openPTY(t)
			args := []string{"copy", src, filepath.Join(dir, "dst-"+tc.name), "--key", key, "--no-state"}
			if tc.json {
				args = append(args, "--json")
			}
			var stdout bytes.Buffer
			if code := run(t.Context(), args, strings.NewReader(""), &stdout, slave); code != exitOK {
				t.Fatalf("copy: exit %d", code)
			}
			term := readAvailable(t, master)
			if tc.json {
				if term != "" {
					t.Errorf("copy --json wrote %q to the terminal", term)
				}
				return
			}
			if !strings.HasPrefix(term, "\r\033[Kcopy: checking the source's trust chain") || !strings.HasSuffix(term, "\r\033[K") {
				t.Errorf("terminal got %q; want the counts, then the line cleared", term)
			}
			if strings.Contains(stdout.String(), "\r") || !strings.HasPrefix(stdout.String(), "copied catalog serial 1") {
				t.Errorf("stdout: %q; want only the summary", stdout.String())
			}
		})
	}
}
