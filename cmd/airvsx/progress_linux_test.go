package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/site/sitetest"
)

// TestStderrProgressTerminal checks that progress is on when stderr is a
// terminal, and off there with --json.
func TestStderrProgressTerminal(t *testing.T) {
	_, slave := openPTY(t)
	if p := stderrProgress(&globals{stderr: slave}, false); !p.On() {
		t.Errorf("stderrProgress(terminal).On() = false; want true")
	}
	if p := stderrProgress(&globals{stderr: slave}, true); p.On() {
		t.Errorf("stderrProgress(terminal, --json).On() = true; want false")
	}
}

// TestSiteProgressOnTerminal runs site with stderr on a terminal: the
// page count is shown on stderr and cleared at the end; stdout has only
// the summary. With --json nothing is written to the terminal.
func TestSiteProgressOnTerminal(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "reg")
	signer, pub, err := sitetest.NewSigner()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sitetest.Build(t.Context(), reg, sitetest.Synthetic(3, 1, 100, 1), signer, sitetest.Options{}); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, "k.pub")
	if err := os.WriteFile(key, pub, 0o644); err != nil {
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
			args := []string{"site", "--registry", reg, "--out", filepath.Join(dir, "www-"+tc.name), "--key", key}
			if tc.json {
				args = append(args, "--json")
			}
			var stdout bytes.Buffer
			if code := run(t.Context(), args, strings.NewReader(""), &stdout, slave); code != exitOK {
				t.Fatalf("site: exit %d", code)
			}
			term := readAvailable(t, master)
			if tc.json {
				if term != "" {
					t.Errorf("site --json wrote %q to the terminal", term)
				}
				return
			}
			if !strings.HasPrefix(term, "\r\033[Ksite: rendering 0/") || !strings.HasSuffix(term, "\r\033[K") {
				t.Errorf("terminal got %q; want the page count, then the line cleared", term)
			}
			if strings.Contains(stdout.String(), "rendering") {
				t.Errorf("progress on stdout: %q", stdout.String())
			}
		})
	}
}

// readAvailable returns what the terminal's master end can read now.
func readAvailable(t *testing.T, master *os.File) string {
	t.Helper()
	var out bytes.Buffer
	buf := make([]byte, 4096)
	for {
		if err := master.SetReadDeadline(time.Now().Add(200 * time.Millisecond)); err != nil {
			t.Skipf("no read deadline on the pseudo-terminal: %v", err)
		}
		n, err := master.Read(buf)
		out.Write(buf[:n])
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return out.String()
		}
		if err != nil {
			t.Fatalf("read the terminal: %v", err)
		}
	}
}
