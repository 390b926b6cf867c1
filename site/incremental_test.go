package site_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/site"
	"github.com/airvsx/airvsx/site/sitetest"
	"github.com/airvsx/airvsx/testkit/filetest"
)

// fileIDs identifies each file of a site by name, inode and mtime: a file
// rewritten (even with the same bytes) gets a new inode, as every write
// replaces the file by a rename.
func fileIDs(t *testing.T, dir string) map[string]os.FileInfo {
	t.Helper()
	m := make(map[string]os.FileInfo)
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		m[filepath.ToSlash(rel)] = fi
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// changedFiles lists the files written, added or removed between a and b.
func changedFiles(a, b map[string]os.FileInfo) []string {
	var out []string
	for name, fa := range a {
		fb, ok := b[name]
		if !ok {
			out = append(out, "-"+name)
		} else if !os.SameFile(fa, fb) || !fa.ModTime().Equal(fb.ModTime()) {
			out = append(out, name)
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			out = append(out, "+"+name)
		}
	}
	slices.Sort(out)
	return out
}

// TestIncremental renders a registry, changes one extension (a new
// version, as a sync adds one) and renders again in place: only that
// extension's page, its publisher's and category's pages, the home
// page, the search index and the state are written, and the result is
// the same as a full render. Then an extension goes, and so do its page
// and its files.
func TestIncremental(t *testing.T) {
	for _, mode := range []site.Downloads{site.DownloadsLink, site.DownloadsCopy, site.DownloadsNone} {
		t.Run(string(mode), func(t *testing.T) {
			exts := sitetest.Synthetic(30, 2, 400, 3)
			for i := range exts { // two entries an extension
				if i/2%5 == 0 {
					exts[i].Icon = pngN(i / 2)
				}
			}
			sv, _, err := sitetest.NewSigner()
			if err != nil {
				t.Fatal(err)
			}
			parent := t.TempDir()
			reg := filepath.Join(parent, "registry")
			now := time.Now()
			build := func(exts []sitetest.Extension, serial int64) {
				t.Helper()
				if _, err := sitetest.Build(t.Context(), reg, exts, sv, sitetest.Options{Now: now, Serial: serial}); err != nil {
					t.Fatal(err)
				}
			}
			build(exts, 1)
			opts := site.Options{Anchor: trust.Anchor{Key: sv}, Downloads: mode, Workers: 2}
			if mode == site.DownloadsLink {
				opts.RegistryDir = reg
			}
			out := filepath.Join(parent, "site")
			if res := render(t, reg, out, opts); res.Incremental || res.Written != res.Pages {
				t.Fatalf("first render: incremental %v, %d of %d pages written; want a full render", res.Incremental, res.Written, res.Pages)
			}
			before := fileIDs(t, out)

			// A new version of the sixth extension (exts[10], exts[11]),
			// with its icon.
			x := exts[10]
			x.Version = "9.0.0"
			x.Description = "the new version"
			changed := slices.Insert(slices.Clone(exts), 10, x)
			build(changed, 2)
			time.Sleep(10 * time.Millisecond) // mtimes differ
			res := render(t, reg, out, opts)
			if !res.Incremental {
				t.Fatalf("the re-render was not incremental")
			}
			key := strings.ToLower(x.ID.String())
			want := []string{
				".airvsx-site-state.json", "assets/search-index.js",
				"category/" + slugOf(x.Categories[0]) + ".html", "ext/" + key + ".html", "index.html",
				"publisher/" + strings.ToLower(x.ID.Namespace) + ".html",
			}
			if mode == site.DownloadsCopy {
				// The extension's packages are copied again, the new one added.
				want = append(want, fmt.Sprintf("+dl/%s-9.0.0.vsix", x.ID), fmt.Sprintf("dl/%s-1.0.0.vsix", x.ID), fmt.Sprintf("dl/%s-1.1.0.vsix", x.ID))
			}
			slices.Sort(want)
			if diff := cmp.Diff(want, changedFiles(before, fileIDs(t, out))); diff != "" {
				t.Errorf("files written by the re-render after a one-entry change (-want +got):\n%s", diff)
			}
			if res.Written != 4 { // ext, category, publisher, home
				t.Errorf("written %d of %d pages; want 4", res.Written, res.Pages)
			}
			full := filepath.Join(parent, "full")
			render(t, reg, full, opts)
			if diff := cmp.Diff(filetest.Files(t, full), filetest.Files(t, out)); diff != "" {
				t.Errorf("the incremental render differs from a full one (-full +incremental):\n%s", diff)
			}

			// An extension gone: its page goes, and so do its files.
			gone := exts[0]
			build(slices.Delete(slices.Clone(changed), 0, 2), 3)
			res = render(t, reg, out, opts)
			if !res.Incremental {
				t.Fatalf("the re-render was not incremental")
			}
			after := fileIDs(t, out)
			for _, name := range []string{"ext/" + strings.ToLower(gone.ID.String()) + ".html", "img/" + index.SHA256Hex(pngN(0)) + ".png"} {
				if _, ok := after[name]; ok {
					t.Errorf("%s survived the removal of %s", name, gone.ID)
				}
			}
			os.RemoveAll(full)
			render(t, reg, full, opts)
			if diff := cmp.Diff(filetest.Files(t, full), filetest.Files(t, out)); diff != "" {
				t.Errorf("the incremental render differs from a full one (-full +incremental):\n%s", diff)
			}
		})
	}
}

// TestIncrementalFallback: whatever the site cannot be sure of (no state,
// a damaged one, another downloads mode, a file it does not know, one of
// its files gone) means a full render.
func TestIncrementalFallback(t *testing.T) {
	f := demoRegistry(t)
	parent := t.TempDir()
	out := filepath.Join(parent, "site")
	opts := site.Options{Anchor: trust.Anchor{Key: f.Signer}, Now: demoNow}
	for _, c := range []struct {
		name        string
		change      func()
		opts        site.Options
		incremental bool
	}{
		{"first", func() {}, opts, false},
		{"again", func() {}, opts, true},
		{"no state", func() { os.Remove(filepath.Join(out, site.StateFile)) }, opts, false},
		{"damaged state", func() { filetest.WriteFile(t, filepath.Join(out, site.StateFile), []byte(`{"pages":`)) }, opts, false},
		{"unchanged again", func() {}, opts, true},
		{"other downloads", func() {}, func() site.Options { o := opts; o.Downloads = site.DownloadsNone; return o }(), false},
		{"stray file", func() { filetest.WriteFile(t, filepath.Join(out, "ext", "stray.html"), []byte("x")) }, opts, false},
		{"unchanged once more", func() {}, opts, true},
		{"a page gone", func() { filetest.Remove(t, filepath.Join(out, "ext", "airvsx-demo.git-helper.html")) }, opts, false},
	} {
		c.change()
		st := storetest.OpenDir(t, f.Dir1, dirstore.Options{ReadOnly: true})
		c.opts.Out = out
		res, err := site.Render(t.Context(), st, c.opts)
		st.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.Incremental != c.incremental {
			t.Errorf("%s: incremental %v; want %v", c.name, res.Incremental, c.incremental)
		}
		if c.incremental && res.Written != 0 {
			t.Errorf("%s: %d pages written; want none", c.name, res.Written)
		}
	}
}

// slugOf is the category page name of the synthetic categories (letters
// and spaces only).
func slugOf(s string) string { return strings.ReplaceAll(strings.ToLower(s), " ", "-") }

// pngN is a 1×1 PNG of a colour made from i: a different image for each i.
func pngN(i int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{uint8(i), uint8(i >> 8), 7, 255})
	var buf bytes.Buffer
	png.Encode(&buf, img)
	return buf.Bytes()
}
