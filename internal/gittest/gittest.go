// Package gittest damages a git repository's objects on disk for tests:
// a loose object whose content no longer is what its ID says, as a
// failing disk or an attacker would leave it.
package gittest

import (
	"bytes"
	"compress/zlib"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TamperLoose flips one byte of the content of the loose object h in the
// git directory gitDir, in place, keeping its name and size: a byte a
// quarter from the end, so that even a small object's header stays
// intact.
func TamperLoose(tb testing.TB, gitDir string, h plumbing.Hash) {
	tb.Helper()
	p := filepath.Join(gitDir, "objects", h.String()[:2], h.String()[2:])
	raw, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	zr, err := zlib.NewReader(bytes.NewReader(raw))
	if err != nil {
		tb.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	data[len(data)-1-len(data)/4] ^= 1
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
}
