package site_test

import (
	"bytes"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/site"
	"github.com/airvsx/airvsx/site/sitetest"
	"github.com/airvsx/airvsx/testkit/filetest"
)

// demoIDs are the extensions the demo policy mirrors.
var demoIDs = []string{
	"airvsx-demo.demo-pack", "airvsx-demo.git-helper", "airvsx-demo.hello-command",
	"airvsx-demo.night-theme", "airvsx-demo.uses-git", "other-pub.unsigned-tool",
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	return string(filetest.ReadFile(t, name))
}

func TestRenderDemo(t *testing.T) {
	out := demoSite(t)
	home := readFile(t, filepath.Join(out, "index.html"))
	for _, id := range demoIDs {
		if !strings.Contains(home, `<code>`+id+`</code>`) {
			t.Errorf("index.html does not list %s", id)
		}
		if _, err := os.Stat(filepath.Join(out, "ext", id+".html")); err != nil {
			t.Errorf("no page for %s: %v", id, err)
		}
	}
	if strings.Contains(home, "Not verified") {
		t.Errorf("index.html of a verified catalog has the not-verified banner")
	}
	for _, want := range []string{`7 packages (versions and platforms)`, `catalog serial 1`, ` · signed 20`, ` · expires 20`} {
		if !strings.Contains(home, want) {
			t.Errorf("index.html summary lacks %q", want)
		}
	}

	// Every vsix is in dl/ under its right name, byte for byte.
	for _, name := range []string{
		"airvsx-demo.hello-command-1.0.0.vsix", "airvsx-demo.hello-command-1.0.0@linux-x64.vsix",
		"airvsx-demo.night-theme-2.1.0.vsix", "other-pub.unsigned-tool-0.1.0.vsix",
	} {
		want := filetest.ReadFile(t, filepath.Join("..", "testdata", "vsix", name))
		got, err := os.ReadFile(filepath.Join(out, "dl", name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("dl/%s: not the fixture's bytes (err %v)", name, err)
		}
	}

	page := readFile(t, filepath.Join(out, "ext", "airvsx-demo.hello-command.html"))
	for _, want := range []string{
		`<h1 id="readme-hello-command">Hello Command</h1>`,
		// vsce made the README's image absolute: shown as a link, not loaded.
		`[remote image not loaded: <a href="https://github.com/airvsx-demo/hello-command/raw/HEAD/icon.png" rel="nofollow noopener noreferrer">Hello Command icon</a>]`,
		`<details><summary>Show the changelog</summary>`,
		`href="../dl/airvsx-demo.hello-command-1.0.0.vsix" download="airvsx-demo.hello-command-1.0.0.vsix"`,
		`href="../dl/airvsx-demo.hello-command-1.0.0@linux-x64.vsix"`,
		`code --install-extension airvsx-demo.hello-command-1.0.0.vsix`,
		`<code class="digest">66c531dc28363ac2332aea518d7f34a7ff1a7204297768de2767e0df98ba6797</code>`,
		`<dt>Licence</dt><dd>MIT</dd>`,
		`<a href="https://github.com/airvsx-demo/hello-command.git" rel="nofollow noopener noreferrer">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("hello-command page lacks %q", want)
		}
	}
	git := readFile(t, filepath.Join(out, "ext", "airvsx-demo.git-helper.html"))
	for _, want := range []string{`declares spawn`, `<td>spawn</td><td><code>extension/extension.js</code></td><td><code>require(&#34;child_process&#34;)</code></td>`} {
		if !strings.Contains(git, want) {
			t.Errorf("git-helper page lacks %q", want)
		}
	}
	uses := readFile(t, filepath.Join(out, "ext", "airvsx-demo.uses-git.html"))
	if !strings.Contains(uses, `<a href="../ext/airvsx-demo.git-helper.html">airvsx-demo.git-helper</a>`) {
		t.Errorf("uses-git page does not link its dependency")
	}
	pack := readFile(t, filepath.Join(out, "ext", "airvsx-demo.demo-pack.html"))
	if !strings.Contains(pack, `<a href="../ext/airvsx-demo.night-theme.html">airvsx-demo.night-theme</a>`) {
		t.Errorf("demo-pack page does not link its pack member")
	}
	unsigned := readFile(t, filepath.Join(out, "ext", "other-pub.unsigned-tool.html"))
	if !strings.Contains(unsigned, `not upstream-signed`) {
		t.Errorf("unsigned-tool page does not say it is not signed upstream")
	}
}

const cspMeta = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'">`

// TestPagesStrict checks every page for the CSP meta tag and for what the
// CSP would block anyway: inline script, style elements and attributes,
// event handler attributes.
// TestNoUnbuiltCommands checks that no file of a site shows a command
// airvsx does not have: a page must never suggest what cannot work. The
// install command that does work is shown with the registry, trust flag
// and extensions directory the operator chose (the CLI's site script runs
// it as printed).
func TestNoUnbuiltCommands(t *testing.T) {
	f := demoRegistry(t)
	out := filepath.Join(t.TempDir(), "www")
	render(t, f.Dir1, out, site.Options{Anchor: trust.Anchor{Key: f.Signer}, Registry: "/media/usb/registry",
		InstallTrust: "--key airvsx.pub", BaseURL: "https://example.org/x", Now: demoNow})
	files := filetest.Files(t, out)
	for name, b := range files {
		if strings.Contains(b, "airvsx run") {
			t.Errorf("%s shows %q, a command that does not exist yet", name, "airvsx run")
		}
	}
	page := files["ext/airvsx-demo.hello-command.html"]
	for _, want := range []string{
		"airvsx install airvsx-demo.hello-command@1.0.0 --registry /media/usb/registry --key airvsx.pub --extensions ~/.airvsx/extensions",
		"curl -fLO https://example.org/x/dl/airvsx-demo.hello-command-1.0.0.vsix",
		"code --install-extension airvsx-demo.hello-command-1.0.0.vsix",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("hello-command page lacks %q", want)
		}
	}
}

// TestProgress checks the calls Render makes to Options.Progress: 0 of
// the total first, then one more page each call, never two calls at once
// (the race detector watches calls, unlocked here), ending at the total,
// which is the number of pages written.
func TestProgress(t *testing.T) {
	f := demoRegistry(t)
	type call struct{ done, total int }
	var calls []call
	res := render(t, f.Dir1, filepath.Join(t.TempDir(), "www"), site.Options{
		Anchor: trust.Anchor{Key: f.Signer}, Workers: 4, Now: demoNow,
		Progress: func(done, total int) { calls = append(calls, call{done, total}) },
	})
	if len(calls) != res.Pages+1 {
		t.Fatalf("Progress called %d times; want %d (0, then once a page): %v", len(calls), res.Pages+1, calls)
	}
	for i, c := range calls {
		if want := (call{i, res.Pages}); c != want {
			t.Errorf("Progress call %d = %v; want %v", i, c, want)
		}
	}
}

func TestPagesStrict(t *testing.T) {
	out := demoSite(t)
	for name, s := range filetest.Files(t, out) {
		if !strings.HasSuffix(name, ".html") {
			continue
		}
		if !strings.Contains(s, cspMeta) {
			t.Errorf("%s: no CSP meta tag", name)
		}
		doc, err := html.Parse(strings.NewReader(s))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for n := range doc.Descendants() {
			if n.Type != html.ElementNode {
				continue
			}
			if n.Data == "style" {
				t.Errorf("%s: a <style> element", name)
			}
			if n.Data == "script" && (attr(n, "src") == "" || n.FirstChild != nil) {
				t.Errorf("%s: an inline script", name)
			}
			for _, a := range n.Attr {
				if a.Key == "style" || strings.HasPrefix(a.Key, "on") {
					t.Errorf("%s: <%s %s=…>", name, n.Data, a.Key)
				}
			}
		}
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// TestNoBrokenLinks walks every link and source of every page: a relative
// one must name a file of the site; an absolute one may only be an http,
// https or mailto link the user follows (never a src that loads itself).
func TestNoBrokenLinks(t *testing.T) {
	out := demoSite(t)
	checkLinks(t, out)
}

func checkLinks(t *testing.T, out string) {
	t.Helper()
	files := filetest.Files(t, out)
	reached := map[string]bool{"index.html": true}
	queue := []string{"index.html"}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		doc, err := html.Parse(strings.NewReader(files[name]))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for n := range doc.Descendants() {
			if n.Type != html.ElementNode {
				continue
			}
			for _, a := range n.Attr {
				if a.Key != "href" && a.Key != "src" {
					continue
				}
				u, err := url.Parse(a.Val)
				if err != nil {
					t.Errorf("%s: <%s %s=%q>: %v", name, n.Data, a.Key, a.Val, err)
					continue
				}
				if u.Scheme != "" || u.Host != "" {
					if n.Data != "a" || a.Key != "href" || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "mailto") {
						t.Errorf("%s: <%s %s=%q> leaves the site", name, n.Data, a.Key, a.Val)
					}
					continue
				}
				if u.Path == "" {
					continue // a fragment of the same page
				}
				target := path.Join(path.Dir(name), u.Path)
				if strings.HasPrefix(target, "../") {
					// Only a package link leaves the site (--downloads
					// link), to a file in the registry beside it.
					if n.Data != "a" || attr(n, "download") == "" {
						t.Errorf("%s: <%s %s=%q> leaves the site", name, n.Data, a.Key, a.Val)
					} else if fi, err := os.Stat(filepath.Join(out, filepath.FromSlash(target))); err != nil || !fi.Mode().IsRegular() {
						t.Errorf("%s: <%s %s=%q>: %s is not a file (%v)", name, n.Data, a.Key, a.Val, target, err)
					}
					continue
				}
				if _, ok := files[target]; !ok {
					t.Errorf("%s: <%s %s=%q>: %s does not exist", name, n.Data, a.Key, a.Val, target)
					continue
				}
				if strings.HasSuffix(target, ".html") && !reached[target] {
					reached[target] = true
					queue = append(queue, target)
				}
			}
		}
	}
	for name := range files {
		if strings.HasSuffix(name, ".html") && !reached[name] {
			t.Errorf("%s: no page links to it", name)
		}
	}
}

// TestDeterministic renders the same registry three times (twice into
// the same directory) and compares every byte of every file.
func TestDeterministic(t *testing.T) {
	f := demoRegistry(t)
	a := filepath.Join(t.TempDir(), "a")
	b := filepath.Join(t.TempDir(), "b")
	opts := site.Options{Anchor: trust.Anchor{Root: f.Root}, Registry: "reg", Workers: 3, Now: demoNow}
	render(t, f.Dir1, a, opts)
	first := filetest.Files(t, a)
	opts.Workers = 1
	render(t, f.Dir1, b, opts)
	render(t, f.Dir1, a, opts) // replaces a
	if diff := cmp.Diff(first, filetest.Files(t, b)); diff != "" {
		t.Errorf("two renders differ (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(first, filetest.Files(t, a)); diff != "" {
		t.Errorf("a re-render in place differs (-first +second):\n%s", diff)
	}
	if len(first) < 20 {
		t.Errorf("only %d files rendered", len(first))
	}
}

// TestReplace checks the swap: the new site replaces the old one whole,
// nothing is left beside it, and a directory that is not a site is
// refused untouched.
func TestReplace(t *testing.T) {
	f := demoRegistry(t)
	parent := t.TempDir()
	out := filepath.Join(parent, "site")
	render(t, f.Dir1, out, site.Options{Anchor: trust.Anchor{Key: f.Signer}, Now: demoNow})
	stale := filepath.Join(out, "ext", "stale.html")
	filetest.WriteFile(t, stale, []byte("old"))
	render(t, f.Dir1, out, site.Options{Anchor: trust.Anchor{Key: f.Signer}, Title: "Second", Now: demoNow})
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file of the previous site survived the re-render: %v", err)
	}
	if !strings.Contains(readFile(t, filepath.Join(out, "index.html")), "<title>Second</title>") {
		t.Errorf("index.html is not the new render")
	}
	ents, _ := os.ReadDir(parent)
	if len(ents) != 1 {
		t.Errorf("beside the site: %v; want nothing", ents)
	}

	foreign := filepath.Join(parent, "home")
	os.Mkdir(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644)
	st := storetest.OpenDir(t, f.Dir1, dirstore.Options{ReadOnly: true})
	defer st.Close()
	_, err := site.Render(t.Context(), st, site.Options{Out: foreign, Anchor: trust.Anchor{Key: f.Signer}, Now: demoNow})
	if err == nil || !strings.Contains(err.Error(), "not empty and not a site") {
		t.Errorf("Render into a foreign directory: %v; want a refusal", err)
	}
	if b, _ := os.ReadFile(filepath.Join(foreign, "notes.txt")); string(b) != "mine" {
		t.Errorf("the foreign directory was changed")
	}
}

// TestTrust covers the trust anchors: none, a wrong key, an expired
// catalog, a tampered one; refused without Unverified, rendered with a
// banner on every page with it; from a directory store and from an
// in-memory one alike.
func TestTrust(t *testing.T) {
	f := demoRegistry(t)
	other, _, err := sitetest.NewSigner()
	if err != nil {
		t.Fatal(err)
	}
	tampered := filepath.Join(t.TempDir(), "tampered")
	if err := os.CopyFS(tampered, os.DirFS(f.Dir1)); err != nil {
		t.Fatal(err)
	}
	ts := filepath.Join(tampered, "metadata", "timestamp.json")
	b, _ := os.ReadFile(ts)
	b = regexp.MustCompile(`"sig":\s*"[0-9a-f]{8}`).ReplaceAll(b, []byte(`"sig": "00000000`))
	os.WriteFile(ts, b, 0o644)
	later := func() time.Time { return demoNow().Add(400 * 24 * time.Hour) }

	for _, tc := range []struct {
		name   string
		dir    string
		opts   site.Options
		want   error  // when not Unverified
		reason string // in the banner, when Unverified
	}{
		{"no anchor", f.Dir1, site.Options{}, site.ErrNoTrustAnchor, "without a trusted root or key"},
		{"wrong key", f.Dir1, site.Options{Anchor: trust.Anchor{Key: other}}, trust.ErrSignature, "not signed by the given key"},
		{"expired", f.Dir1, site.Options{Anchor: trust.Anchor{Root: f.Root}, Now: later}, trust.ErrExpired, "expired"},
		{"bad signature", tampered, site.Options{Anchor: trust.Anchor{Root: f.Root}}, trust.ErrSignature, "timestamp.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for name, st := range stores(t, tc.dir) {
				t.Run(name, func(t *testing.T) {
					out := filepath.Join(t.TempDir(), "site")
					opts := tc.opts
					opts.Out = out
					if opts.Now == nil {
						opts.Now = demoNow
					}
					_, err := site.Render(t.Context(), st, opts)
					if !errors.Is(err, site.ErrNotVerified) || !errors.Is(err, tc.want) {
						t.Fatalf("Render = %v; want %v and %v", err, site.ErrNotVerified, tc.want)
					}
					if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("a refused render left %s: %v", out, err)
					}
					opts.Unverified = true
					res, err := site.Render(t.Context(), st, opts)
					if err != nil {
						t.Fatalf("Render(Unverified) = %v", err)
					}
					if res.Verified || !strings.Contains(res.Reason, tc.reason) {
						t.Errorf("Result = verified %v, reason %q; want unverified, reason with %q", res.Verified, res.Reason, tc.reason)
					}
					n := 0
					for name, b := range filetest.Files(t, out) {
						if strings.HasSuffix(name, ".html") {
							n++
							if !strings.Contains(b, `<div class="banner" role="note">`) || !strings.Contains(b, "Not verified.") {
								t.Errorf("%s: no not-verified banner", name)
							}
							if strings.Contains(b, "catalog verified<") {
								t.Errorf("%s: says the catalog is verified", name)
							}
						}
					}
					if n != res.Pages {
						t.Errorf("%d pages on disk; Render said %d", n, res.Pages)
					}
				})
			}
		})
	}
}

