package main

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/trust"
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

// TestAbandon: a writer's failure removes the new registry it opened
// while that holds nothing, and keeps one holding what the run stored
// with an error that says to run the command again to finish it; a
// registry with a signed catalog, or no failure, is left as it is.
func TestAbandon(t *testing.T) {
	failed := errors.New("the upstream went away")
	for _, tc := range []struct {
		name     string
		fill     func(t *testing.T, st store.Store)
		err      error
		wantGone bool
		wantMsg  string // in the error; "" for err unchanged
	}{
		{name: "nothing stored", err: failed, wantGone: true},
		{name: "a blob stored", err: failed, fill: func(t *testing.T, st store.Store) {
			b := []byte("stored")
			if err := st.PutBlob(t.Context(), "pub/ext", index.DigestBytes(b), int64(len(b)), store.BytesContent(b)); err != nil {
				t.Fatal(err)
			}
		}, wantMsg: "has no signed catalog yet, so nothing can use it: run the sync again to finish it"},
		{name: "catalog signed", err: failed, fill: func(t *testing.T, st store.Store) {
			if err := st.WriteMetadata(t.Context(), trust.TimestampFile, []byte("{}")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "no failure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "reg")
			st, err := openRegistry(path, true)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if tc.fill != nil {
				tc.fill(t, st)
			}
			got := abandon(t.Context(), st, path, "sync", tc.err)
			if !errors.Is(got, tc.err) {
				t.Errorf("abandon returned %v; want it to wrap %v", got, tc.err)
			}
			if msg := fmt.Sprint(got); tc.wantMsg == "" && got != tc.err || tc.wantMsg != "" && !strings.Contains(msg, tc.wantMsg) {
				t.Errorf("abandon returned %q; want %q", msg, cmp.Or(tc.wantMsg, fmt.Sprint(tc.err)))
			}
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) != tc.wantGone {
				t.Errorf("the registry is gone: %v; want %v", errors.Is(err, fs.ErrNotExist), tc.wantGone)
			}
		})
	}
}
