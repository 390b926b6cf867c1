package gallery

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index"
)

// assetURL is the URL package serve serves a build's asset at:
// {base}/vscode/asset/{ns}/{name}/{version}/{assetType}, plus
// ?targetPlatform= for a platform-specific build.
func assetURL(ns, name, version, assetType, platform string) string {
	u := testBase + "/vscode/asset/" + ns + "/" + name + "/" + version + "/" + assetType
	if platform != "" {
		u += "?targetPlatform=" + platform
	}
	return u
}

// vscodeAssets returns the asset URLs VS Code derives from one raw
// version (extensionGalleryService.ts, toExtension): getVersionAsset
// for each file type it finds in files[] (uri from assetUri, fallback
// from fallbackAssetUri), and getDownloadAsset, which always uses
// fallbackAssetUri.
func vscodeAssets(v *rawVersion) map[string][2]string {
	tp := ""
	if v.TargetPlatform != "" {
		tp = "?targetPlatform=" + v.TargetPlatform
	}
	out := map[string][2]string{}
	for _, typ := range []string{AssetManifest, AssetDetails, AssetChangelog, AssetLicense, AssetIcon, AssetSignature} {
		if _, ok := v.file(typ); ok {
			out[typ] = [2]string{v.AssetURI + "/" + typ + tp, v.FallbackAssetURI + "/" + typ + tp}
		}
	}
	dl := v.FallbackAssetURI + "/" + AssetVSIX + "?redirect=true"
	if v.TargetPlatform != "" {
		dl += "&targetPlatform=" + v.TargetPlatform
	}
	out["download"] = [2]string{dl, v.FallbackAssetURI + "/" + AssetVSIX + tp}
	return out
}

// checkAsVSCode reads one extension the way VS Code does and checks
// that every URL it would fetch is one package serve serves, that every
// version names its engine (else VS Code downloads every manifest to
// learn it) and that a signature is offered only for a signed build.
func checkAsVSCode(t *testing.T, ix *Index, e *rawExtension) {
	t.Helper()
	ns, name := e.Publisher.PublisherName, e.ExtensionName
	n, ok := ix.byKey[strings.ToLower(ns+"."+name)]
	if !ok {
		t.Fatalf("answered %s.%s, which the catalog does not have", ns, name)
	}
	x := &ix.exts[n]
	if e.ExtensionID != x.uuid || e.Publisher.PublisherID != x.pubUUID {
		t.Errorf("%s.%s: UUIDs %s %s", ns, name, e.ExtensionID, e.Publisher.PublisherID)
	}
	for i := range e.Versions {
		v := &e.Versions[i]
		var build *index.Entry
		for j := range x.builds {
			b := &x.builds[j]
			if b.Version == v.Version && (string(b.Platform) == v.TargetPlatform || v.TargetPlatform == "" && b.Platform == index.Universal) {
				build = b
			}
		}
		if build == nil {
			t.Fatalf("%s.%s@%s@%s: no such build", ns, name, v.Version, v.TargetPlatform)
		}
		if engine, ok := v.prop(PropEngine); engine != build.Engine || ok != (build.Engine != "") {
			t.Errorf("%s.%s@%s: %s %q, the catalog says %q: without it VS Code fetches the manifest", ns, name, v.Version, PropEngine, engine, build.Engine)
		}
		for typ, uris := range vscodeAssets(v) {
			assetType := typ
			if typ == "download" {
				assetType = AssetVSIX
			}
			want := assetURL(ns, name, v.Version, assetType, v.TargetPlatform)
			wantURI := want
			if typ == "download" {
				wantURI = testBase + "/vscode/asset/" + ns + "/" + name + "/" + v.Version + "/" + AssetVSIX + "?redirect=true"
				if v.TargetPlatform != "" {
					wantURI += "&targetPlatform=" + v.TargetPlatform
				}
			}
			if uris[0] != wantURI || uris[1] != want {
				t.Errorf("%s.%s@%s %s: VS Code fetches %q (fallback %q), want %q", ns, name, v.Version, typ, uris[0], uris[1], want)
			}
			if src, _ := v.file(assetType); src != want {
				t.Errorf("%s.%s@%s files[%s].source %q, want %q", ns, name, v.Version, assetType, src, want)
			}
		}
		if _, ok := v.file(AssetSignature); ok != build.Upstream.Signed {
			t.Errorf("%s.%s@%s: VsixSignature offered %v, signed upstream %v", ns, name, v.Version, ok, build.Upstream.Signed)
		}
	}
}

