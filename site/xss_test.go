package site_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index/trust"

	"github.com/chromedp/chromedp"

	"github.com/airvsx/airvsx/site"
	"github.com/airvsx/airvsx/site/sitetest"
)

// xssCorpus are hostile README snippets. CANARY is replaced by the URL of
// a loopback server that counts every request it gets: none may arrive.
// A payload that runs sets window.__pwned.
var xssCorpus = []struct{ name, md string }{
	{"script tag", `<script>window.__pwned = 1</script>`},
	{"img onerror", `<img src=x onerror="window.__pwned = 2">`},
	{"remote img onerror", `<img src="CANARY/img.png" onerror="window.__pwned = 3">`},
	{"markdown javascript link", `[click](javascript:window.__pwned=4)`},
	{"html javascript link", `<a href="javascript:window.__pwned = 5">x</a>`},
	{"javascript with a tab", `<a href="jav&#x09;ascript:window.__pwned=6">tab</a>`},
	{"javascript as entities", `<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;window.__pwned=7">entities</a>`},
	{"javascript mixed case and spaces", `<a href="  JaVaScRiPt:window.__pwned=8">case</a>`},
	{"svg onload", `<svg onload="window.__pwned = 9"><circle r="10"/></svg>`},
	{"svg script", `<svg><script>window.__pwned = 10</script></svg>`},
	{"svg xlink javascript", `<svg><a xlink:href="javascript:window.__pwned=11"><text y="20">x</text></a></svg>`},
	{"meta refresh", `<meta http-equiv="refresh" content="0;url=CANARY/refresh">`},
	{"base href", "<base href=\"CANARY/\">\n\n[relative](page.html) ![rel](pic.png)"},
	{"style element url", `<style>body { background: url(CANARY/css.png) }</style>`},
	{"style import", `<div><style>@import 'CANARY/import.css';</style></div>`},
	{"style attribute url", `<div style="background-image: url(CANARY/style-attr.png)">x</div>`},
	{"iframe", `<iframe src="CANARY/iframe"></iframe>`},
	{"iframe srcdoc", `<iframe srcdoc="<script>parent.__pwned = 18</script>"></iframe>`},
	{"form autofocus", `<form action="CANARY/form"><input name="a" autofocus onfocus="window.__pwned = 19"><button>go</button></form>`},
	{"object and embed", `<object data="CANARY/obj.swf"></object><embed src="CANARY/embed.swf">`},
	{"object javascript", `<object data="javascript:window.__pwned=21"></object>`},
	{"html comment", "<!-- <script>window.__pwned = 22</script> -->\n<!--><script>window.__pwned = 22</script>-->"},
	{"escaped entities stay text", `&lt;script&gt;window.__pwned = 23&lt;/script&gt;`},
	{"data image", `<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9IndpbmRvdy5fX3B3bmVkPTI0Ij48L3N2Zz4=">`},
	{"data link", `[x](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0yNTwvc2NyaXB0Pg==)`},
	{"details ontoggle", `<details open ontoggle="window.__pwned = 26"><summary>x</summary>y</details>`},
	{"math xlink", `<math><mi xlink:href="javascript:window.__pwned=27">x</mi></math>`},
	{"link stylesheet", `<link rel="stylesheet" href="CANARY/style.css">`},
	{"media", `<video src="CANARY/v.mp4" poster="CANARY/poster.png" autoplay></video><audio src="CANARY/a.mp3" autoplay></audio>`},
	{"srcset", `<img srcset="CANARY/srcset.png 2x" src="CANARY/srcset-src.png">`},
	{"picture source", `<picture><source srcset="CANARY/pic.webp"><img src="CANARY/pic.png" alt="pic"></picture>`},
	{"noscript mutation", `<noscript><p title="</noscript><img src=x onerror=window.__pwned=32>"></noscript>`},
	{"table background", `<table background="CANARY/bg.png"><tr><td>x</td></tr></table>`},
	{"input image", `<input type="image" src="CANARY/input.png">`},
	{"dom clobbering", `<a href="#x" id="AIRVSX_INDEX" name="AIRVSX_INDEX">a</a><form id="search"><input id="q"></form><img name="__csp">`},
	{"markdown remote image", `![shot](CANARY/md-image.png "title")`},
	{"body onload", `<body onload="window.__pwned = 37">`},
	{"xmp", `<xmp><script>window.__pwned = 38</script></xmp>`},
	{"textarea", `<textarea><script>window.__pwned = 39</script></textarea>`},
	{"split script", `<scr<script>ipt>window.__pwned = 40</scr</script>ipt>`},
	{"attribute break-out", `<img src="x" alt="&quot; onerror=&quot;window.__pwned = 41">`},
	{"autolink javascript", `<javascript:window.__pwned=42>`},
	{"protocol-relative image", `<img src="//127.0.0.1:1/protocol-relative.png">`},
	{"mouseover handler", `<p onmouseover="window.__pwned = 44" onfocus="window.__pwned = 44" tabindex="0">hover</p>`},
	{"task list then script", "- [x] done\n- [ ] <script>window.__pwned = 45</script>"},
}

