package site_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/airvsx/airvsx/testkit/filetest"
)

// chromiumPath is Debian's chromium; CI installs it (.ci/run).
const chromiumPath = "/usr/bin/chromium"

var (
	browserOnce   sync.Once
	browserCtx    context.Context
	browserCancel context.CancelFunc
	browserErr    error
	browserData   string
)

// sharedBrowser starts one headless Chromium per test binary. Without
// Chromium the test fails in CI (CI=true) and is skipped elsewhere.
func sharedBrowser(t testing.TB) context.Context {
	t.Helper()
	if _, err := exec.LookPath(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing; CI installs the chromium package (.ci/run)", chromiumPath)
		}
		t.Skipf("%s is missing (apt-get install chromium); skipping the browser test", chromiumPath)
	}
	browserOnce.Do(func() {
		dir, err := os.MkdirTemp("", "site-chromium-")
		if err != nil {
			browserErr = err
			return
		}
		browserData = dir
		// A fresh profile and nothing that phones home: this machine (and
		// CI) refuses Google's hosts.
		opts := []chromedp.ExecAllocatorOption{
			chromedp.ExecPath(chromiumPath),
			chromedp.UserDataDir(dir),
			chromedp.Headless,
			chromedp.NoSandbox,
			chromedp.DisableGPU,
			chromedp.NoFirstRun,
			chromedp.NoDefaultBrowserCheck,
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-default-apps", true),
			chromedp.Flag("disable-extensions", true),
			chromedp.Flag("disable-features", "Translate,OptimizationHints,MediaRouter,InterestFeedContentSuggestions,AutofillServerCommunication"),
			chromedp.Flag("metrics-recording-only", true),
			chromedp.Flag("no-pings", true),
			chromedp.WindowSize(1280, 900),
		}
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancel := chromedp.NewContext(alloc)
		if err := chromedp.Do(ctx); err != nil {
			cancel()
			cancelAlloc()
			browserErr = fmt.Errorf("start chromium: %w", err)
			return
		}
		browserCtx = ctx
		browserCancel = func() { cancel(); cancelAlloc() }
	})
	if browserErr != nil {
		t.Fatal(browserErr)
	}
	return browserCtx
}

func closeBrowser() {
	if browserCancel != nil {
		browserCancel()
	}
	if browserData != "" {
		os.RemoveAll(browserData)
	}
}

// tab is one browser tab that records every request, console message,
// exception and CSP violation.
type tab struct {
	ctx context.Context
	t   testing.TB

	mu        sync.Mutex
	requests  []string
	problems  []string // console errors and warnings, exceptions, log errors
	downloads map[string]string
}

func newTab(t testing.TB) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(sharedBrowser(t))
	t.Cleanup(cancel)
	ctx, cancel2 := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancel2)
	tb := &tab{ctx: ctx, t: t, downloads: make(map[string]string)}
	err := chromedp.Listen(ctx, func(ev any) {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			tb.requests = append(tb.requests, ev.Request.URL)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				tb.problems = append(tb.problems, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			tb.problems = append(tb.problems, fmt.Sprintf("exception: %s (%s:%d)", msg, d.URL, d.LineNumber))
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				tb.problems = append(tb.problems, fmt.Sprintf("log %s %s: %s %s", ev.Entry.Level, ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
			}
		}
	})
	if err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	// CSP violations also reach the page as events: record them there.
	const watch = `window.__csp = []; document.addEventListener("securitypolicyviolation", function (e) { window.__csp.push(e.violatedDirective + " " + e.blockedURI); }, true);`
	err = chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, t, log.Enable, cdp.Empty{}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, t, runtime.Enable, cdp.Empty{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: watch})
		return err
	}))
	if err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return tb
}

func (tb *tab) run(actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, actions...); err != nil {
		tb.t.Fatalf("chromium: %v", err)
	}
}

// get runs one action that returns a value.
func get[T any](tb *tab, a chromedp.Action[T]) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, a)
	if err != nil {
		tb.t.Fatalf("chromium: %v", err)
	}
	return v
}

