// Package filetest holds the file helpers tests share: read, write, copy,
// damage (a flipped byte) and remove files and directory trees, each
// failing the test at once on an error, and the files of a tree as a map,
// for comparing trees.
package filetest

import (
	"io/fs"
	"os"
	"testing"
)

// ReadFile returns the content of the file name.
func ReadFile(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// WriteFile writes data to the file name (mode 0644), replacing it.
func WriteFile(tb testing.TB, name string, data []byte) {
	tb.Helper()
	if err := os.WriteFile(name, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// CopyFile copies the content of the file src to dst, replacing it.
func CopyFile(tb testing.TB, src, dst string) {
	tb.Helper()
	WriteFile(tb, dst, ReadFile(tb, src))
}

// CopyDir copies the tree under src to dst, which must not hold any of
// its files yet (os.CopyFS).
func CopyDir(tb testing.TB, src, dst string) {
	tb.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		tb.Fatal(err)
	}
}

// FlipByte flips the lowest bit of the middle byte of the file name, in
// place: the same size, but no longer the content its digest names.
func FlipByte(tb testing.TB, name string) {
	tb.Helper()
	b := ReadFile(tb, name)
	b[len(b)/2] ^= 1
	WriteFile(tb, name, b)
}

// Remove removes the file (or empty directory) name.
func Remove(tb testing.TB, name string) {
	tb.Helper()
	if err := os.Remove(name); err != nil {
		tb.Fatal(err)
	}
}

// Files returns every file under dir but the directories, by its
// slash-separated path below dir, with its content.
func Files(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	files := map[string]string{}
	fsys := os.DirFS(dir)
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		files[p] = string(b)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}
