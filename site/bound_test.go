package site_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/site"
	"github.com/airvsx/airvsx/site/sitetest"
)

// TestOversizeLayers: an extension whose icon or licence text is larger
// than the site shows is rendered with that part marked unavailable (and
// why), and every other extension renders as usual.
func TestOversizeLayers(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nsmall icon")
	big := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{'x'}, site.MaxDocumentBytes)...)
	exts := []sitetest.Extension{
		{ID: mustID("pub.big-icon"), Version: "1.0.0", Icon: big, Readme: []byte("# Big icon\n")},
		{ID: mustID("pub.big-licence"), Version: "1.0.0", Icon: png, License: bytes.Repeat([]byte("licence "), site.MaxDocumentBytes/4)},
		{ID: mustID("pub.fine"), Version: "1.0.0", Icon: png, License: []byte("MIT licence text"), Readme: []byte("# Fine\n")},
	}
	dir, key := synthetic(t, exts)
	out := filepath.Join(t.TempDir(), "site")
	res := render(t, dir, out, site.Options{Anchor: trust.Anchor{Key: key}})
	if res.Extensions != 3 || !res.Verified {
		t.Errorf("result %+v; want 3 extensions, verified", res)
	}
	for _, tc := range []struct {
		page      string
		want, not []string
	}{
		{"ext/pub.big-icon.html",
			[]string{"The icon is unavailable: it is 1.0", "this site shows.", `id="readme-big-icon"`},
			[]string{`class="icon big"`}},
		{"ext/pub.big-licence.html",
			[]string{"The licence text is unavailable: it is 2.0", "this site shows.", `class="icon big"`},
			[]string{"licence licence", `class="license"`}},
		{"ext/pub.fine.html",
			[]string{`class="icon big"`, "MIT licence text", `id="readme-fine"`},
			[]string{"unavailable"}},
	} {
		t.Run(tc.page, func(t *testing.T) {
			page := readFile(t, filepath.Join(out, tc.page))
			for _, s := range tc.want {
				if !strings.Contains(page, s) {
					t.Errorf("no %q", s)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(page, s) {
					t.Errorf("has %q", s)
				}
			}
		})
	}
}
