package site_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/site"
	"github.com/airvsx/airvsx/site/sitetest"
)

// TestLocalEntry: an extension added by hand (airvsx add) is marked
// "added locally", with the key that added it and when, on its card,
// on its page (origin, upstream signature, versions) and in the search
// index; a mirrored one is not.
func TestLocalEntry(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	key := strings.Repeat("c", 64)
	exts := []sitetest.Extension{
		{ID: mustID("in-house.tool"), Version: "1.0.0", Published: at, DisplayName: "Tool", Local: &index.LocalAddition{AddedBy: key, AddedAt: at}},
		{ID: mustID("up.stream"), Version: "2.0.0", Published: at, DisplayName: "Upstream"},
	}
	dir, sv := synthetic(t, exts)
	out := filepath.Join(t.TempDir(), "site")
	render(t, dir, out, site.Options{Anchor: trust.Anchor{Key: sv}, Now: func() time.Time { return at.Add(time.Hour) }})

	note := "added locally by key " + key + " at 2026-12-01 09:30 UTC"
	home := readFile(t, filepath.Join(out, "index.html"))
	if n := strings.Count(home, `<span class="badge local" title="`+note+`">added locally</span>`); n != 1 {
		t.Errorf("index.html has %d added-locally badges with who and when; want 1 (in-house.tool's card)", n)
	}
	if n := strings.Count(home, "not upstream-signed"); n != 1 {
		t.Errorf("index.html says not upstream-signed %d times; want once (up.stream's card, not the local one)", n)
	}
	page := readFile(t, filepath.Join(out, "ext", "in-house.tool.html"))
	for _, want := range []string{
		`<dt>Origin</dt><dd><strong>added locally</strong> by key <code>` + key + `</code> at 2026-12-01 09:30 UTC (airvsx add)`,
		`<dt>Upstream signature</dt><dd>none: added locally</dd>`,
		`1.0.0 <span class="badge local" title="` + note + `">added locally</span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("ext/in-house.tool.html lacks %q", want)
		}
	}
	other := readFile(t, filepath.Join(out, "ext", "up.stream.html"))
	if strings.Contains(other, "added locally") || !strings.Contains(other, "mirrored from the upstream") {
		t.Errorf("ext/up.stream.html: want it mirrored, not added locally")
	}
	idx := readFile(t, filepath.Join(out, "assets", "search-index.js"))
	if !strings.Contains(idx, `"`+note+`"`) {
		t.Errorf("search-index.js lacks the local note %q", note)
	}
}