func evalStrings(tb *tab, js string) []string {
	tb.t.Helper()
	return get(tb, chromedp.Evaluate[[]string](js))
}

// check fails the test for any console error, exception, CSP violation,
// or request outside base; it clears what it saw.
func (tb *tab) check(base string) {
	tb.t.Helper()
	csp := evalStrings(tb, `window.__csp || []`)
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, v := range csp {
		tb.t.Errorf("CSP violation: %s", v)
	}
	for _, p := range tb.problems {
		tb.t.Errorf("browser: %s", p)
	}
	for _, u := range tb.requests {
		if !strings.HasPrefix(u, base) {
			tb.t.Errorf("request outside the site (%s): %s", base, u)
		}
	}
	tb.problems, tb.requests = nil, nil
}

// visibleIDs are the extension IDs of the cards a user sees.
const visibleIDs = `Array.from(document.querySelectorAll(".card")).filter(function (c) { return c.offsetParent !== null; }).map(function (c) { return c.querySelector(".id code").textContent; })`

const clearSearch = `(function () { var q = document.getElementById("q"); q.value = ""; return q.dispatchEvent(new Event("input")); })()`

func setSelect(id, value string) string {
	return fmt.Sprintf(`(function () { var s = document.getElementById(%q); s.value = %q; s.dispatchEvent(new Event("change", {bubbles: true})); return s.value; })()`, id, value)
}

// TestBrowser opens the rendered demo site in headless Chromium from
// file:// and from a loopback HTTP server.
func TestBrowser(t *testing.T) {
	out := demoSite(t)
	sharedBrowser(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(out)))
	defer srv.Close()
	for _, mode := range []struct{ name, base string }{
		{"file", "file://" + out + "/"},
		{"http", srv.URL + "/"},
	} {
		t.Run(mode.name, func(t *testing.T) {
			tb := newTab(t)
			base := mode.base
			tb.run(chromedp.Navigate(base+"index.html"), chromedp.WaitVisible(chromedp.ID("status")), indexReady)
			if ids := evalStrings(tb, visibleIDs); !sameSet(ids, demoIDs) {
				t.Errorf("home lists %v; want %v", ids, demoIDs)
			}

			// Typing an ID narrows the list to it.
			tb.run(chromedp.SendKeys(chromedp.ID("q"), "airvsx-demo.git-helper"))
			if ids := evalStrings(tb, visibleIDs); !equal(ids, []string{"airvsx-demo.git-helper"}) {
				t.Errorf("after typing an ID the list is %v", ids)
			}
			// Prefix search across fields; a name match before a display-name word.
			get(tb, chromedp.Evaluate[bool](clearSearch))
			tb.run(chromedp.SendKeys(chromedp.ID("q"), "git"))
			if ids := evalStrings(tb, visibleIDs); !equal(ids, []string{"airvsx-demo.git-helper", "airvsx-demo.uses-git"}) {
				t.Errorf("searching git lists %v", ids)
			}
			if status := get(tb, chromedp.Text(chromedp.ID("status"))); status != "2 of 6 extensions" {
				t.Errorf("status %q", status)
			}
			get(tb, chromedp.Evaluate[bool](clearSearch))

			// Filters.
			for _, f := range []struct {
				sel, value string
				want       []string
			}{
				{"category", "Themes", []string{"airvsx-demo.night-theme"}},
				{"category", "", demoIDs},
				{"platform", "linux-x64", []string{"airvsx-demo.hello-command"}},
				{"platform", "", demoIDs},
				{"capability", "declared:spawn", []string{"airvsx-demo.git-helper"}},
				{"capability", "", demoIDs},
			} {
				get(tb, chromedp.Evaluate[string](setSelect(f.sel, f.value)))
				if ids := evalStrings(tb, visibleIDs); !sameSet(ids, f.want) {
					t.Errorf("%s %q lists %v; want %v", f.sel, f.value, ids, f.want)
				}
			}
			shot(t, tb, "home-"+mode.name+".png")
			tb.check(base)

			// An extension page: the README's heading, the download.
			tb.run(chromedp.Navigate(base+"ext/airvsx-demo.hello-command.html"), chromedp.WaitVisible(chromedp.CSS(".readme h1")))
			if heading := get(tb, chromedp.Text(chromedp.CSS(".readme h1"))); heading != "Hello Command" {
				t.Errorf("README heading %q", heading)
			}
			href := get(tb, chromedp.Evaluate[string](`document.querySelector("a.download").href`))
			if want := base + "dl/airvsx-demo.hello-command-1.0.0.vsix"; href != want {
				t.Errorf("download link %s; want %s", href, want)
			}
			fixture := readFile(t, "../testdata/vsix/airvsx-demo.hello-command-1.0.0.vsix")
			if mode.name == "file" {
				// The link resolves to a file of the site with the same bytes.
				u, err := url.Parse(href)
				if err != nil {
					t.Fatal(err)
				}
				if got := readFile(t, u.Path); got != fixture {
					t.Errorf("%s is not the fixture's vsix", u.Path)
				}
			}
			if got := tb.download(t, "a.download"); got != fixture {
				t.Errorf("the download is %d bytes, not the fixture's %d", len(got), len(fixture))
			}
			shot(t, tb, "extension-"+mode.name+".png")
			tb.check(base)
		})
	}
}

