package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/site/sitetest"
	"github.com/airvsx/airvsx/testkit/demoreg"
)

func TestShellQuote(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain", "reg", "reg"},
		{"path", "/media/usb/reg-1.0_x@y", "/media/usb/reg-1.0_x@y"},
		{"space", "my reg", "'my reg'"},
		{"quote", "it's", `'it'\''s'`},
		{"dollar", "$HOME/reg", "'$HOME/reg'"},
		{"empty", "", "''"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := shellQuote(tc.in); got != tc.want {
				t.Errorf("shellQuote(%q) = %s; want %s", tc.in, got, tc.want)
			}
			if got := shellWords(t, shellQuote(tc.in)); len(got) != 1 || got[0] != tc.in {
				t.Errorf("shellWords(shellQuote(%q)) = %q; want one word", tc.in, got)
			}
		})
	}
}

// shellWords splits a command line the way a POSIX shell does for the
// quoting shellQuote produces: single quotes, backslash outside them.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var (
		words  []string
		cur    strings.Builder
		inWord bool
		quoted bool
	)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == '\'':
			quoted, inWord = true, true
		case c == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
			inWord = true
		case c == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unterminated quote in %q", line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// TestSiteHintsWork makes site fail verification and then runs every
// command its message suggests, as printed: none may be a usage error.
// verify must run and report the problem (exit 1); site --unverified must
// render (exit 0).
func TestSiteHintsWork(t *testing.T) {
	work := filepath.Join(t.TempDir(), "my work") // a space, to need quoting
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", filepath.Join(work, "state"))
	reg := filepath.Join(work, "reg")
	other := filepath.Join(work, "other")
	exts := sitetest.Synthetic(2, 1, 100, 1)
	signer, _ := demoreg.Signer(t, t.TempDir(), "signer")
	otherSigner, wrongKey := demoreg.Signer(t, work, "wrong")
	if _, err := sitetest.Build(t.Context(), reg, exts, signer, sitetest.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := sitetest.Build(t.Context(), other, exts, otherSigner, sitetest.Options{}); err != nil {
		t.Fatal(err)
	}
	wrongRoot := filepath.Join(other, "metadata", "root.json")

	for _, tc := range []struct {
		name   string
		anchor []string
	}{
		{"key", []string{"--key", wrongKey}},
		{"root", []string{"--root", wrongRoot}},
		{"key, no state", []string{"--key", wrongKey, "--no-state"}},
		{"root, a state directory", []string{"--root", wrongRoot, "--state", filepath.Join(work, "my state")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(work, "www "+tc.name)
			args := append([]string{"site", "--registry", reg, "--out", out, "--title", "Team's"}, tc.anchor...)
			var stdout, stderr bytes.Buffer
			if code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr); code != exitFailed {
				t.Fatalf("site with the wrong anchor: exit %d; want %d; stderr:\n%s", code, exitFailed, stderr.String())
			}
			var hints []string
			for line := range strings.Lines(stderr.String()) {
				if strings.HasPrefix(line, "  airvsx ") {
					hints = append(hints, strings.TrimSpace(line))
				}
			}
			if len(hints) != 2 {
				t.Fatalf("site suggested %d commands; want 2 (verify, site --unverified); stderr:\n%s", len(hints), stderr.String())
			}
			want := map[string]int{"verify": exitFailed, "site": exitOK}
			for _, h := range hints {
				words := shellWords(t, h)
				if want := commandLine(tc.anchor...); !strings.Contains(h, want) {
					t.Errorf("hint %s lacks the trust flags the user gave, %s", h, want)
				}
				var hout, herr bytes.Buffer
				code := run(t.Context(), words[1:], strings.NewReader(""), &hout, &herr)
				if code != want[words[1]] {
					t.Errorf("the suggested %s: exit %d; want %d\nstdout:\n%s\nstderr:\n%s", h, code, want[words[1]], hout.String(), herr.String())
				}
			}
			if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
				t.Errorf("the suggested site --unverified rendered nothing: %v", err)
			}
		})
	}
}
