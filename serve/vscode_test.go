package serve_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/serve"
	"github.com/airvsx/airvsx/serve/gallery"
)

// galleryAnswer is what VS Code reads of an extensionquery answer
// (extensionGalleryService.ts: queryRawGalleryExtensions, toExtension,
// getVersionAsset).
type galleryAnswer struct {
	Results []struct {
		Extensions []struct {
			ExtensionName string
			Publisher     struct{ PublisherName string }
			Versions      []struct {
				Version        string
				TargetPlatform string
				Files          []struct{ AssetType, Source string }
			}
		}
		ResultMetadata []struct {
			MetadataType  string
			MetadataItems []struct {
				Name  string
				Count int
			}
		}
	}
}

// demoNames puts the demo registry's extensions in the place of those
// the recorded bodies name (serve/gallery/testdata/vscode/README.md says
// where each body comes from): the same queries, over this catalog.
func demoNames() *strings.Replacer {
	id := func(s string) string { return gallery.ExtensionUUID(index.MustParseID(s)) }
	return strings.NewReplacer(
		id("ms-python.python"), id("airvsx-demo.night-theme"),
		id("rust-lang.rust-analyzer"), id("airvsx-demo.hello-command"),
		"ms-python.python", "airvsx-demo.night-theme",
		"dracula-theme.theme-dracula", "other-pub.unsigned-tool",
		`publisher:\"ms-python\"`, `publisher:\"airvsx-demo\"`,
		`"value":"python"`, `"value":"night"`,
	)
}

// TestVSCodeRequests: the bodies VS Code's gallery service sends (search,
// a category, the popular list, a publisher, one ID, a batch of IDs,
// every version of one), POSTed to a loopback serve with serve/gallery
// wired in, are answered as VS Code reads them (TotalCount, versions
// with files), and every asset URL of the answers downloads the bytes of
// that layer of that build.
func TestVSCodeRequests(t *testing.T) {
	f := newFixture(t, serve.Options{Gallery: serve.NewGallery})
	cat := catalog(t, f.dir)
	bodies, err := filepath.Glob(filepath.Join("gallery", "testdata", "vscode", "*.json"))
	if err != nil || len(bodies) < 7 {
		t.Fatalf("the recorded bodies: %v %v", bodies, err)
	}
	roles := map[string]artifact.Role{
		"Microsoft.VisualStudio.Services.VSIXPackage":       artifact.RoleVsix,
		"Microsoft.VisualStudio.Code.Manifest":              artifact.RoleManifest,
		"Microsoft.VisualStudio.Services.Content.Details":   artifact.RoleReadme,
		"Microsoft.VisualStudio.Services.Content.Changelog": artifact.RoleChangelog,
		"Microsoft.VisualStudio.Services.Content.License":   artifact.RoleLicense,
		"Microsoft.VisualStudio.Services.Icons.Default":     artifact.RoleIcon,
		"Microsoft.VisualStudio.Services.VsixSignature":     artifact.RoleUpstreamSignature,
	}
	downloads := 0
	for _, p := range bodies {
		t.Run(filepath.Base(p), func(t *testing.T) {
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			body := demoNames().Replace(string(raw))
			req, _ := http.NewRequestWithContext(t.Context(), "POST", f.ts.URL+"/vscode/gallery/extensionquery", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json;api-version=3.0-preview.1")
			resp, b := do(t, req)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: %s %.300s", body, resp.Status, b)
			}
			var a galleryAnswer
			if err := json.Unmarshal(b, &a); err != nil || len(a.Results) != 1 {
				t.Fatalf("%s: %v %.300s", body, err, b)
			}
			total := -1
			for _, m := range a.Results[0].ResultMetadata {
				for _, it := range m.MetadataItems {
					if m.MetadataType == "ResultCount" && it.Name == "TotalCount" {
						total = it.Count
					}
				}
			}
			if total < 1 || len(a.Results[0].Extensions) == 0 {
				t.Fatalf("%s: TotalCount %d, %d extensions; want some", body, total, len(a.Results[0].Extensions))
			}
			for _, x := range a.Results[0].Extensions {
				for _, v := range x.Versions {
					platform := index.Platform(v.TargetPlatform)
					if platform == "" {
						platform = index.Universal
					}
					e := cat.Find(index.ID{Namespace: x.Publisher.PublisherName, Name: x.ExtensionName}, v.Version, platform)
					if e == nil {
						t.Fatalf("the answer names %s.%s@%s@%s, which the catalog does not hold", x.Publisher.PublisherName, x.ExtensionName, v.Version, platform)
					}
					m := entryManifest(t, f.dir, e)
					for _, file := range v.Files {
						u, err := url.Parse(file.Source)
						if err != nil || !strings.HasPrefix(file.Source, f.ts.URL+"/") {
							t.Fatalf("%s: source %q is not on the server", file.AssetType, file.Source)
						}
						l, ok := m.Layer(roles[file.AssetType])
						resp, got := f.get(t, u.RequestURI())
						if !ok {
							// The engine reads no manifest: it advertises
							// every asset type but the signature, and an
							// asset the package lacks is a clean 404 (VS
							// Code then shows no icon, no changelog).
							if resp.StatusCode != http.StatusNotFound {
								t.Errorf("%s of %s, which its package lacks: %s; want 404", file.AssetType, e, resp.Status)
							}
							continue
						}
						if resp.StatusCode != http.StatusOK || !bytes.Equal(got, layerBytes(t, f.dir, e, l)) {
							t.Errorf("%s of %s: %s, %d bytes; want the %d of its %s", file.AssetType, e, resp.Status, len(got), l.Size, l.Role)
						}
						downloads++
					}
				}
			}
		})
	}
	if downloads == 0 {
		t.Fatal("no asset was downloaded: the test proves nothing")
	}
	// The latest route, as VS Code's extensionUrlTemplate names it.
	resp, b := f.get(t, "/vscode/gallery/vscode/airvsx-demo/night-theme/latest")
	if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(`"extensionName":"night-theme"`)) {
		t.Errorf("latest: %s %.200s", resp.Status, b)
	}
}