// xssSite renders one extension per corpus entry.
func xssSite(t *testing.T, canary string) string {
	t.Helper()
	var exts []sitetest.Extension
	for i, c := range xssCorpus {
		exts = append(exts, sitetest.Extension{
			ID: mustID(fmt.Sprintf("xss.case-%02d", i)), Version: "1.0.0", DisplayName: c.name,
			Description: `"><script>window.__pwned = "description"</script>`,
			Tags:        []string{`<img src=x onerror="window.__pwned='tag'">`},
			Categories:  []string{`<svg onload="window.__pwned='category'">`},
			Readme:      []byte("# Case\n\n" + strings.ReplaceAll(c.md, "CANARY", canary) + "\n"),
			Repository:  "javascript:window.__pwned='repository'",
		})
	}
	dir, key := synthetic(t, exts)
	out := filepath.Join(t.TempDir(), "site")
	render(t, dir, out, site.Options{Anchor: trust.Anchor{Key: key}})
	return out
}

var (
	reReadme  = regexp.MustCompile(`(?s)<article class="doc">(.*?)</article>`)
	reBadHTML = regexp.MustCompile(`(?i)<\s*(script|style|iframe|object|embed|svg|math|meta|base|link|form|button|textarea|xmp|noscript|video|audio|source|picture|body|html)\b|\son[a-z]+\s*=|\sstyle\s*=|\ssrcset\s*=|=\s*"?\s*(?:javascript|data|vbscript):|\sbackground\s*=|\sid="(?:AIRVSX_INDEX|search|q)"|\sname\s*=`)
)

// TestXSSCorpusStatic checks the rendered README of every corpus entry for
// what may not survive sanitizing. It needs no browser.
func TestXSSCorpusStatic(t *testing.T) {
	if len(xssCorpus) < 25 {
		t.Fatalf("the corpus has %d entries; want at least 25", len(xssCorpus))
	}
	const canary = "http://127.0.0.1:9/canary"
	out := xssSite(t, canary)
	for i, c := range xssCorpus {
		page := readFile(t, filepath.Join(out, "ext", fmt.Sprintf("xss.case-%02d.html", i)))
		m := reReadme.FindStringSubmatch(page)
		if m == nil {
			t.Errorf("%s: no rendered README", c.name)
			continue
		}
		if bad := reBadHTML.FindString(m[1]); bad != "" {
			t.Errorf("%s: the README keeps %q:\n%s", c.name, bad, m[1])
		}
		for _, src := range regexp.MustCompile(`\ssrc="([^"]*)"`).FindAllStringSubmatch(m[1], -1) {
			if !strings.HasPrefix(src[1], "../img/") {
				t.Errorf("%s: an image loads %q", c.name, src[1])
			}
		}
		if strings.Contains(page, "<script>window") || strings.Contains(page, `href="javascript:`) {
			t.Errorf("%s: the page keeps a payload outside the README", c.name)
		}
	}
	checkLinks(t, out)
}

// TestXSSCorpusBrowser opens every corpus page in Chromium, moves over,
// focuses and toggles every element of the README, and checks that no
// payload ran (window.__pwned stays unset) and that no request left the
// site (none reached the canary server, none in the network events).
func TestXSSCorpusBrowser(t *testing.T) {
	sharedBrowser(t)
	var hits atomic.Int64
	var hitPaths []string
	canary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		hitPaths = append(hitPaths, r.URL.Path)
		fmt.Fprint(w, `<script>window.__pwned = "canary"</script>`)
	}))
	defer canary.Close()
	out := xssSite(t, canary.URL)
	base := "file://" + out + "/"
	tb := newTab(t)
	const poke = `(function () {
		var els = document.querySelectorAll(".readme *, .readme");
		for (var i = 0; i < els.length; i++) {
			var el = els[i];
			["mouseover", "mouseenter", "mousemove", "focus", "focusin", "animationstart", "transitionend"].forEach(function (type) {
				el.dispatchEvent(new Event(type, {bubbles: true}));
			});
			if (typeof el.focus === "function") { el.focus(); }
			if (el.tagName === "DETAILS") { el.open = !el.open; }
		}
		return els.length;
	})()`
	for i, c := range xssCorpus {
		page := fmt.Sprintf("%sext/xss.case-%02d.html", base, i)
		tb.run(chromedp.Navigate(page), chromedp.WaitReady(chromedp.CSS(".readme")))
		get(tb, chromedp.Evaluate[int](poke))
		tb.run(chromedp.Sleep(50 * time.Millisecond))
		if pwned := get(tb, chromedp.Evaluate[string](`String(window.__pwned)`)); pwned != "undefined" {
			t.Errorf("%s: a payload ran: window.__pwned = %s", c.name, pwned)
		}
		tb.check(base)
	}
	// The home page shows every hostile description, tag and category.
	tb.run(chromedp.Navigate(base+"index.html"), chromedp.WaitVisible(chromedp.ID("status")), indexReady)
	get(tb, chromedp.Evaluate[bool](`(function () { var q = document.getElementById("q"); q.value = "xss"; return q.dispatchEvent(new Event("input")); })()`))
	if pwned := get(tb, chromedp.Evaluate[string](`String(window.__pwned)`)); pwned != "undefined" {
		t.Errorf("home: a payload ran: window.__pwned = %s", pwned)
	}
	if n := len(evalStrings(tb, visibleIDs)); n != len(xssCorpus) {
		t.Errorf("home: searching xss shows %d cards; want %d", n, len(xssCorpus))
	}
	tb.check(base)
	if n := hits.Load(); n != 0 {
		t.Errorf("the canary server got %d requests: %v", n, hitPaths)
	}
}