// TestBrowserThemesAndPhone: the dark theme follows the system, "/"
// focuses the search, and a phone-width home page does not scroll sideways.
func TestBrowserThemesAndPhone(t *testing.T) {
	out := demoSite(t)
	tb := newTab(t)
	base := "file://" + out + "/"
	bg := `getComputedStyle(document.body).backgroundColor`
	tb.run(chromedp.Navigate(base+"index.html"), chromedp.WaitVisible(chromedp.ID("status")))
	light := get(tb, chromedp.Evaluate[string](bg))

	get(tb, chromedp.Evaluate[bool](`document.activeElement.blur(), true`))
	tb.run(chromedp.KeyEvent("/"))
	if id := get(tb, chromedp.Evaluate[string](`document.activeElement.id`)); id != "q" {
		t.Errorf("after / the focus is on %q; want the search box", id)
	}
	// CDP sends the character apart from the keydown the page cancels.
	get(tb, chromedp.Evaluate[bool](clearSearch))

	tb.run(chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}},
		})
		return err
	}))
	dark := get(tb, chromedp.Evaluate[string](bg))
	if light == dark || light == "" {
		t.Errorf("background light %q, dark %q; want two themes", light, dark)
	}
	shot(t, tb, "home-dark.png")
	tb.run(chromedp.Navigate(base+"ext/airvsx-demo.git-helper.html"), chromedp.WaitVisible(chromedp.CSS(".readme h1")))
	shot(t, tb, "extension-dark.png")

	tb.run(chromedp.EmulateViewport(375, 800))
	for _, page := range []string{"index.html", "ext/airvsx-demo.hello-command.html"} {
		tb.run(chromedp.Navigate(base+page), chromedp.WaitVisible(chromedp.CSS("main")))
		if w := get(tb, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 375 {
			t.Errorf("%s at 375 px is %d px wide", page, w)
		}
	}
	shot(t, tb, "extension-phone.png")
	tb.check(base)
}

// download clicks the link sel and returns the bytes the browser saved.
func (tb *tab) download(t *testing.T, sel string) string {
	t.Helper()
	data, _ := tb.downloadNamed(t, sel)
	return data
}

// shot writes a full-page screenshot into the test's artifact directory
// (kept with go test -artifacts -outputdir DIR).
func shot(t *testing.T, tb *tab, name string) {
	t.Helper()
	png := get(tb, chromedp.FullScreenshot(100))
	p := filepath.Join(t.ArtifactDir(), name)
	filetest.WriteFile(t, p, png)
	t.Logf("screenshot: %s", p)
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := make(map[string]int)
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

func equal(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") }
