package site_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/site"
	"github.com/airvsx/airvsx/site/sitetest"
)

// indexReady waits until the home page's script has loaded the search
// index (it does after the page is shown; search waits for it).
var indexReady = chromedp.WaitReady(chromedp.CSS(`html[data-index="ready"]`))

// downloadNamed clicks sel and returns the downloaded bytes and the file
// name Chromium gives the download.
func (tb *tab) downloadNamed(t *testing.T, sel string) (data, name string) {
	t.Helper()
	dir := t.TempDir()
	_, err := chromedp.CallBrowser(tb.ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: new(true),
	})
	if err != nil {
		t.Fatalf("set download behavior: %v", err)
	}
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	begins := chromedp.BrowserEvents(ctx, browser.DownloadWillBegin)
	events := chromedp.BrowserEvents(ctx, browser.DownloadProgress)
	tb.run(chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
	for ev, err := range begins {
		if err != nil {
			t.Fatalf("no download began after clicking %s: %v", sel, err)
		}
		name = ev.SuggestedFilename
		break
	}
	for ev, err := range events {
		if err != nil {
			t.Fatalf("no download completed after clicking %s: %v", sel, err)
		}
		if ev.State == browser.DownloadProgressStateCompleted {
			return readFile(t, filepath.Join(dir, ev.GUID)), name
		}
		if ev.State == browser.DownloadProgressStateCanceled {
			t.Fatalf("the download of %s was canceled", sel)
		}
	}
	return "", name
}

// TestBrowserLinkedDownload: with --downloads link the download link
// leaves the site for the package stored in the registry beside it; from
// file:// and over http (the server serving the directory that holds
// both) Chromium downloads the package's bytes; over http under the name
// the download attribute gives, from file:// under the stored file's
// name (its digest), which the page warns of.
func TestBrowserLinkedDownload(t *testing.T) {
	reg, pkgs, anchor := downloadsRegistry(t)
	parent := filepath.Dir(reg)
	out := filepath.Join(parent, "site")
	render(t, reg, out, site.Options{Anchor: anchor, Downloads: site.DownloadsLink, RegistryDir: reg})
	sharedBrowser(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(parent)))
	defer srv.Close()
	for _, mode := range []struct{ name, root, base string }{
		{"file", "file://" + parent + "/", "file://" + out + "/"},
		{"http", srv.URL + "/", srv.URL + "/site/"},
	} {
		t.Run(mode.name, func(t *testing.T) {
			tb := newTab(t)
			tb.run(chromedp.Navigate(mode.base+"ext/pics.gallery.html"), chromedp.WaitVisible(chromedp.CSS("a.download")))
			href := get(tb, chromedp.Evaluate[string](`document.querySelector("a.download").href`))
			if !strings.HasPrefix(href, mode.root+"registry/extensions/pics/gallery/blobs/sha256/") {
				t.Errorf("download link %s; want one into the registry", href)
			}
			data, name := tb.downloadNamed(t, "a.download")
			if data != string(pkgs[1]) {
				t.Errorf("the download is %d bytes, not the package's %d", len(data), len(pkgs[1]))
			}
			// Over http the link is same-origin and the download
			// attribute names the file. From file:// Chromium ignores
			// the attribute (a file URL is an origin of its own) and
			// names the file by the URL, the digest, with ".zip" for
			// what it sniffs: the page says which name to give it.
			want := "Pics.Gallery-2.0.0.vsix"
			if mode.name == "file" {
				want = path.Base(href) + ".zip"
			}
			if name != want {
				t.Errorf("Chromium names the download %q; want %q", name, want)
			}
			tb.check(mode.root)
		})
	}
}

// TestBrowserHomePaging: a home page of more extensions than its first
// page shows those, and "Show more" and search reach the rest, built
// from the search index like the page's own cards.
func TestBrowserHomePaging(t *testing.T) {
	exts := sitetest.Synthetic(150, 1, 100, 5)
	// Every third one added by hand: its card says so, with who and when.
	for i := range exts {
		if i%3 == 0 {
			exts[i].Local = &index.LocalAddition{AddedBy: strings.Repeat("c", 64), AddedAt: time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)}
		}
	}
	dir, key := synthetic(t, exts)
	out := filepath.Join(t.TempDir(), "site")
	render(t, dir, out, site.Options{Anchor: trust.Anchor{Key: key}})
	home := readFile(t, filepath.Join(out, "index.html"))
	if n := strings.Count(home, `<li class="card">`); n != site.FirstPage {
		t.Errorf("index.html holds %d cards; want %d", n, site.FirstPage)
	}
	sharedBrowser(t)
	tb := newTab(t)
	base := "file://" + out + "/"
	tb.run(chromedp.Navigate(base+"index.html"), chromedp.WaitVisible(chromedp.ID("status")))
	// The page's first cards, as rendered, before the index is used.
	first := evalStrings(tb, visibleIDs)
	if len(first) != site.FirstPage {
		t.Fatalf("%d cards shown; want %d", len(first), site.FirstPage)
	}
	firstHTML := evalStrings(tb, `Array.from(document.querySelectorAll("#cards .card")).map(function (c) { return c.outerHTML; })`)
	if n := strings.Count(strings.Join(firstHTML, ""), `<span class="badge local" title="added locally by key cccc`); n < site.FirstPage/4 {
		t.Errorf("%d of the page's first %d cards say added locally; want about a third", n, site.FirstPage)
	}
	tb.run(indexReady)
	// The button clicked through the DOM, which runs its handler at
	// once: a mouse click at its coordinates missed it once on a loaded
	// machine (still 60 cards after it), the layout moving under it.
	tb.run(chromedp.WaitVisible(chromedp.ID("more")))
	get(tb, chromedp.Evaluate[bool](`(document.getElementById("more").click(), true)`))
	ids := evalStrings(tb, visibleIDs)
	if len(ids) != 2*site.FirstPage || !equal(ids[:site.FirstPage], first) {
		t.Errorf("after Show more %d cards, the first %v; want %d, the page's first first", len(ids), ids[:min(3, len(ids))], 2*site.FirstPage)
	}
	if status := get(tb, chromedp.Text(chromedp.ID("status"))); status != "150 extensions, showing the first 120" {
		t.Errorf("status %q", status)
	}
	// A card built by the script is the page's own card, added locally
	// or not.
	built := evalStrings(tb, `Array.from(document.querySelectorAll("#results .card")).map(function (c) { return c.outerHTML; })`)
	for i := range min(len(built), len(firstHTML)) {
		if norm(built[i]) != norm(firstHTML[i]) {
			t.Errorf("the script's card %d differs from the page's:\n%s\n%s", i, built[i], firstHTML[i])
		}
	}
	// Search reaches past the first page.
	last := exts[len(exts)-1].ID.String()
	tb.run(chromedp.SendKeys(chromedp.ID("q"), last))
	if ids := evalStrings(tb, visibleIDs); len(ids) == 0 || ids[0] != last {
		t.Errorf("searching %s lists %v", last, ids)
	}
	tb.check(base)
}

// norm drops the white space between elements.
func norm(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, ">\n<", "><")), " ")
}
