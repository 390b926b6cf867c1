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
	"github.com/airvsx/airvsx/testkit/demoreg"
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
	signer, key := demoreg.Signer(t, dir, "k")
	if _, err := sitetest.Build(t.Context(), reg, sitetest.Synthetic(3, 1, 100, 1), signer, sitetest.Options{}); err != nil {
		t.Fatal(err)
	}
	args := func(name string) []string {
		// --downloads given: without it the text run notes its choice
		// on stderr first (site_render.txtar checks that).
		return []string{"site", "--registry", reg, "--out", filepath.Join(dir, "www-"+name), "--key", key, "--downloads", "link"}
	}
	testProgressOnTerminal(t, args, "\r\033[Ksite: rendering 0/", "the page count", func(t *testing.T, stdout string) {
		if strings.Contains(stdout, "rendering") {
			t.Errorf("progress on stdout: %q", stdout)
		}
	})
}

// testProgressOnTerminal runs the command args(name) with stderr on a
// terminal, in a subtest "text" and, with --json, in a subtest "json".
// With --json nothing may reach the terminal; as text, the terminal must
// get termPrefix first (showing what, for the message) and end with the
// line cleared. checkStdout checks the text run's stdout.
func testProgressOnTerminal(t *testing.T, args func(name string) []string, termPrefix, what string, checkStdout func(t *testing.T, stdout string)) {
	for _, tc := range []struct {
		name string
		json bool
	}{
		{"text", false},
		{"json", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			master, slave := openPTY(t)
			args := args(tc.name)
			if tc.json {
				args = append(args, "--json")
			}
			var stdout bytes.Buffer
			if code := run(t.Context(), args, strings.NewReader(""), &stdout, slave); code != exitOK {
				t.Fatalf("%s: exit %d", args[0], code)
			}
			term := readAvailable(t, master)
			if tc.json {
				if term != "" {
					t.Errorf("%s --json wrote %q to the terminal", args[0], term)
				}
				return
			}
			if !strings.HasPrefix(term, termPrefix) || !strings.HasSuffix(term, "\r\033[K") {
				t.Errorf("terminal got %q; want %s, then the line cleared", term, what)
			}
			checkStdout(t, stdout.String())
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
