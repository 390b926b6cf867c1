package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDistinctPlaces: copy refuses SRC and DST that are one registry, or
// one inside the other, however they are spelt.
func TestDistinctPlaces(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "reg")
	if err := os.MkdirAll(filepath.Join(reg, "extensions"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(reg, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, tc := range []struct {
		src, dst string
		ok       bool
	}{
		{"reg", "other", true},
		{"reg", "reg2", true}, // a sibling whose name starts with SRC's
		{"reg", "reg", false},
		{"reg", "./reg/", false},
		{"reg", filepath.Join(dir, "reg"), false},
		{"reg", "link", false},            // the same directory through a symbolic link
		{"reg", "reg/inner", false},       // DST inside SRC
		{"reg", "link/new/deeper", false}, // inside, through the link, not there yet
		{"reg/extensions", "reg", false},  // SRC inside DST
		{"git:repo.git#a", "git:repo.git#b", true},
		{"git:repo.git", "git:./repo.git", false},
		{"reg", "git:reg", false},
		{"docker://h:5000/vsx", "docker://H:5000/vsx", false},
		{"docker://h:5000/vsx", "docker://h:5000/other", true},
		{"reg", "docker://h:5000/vsx", true},
	} {
		err := distinctPlaces(tc.src, tc.dst)
		if (err == nil) != tc.ok {
			t.Errorf("distinctPlaces(%q, %q) = %v; want ok %v", tc.src, tc.dst, err, tc.ok)
		}
		if err != nil && exitCode(err) != exitError {
			t.Errorf("distinctPlaces(%q, %q): exit %d; want %d (usage)", tc.src, tc.dst, exitCode(err), exitError)
		}
	}
}

// TestOutsideRegistry: site and install refuse to write into a local
// registry's directory.
func TestOutsideRegistry(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, tc := range []struct {
		out, place string
		ok         bool
	}{
		{"site", "reg", true},
		{"reg-site", "reg", true},
		{"reg/site", "reg", false},
		{"reg", "reg", false},
		{"repo.git/site", "git:repo.git#main", false},
		{"site", "docker://h:5000/vsx", true},
	} {
		err := outsideRegistry("site", "--out", tc.out, tc.place)
		if (err == nil) != tc.ok {
			t.Errorf("outsideRegistry(%q, %q) = %v; want ok %v", tc.out, tc.place, err, tc.ok)
		}
	}
}