// TestTamperedBlob: a vsix whose bytes differ from the catalog fails the
// render (the copy is verified while read) and leaves nothing behind,
// from a directory store and from an in-memory one alike.
func TestTamperedBlob(t *testing.T) {
	f := demoRegistry(t)
	dir := filepath.Join(t.TempDir(), "reg")
	if err := os.CopyFS(dir, os.DirFS(f.Dir1)); err != nil {
		t.Fatal(err)
	}
	const sum = "f3204155171531cde0f90f1ee83140f393cafc70cfb1c473f391aabfed4d8c8e" // other-pub.unsigned-tool-0.1.0.vsix
	blob := filepath.Join(dir, "extensions", "other-pub", "unsigned-tool", "blobs", "sha256", sum)
	os.Chmod(blob, 0o644)
	filetest.FlipByte(t, blob)
	for name, st := range stores(t, dir) {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "site")
			_, err := site.Render(t.Context(), st, site.Options{Out: out, Anchor: trust.Anchor{Root: f.Root}, Now: demoNow})
			if !errors.Is(err, store.ErrMismatch) {
				t.Fatalf("Render = %v; want %v", err, store.ErrMismatch)
			}
			ents, _ := os.ReadDir(filepath.Dir(out))
			if len(ents) != 0 {
				t.Errorf("a failed render left %v", ents)
			}
		})
	}
}

