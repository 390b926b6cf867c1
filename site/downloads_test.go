package site_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/site"
	"github.com/airvsx/airvsx/site/sitetest"
	"github.com/airvsx/airvsx/testkit/filetest"
)

// downloadsRegistry is a registry of one extension in two versions, the
// README showing an image of the package, in a new directory's
// "registry"; it returns the packages, 1.0.0 first.
func downloadsRegistry(t *testing.T) (reg string, pkgs [][]byte, key trust.Anchor) {
	t.Helper()
	readme := []byte("# Pics\n\n![shot](images/shot.png)\n")
	var exts []sitetest.Extension
	for _, v := range []string{"1.0.0", "2.0.0"} {
		exts = append(exts, sitetest.Extension{
			ID: mustID("Pics.Gallery"), Version: v, Readme: readme, Icon: sitetest.PNG,
			Files: map[string][]byte{"extension/images/shot.png": sitetest.PNG},
		})
	}
	sv, _, err := sitetest.NewSigner()
	if err != nil {
		t.Fatal(err)
	}
	reg = filepath.Join(t.TempDir(), "registry")
	cat, err := sitetest.Build(t.Context(), reg, exts, sv, sitetest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range exts {
		for _, e := range cat.Entries {
			if e.Version == x.Version {
				pkgs = append(pkgs, filetest.ReadFile(t, blobFile(reg, e.VsixSHA256)))
			}
		}
	}
	return reg, pkgs, trust.Anchor{Key: sv}
}

// blobFile is where the blob sum of pics.gallery is in the registry reg.
func blobFile(reg, sum string) string {
	return filepath.Join(reg, "extensions", "pics", "gallery", "blobs", "sha256", sum)
}

// TestDownloads renders one registry with each downloads mode: copy puts
// the packages in dl/; link copies nothing and links each stored package
// by a relative URL that resolves to its bytes, under its file name;
// none offers no package and says where they are. The README's image is
// shown in every mode.
func TestDownloads(t *testing.T) {
	reg, pkgs, anchor := downloadsRegistry(t)
	parent := filepath.Dir(reg)
	blob := func(i int) string {
		return "../registry/extensions/pics/gallery/blobs/sha256/" + index.SHA256Hex(pkgs[i])
	}
	for _, c := range []struct {
		mode   site.Downloads
		copied int64
		want   []string // on the extension page
		dl     int      // files in dl/
	}{
		{site.DownloadsCopy, int64(len(pkgs[0]) + len(pkgs[1])), []string{
			`<a class="download" href="../dl/Pics.Gallery-2.0.0.vsix" download="Pics.Gallery-2.0.0.vsix">`,
			`curl -fLO https://mirror.example/site/dl/Pics.Gallery-2.0.0.vsix`,
			`code --install-extension Pics.Gallery-2.0.0.vsix`,
		}, 2},
		{site.DownloadsLink, 0, []string{
			`<a class="download" href="../` + blob(1) + `" download="Pics.Gallery-2.0.0.vsix">`,
			`<a href="../` + blob(0) + `" download="Pics.Gallery-1.0.0.vsix">Pics.Gallery-1.0.0.vsix</a>`,
			`curl -fL -o Pics.Gallery-2.0.0.vsix https://mirror.example/registry/extensions/pics/gallery/blobs/sha256/` + index.SHA256Hex(pkgs[1]),
			`code --install-extension Pics.Gallery-2.0.0.vsix`,
		}, 0},
		{site.DownloadsNone, 0, []string{
			`The packages are not part of this site: they are in the registry, <code>REGISTRY</code>.`,
			`<td>Pics.Gallery-1.0.0.vsix (in the registry)</td>`,
		}, 0},
	} {
		t.Run(string(c.mode), func(t *testing.T) {
			out := filepath.Join(parent, "site-"+string(c.mode))
			opts := site.Options{Anchor: anchor, Downloads: c.mode, BaseURL: "https://mirror.example/site"}
			if c.mode == site.DownloadsLink {
				opts.RegistryDir = reg
			}
			res := render(t, reg, out, opts)
			if res.Downloads != c.mode || res.CopiedBytes != c.copied {
				t.Errorf("result: downloads %q, %d bytes copied; want %q, %d", res.Downloads, res.CopiedBytes, c.mode, c.copied)
			}
			page := readFile(t, filepath.Join(out, "ext", "pics.gallery.html"))
			for _, w := range c.want {
				if !strings.Contains(page, w) {
					t.Errorf("the page lacks %q", w)
				}
			}
			if t.Failed() {
				t.Log(page)
			}
			if c.mode != site.DownloadsCopy && strings.Contains(page, "dl/") {
				t.Errorf("the page names dl/")
			}
			if c.mode == site.DownloadsNone && (strings.Contains(page, "curl") || strings.Contains(page, "code --install-extension") || strings.Contains(page, `class="download"`)) {
				t.Errorf("the page offers a download")
			}
			if c.mode == site.DownloadsLink {
				// The link resolves, from the page, to the package's bytes.
				got := filetest.ReadFile(t, filepath.Join(out, "ext", "..", filepath.FromSlash(blob(1))))
				if !bytes.Equal(got, pkgs[1]) {
					t.Errorf("the link does not resolve to the package")
				}
			}
			dl, _ := os.ReadDir(filepath.Join(out, "dl"))
			if len(dl) != c.dl {
				t.Errorf("dl/ holds %d files; want %d", len(dl), c.dl)
			}
			if !regexp.MustCompile(`<img src="\.\./img/[0-9a-f]{64}\.png" alt="shot" loading="lazy">`).MatchString(page) {
				t.Errorf("the README's image is not shown")
			}
			checkLinks(t, out)
		})
	}
}

// TestDownloadsLinkRefused: link needs the registry's directory, one
// outside the site, and never links bytes the catalog does not pin.
func TestDownloadsLinkRefused(t *testing.T) {
	reg, pkgs, anchor := downloadsRegistry(t)
	st := func() store.Store { return storetest.OpenDir(t, reg, dirstore.Options{ReadOnly: true}) }
	for _, c := range []struct {
		name string
		opts site.Options
		want string
	}{
		{"no registry dir", site.Options{Out: filepath.Join(filepath.Dir(reg), "a")}, "link needs the registry's directory"},
		{"inside the site", site.Options{Out: filepath.Dir(reg), RegistryDir: reg}, "is inside the site"},
	} {
		c.opts.Anchor, c.opts.Downloads = anchor, site.DownloadsLink
		if _, err := site.Render(t.Context(), st(), c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Render = %v; want %q", c.name, err, c.want)
		}
	}

	// A tampered package fails the render: it is not linked.
	blob := blobFile(reg, index.SHA256Hex(pkgs[0]))
	os.Chmod(blob, 0o644)
	filetest.FlipByte(t, blob)
	out := filepath.Join(filepath.Dir(reg), "site")
	_, err := site.Render(t.Context(), st(), site.Options{Out: out, Anchor: anchor, Downloads: site.DownloadsLink, RegistryDir: reg})
	if !errors.Is(err, store.ErrMismatch) {
		t.Fatalf("Render = %v; want %v", err, store.ErrMismatch)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a failed render left the site")
	}
}