func TestVSCodeRequests(t *testing.T) {
	ix := New(testCatalog())
	tests := []struct {
		file     string
		want     []string
		total    int
		versions []int // versions listed per extension
	}{
		{"search-text.json", []string{"ms-python.python", "ms-python.debugpy"}, 2, []int{1, 1}},
		{"search-category.json", []string{"dracula-theme.theme-dracula"}, 1, []int{1}},
		{"search-empty.json", []string{"dracula-theme.theme-dracula", "ms-vscode.live-server", "someone.plain", "ms-python.python", "ms-python.debugpy", "rust-lang.rust-analyzer"}, 6, []int{1, 2, 1, 1, 1, 3}},
		{"search-publisher.json", []string{"ms-python.python", "ms-python.debugpy"}, 2, []int{1, 1}},
		{"get-one.json", []string{"ms-python.python"}, 1, []int{1}},
		{"get-batch.json", []string{"ms-python.python", "rust-lang.rust-analyzer", "dracula-theme.theme-dracula"}, 3, []int{1, 3, 1}},
		{"get-compatible.json", []string{"ms-python.python"}, 1, []int{3}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "vscode", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			r := ask(t, ix, string(data))
			if len(r.Results) != 1 {
				t.Fatalf("%d results; VS Code reads results[0]", len(r.Results))
			}
			if got := names(r); !slices.Equal(got, tt.want) {
				t.Errorf("extensions %q, want %q", got, tt.want)
			}
			if got := totalCount(t, r); got != tt.total {
				t.Errorf("TotalCount %d, want %d", got, tt.total)
			}
			for i := range r.Results[0].Extensions {
				e := &r.Results[0].Extensions[i]
				if i < len(tt.versions) && len(e.Versions) != tt.versions[i] {
					t.Errorf("%s: %d versions, want %d", e.ExtensionName, len(e.Versions), tt.versions[i])
				}
				if e.Categories == nil || e.Tags == nil || e.Statistics == nil {
					t.Errorf("%s: flags ask for categories, tags and statistics; got %v %v %v", e.ExtensionName, e.Categories, e.Tags, e.Statistics)
				}
				checkAsVSCode(t, ix, e)
			}
		})
	}
}

// TestVSCodeLatest reads the latest route's answer as
// getLatestRawGalleryExtension does: one IRawGalleryExtension.
func TestVSCodeLatest(t *testing.T) {
	ix := New(testCatalog())
	for _, id := range []string{"ms-python.python", "rust-lang.rust-analyzer", "ms-vscode.live-server"} {
		ns, name, _ := strings.Cut(id, ".")
		b, ok := ix.Latest(ns, name, "", testBase)
		if !ok {
			t.Fatalf("Latest(%s): not found", id)
		}
		var e rawExtension
		decodeStrict(t, b, &e)
		if len(e.Versions) == 0 {
			t.Fatalf("Latest(%s): no versions", id)
		}
		checkAsVSCode(t, ix, &e)
	}
}

// TestResponseBound checks that Query's size bound holds, so that a
// response is allocated once: for every recorded body and a base that
// needs escaping.
func TestResponseBound(t *testing.T) {
	ix := New(testCatalog())
	files, _ := filepath.Glob(filepath.Join("testdata", "vscode", "*.json"))
	bodies := []string{body(0x1|0x2|0x4|0x10|0x40|0x80|0x100, 2, 100, 1)}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, string(data))
	}
	for _, base := range []string{testBase, "https://gallery.example.org/a\"b\\c<\u2028>"} {
		for _, bd := range bodies {
			q, err := ParseQuery(strings.NewReader(bd))
			if err != nil {
				t.Fatal(err)
			}
			ans := ix.answer(q)
			esc := escapeBase(base)
			bound, _ := ix.bound(q, ans, esc)
			got := len(ix.render(nil, q, ans, esc))
			if got > bound {
				t.Errorf("base %q, body %s: %d bytes, bound %d", base, bd, got, bound)
			}
		}
	}
}