// TestReadmeImages: a relative image in the package is copied and shown;
// a missing one, an SVG, and a file that is not an image are not.
func TestReadmeImages(t *testing.T) {
	readme := "# Pics\n\n![shot](images/shot.png)\n\n![gone](images/gone.png)\n\n![vec](images/logo.svg)\n\n" +
		"![fake](images/fake.png)\n\n![up](../../outside.png)\n\n<img src=\"./images/shot.png\" width=\"10\">\n"
	dir, key := synthetic(t, []sitetest.Extension{{
		ID: mustID("pics.gallery"), Version: "1.0.0", Readme: []byte(readme), Icon: sitetest.PNG,
		Files: map[string][]byte{
			"extension/images/shot.png": sitetest.PNG,
			"extension/images/logo.svg": []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`),
			"extension/images/fake.png": []byte("<html><script>alert(1)</script></html>"),
		},
	}})
	out := filepath.Join(t.TempDir(), "site")
	render(t, dir, out, site.Options{Anchor: trust.Anchor{Key: key}})
	page := readFile(t, filepath.Join(out, "ext", "pics.gallery.html"))
	img := regexp.MustCompile(`<img src="\.\./img/([0-9a-f]{64})\.png" alt="shot" loading="lazy">`).FindStringSubmatch(page)
	if img == nil {
		t.Fatalf("the package's image is not shown:\n%s", page)
	}
	got, _ := os.ReadFile(filepath.Join(out, "img", img[1]+".png"))
	if !bytes.Equal(got, sitetest.PNG) {
		t.Errorf("img/%s.png is not the package's image", img[1])
	}
	for _, want := range []string{
		`[image not in the package: gone]`, `[image not in the package: vec]`,
		`[image not in the package: fake]`, `[image not in the package: up]`,
		`<img src="../img/` + img[1] + `.png" alt="" width="10" loading="lazy">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for name := range filetest.Files(t, out) {
		if strings.HasSuffix(name, ".svg") || strings.Contains(name, "fake") {
			t.Errorf("%s copied into the site", name)
		}
	}
	checkLinks(t, out)
}
