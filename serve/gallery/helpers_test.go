package gallery

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
)

const testBase = "http://127.0.0.1:8080"

// build returns a valid entry of id at version for platform.
func build(id, version string, platform index.Platform, day int) index.Entry {
	return index.Entry{
		ID: index.MustParseID(id), Version: version, Platform: platform,
		Published:      time.Date(2026, 1, day, 12, 0, 0, 0, time.UTC),
		ManifestDigest: "sha256:" + strings.Repeat("a", 64), ManifestSize: 100,
		VsixSHA256: strings.Repeat("b", 64), VsixSize: 1000,
		Engine: "^1.80.0",
	}
}

// testCatalog is a small catalog that has every case the gallery
// distinguishes: several versions, platform-specific builds, a newest
// pre-release, a signed build, dependencies and a pack, categories,
// tags, a web build, and publishers with several extensions.
func testCatalog() *index.Catalog {
	py1 := build("ms-python.python", "2024.2.0", index.Universal, 10)
	py1.DisplayName, py1.Description = "Python", "IntelliSense (Pylance), linting and debugging for Python files"
	py1.Categories, py1.Tags = []string{"Programming Languages", "Debuggers"}, []string{"python", "jupyter"}
	py1.Dependencies = []index.ID{index.MustParseID("ms-python.debugpy")}
	py1.ExtensionPack = []index.ID{index.MustParseID("ms-python.vscode-pylance"), index.MustParseID("ms-python.debugpy")}
	py1.Repository = "https://github.com/microsoft/vscode-python.git"
	py1.Upstream = index.Signature{Signed: true, KeyID: "k"}
	py0 := py1
	py0.Version, py0.Published, py0.Upstream = "2024.0.0", py1.Published.AddDate(0, 0, -5), index.Signature{}
	pyPre := py1
	pyPre.Version, pyPre.PreRelease, pyPre.Published = "2024.3.0", true, py1.Published.AddDate(0, 0, 3)

	dbg := build("ms-python.debugpy", "2024.0.0", index.Universal, 5)
	dbg.DisplayName, dbg.Description, dbg.Categories = "Python Debugger", "Python debugger (debugpy) extension for VS Code.", []string{"Debuggers"}

	var rust []index.Entry
	for _, p := range []index.Platform{index.LinuxX64, index.DarwinArm64, index.Win32X64} {
		for _, v := range []string{"0.4.1", "0.4.2"} {
			e := build("rust-lang.rust-analyzer", v, p, 20)
			if v == "0.4.2" {
				e.Published = e.Published.AddDate(0, 0, 1)
			}
			e.DisplayName, e.Description = "rust-analyzer", "Rust language support for Visual Studio Code"
			e.Categories, e.Tags = []string{"Programming Languages", "Formatters"}, []string{"rust"}
			rust = append(rust, e)
		}
	}
	theme := build("dracula-theme.theme-dracula", "2.24.3", index.Universal, 2)
	theme.DisplayName, theme.Description = "Dracula Official", "Official Dracula Theme. A dark theme for many editors."
	theme.Categories, theme.Tags = []string{"Themes"}, []string{"theme", "dark"}
	web := build("ms-vscode.live-server", "0.5.0", index.Web, 7)
	web.DisplayName, web.Description = "Live Preview", "Hosts a local server for previewing your webpages"
	webU := web
	webU.Platform = index.Universal
	noEngine := build("someone.plain", "1.0.0", index.Universal, 1)
	noEngine.Engine = ""

	cat := &index.Catalog{Format: index.CatalogFormat, Serial: 1, Created: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}
	cat.Entries = append(cat.Entries, py0, py1, pyPre, dbg, theme, web, webU, noEngine)
	cat.Entries = append(cat.Entries, rust...)
	cat.Normalize()
	return cat
}

// Response mirrors the JSON VS Code reads (extensionGalleryService.ts,
// IRawGalleryQueryResult), decoded strictly so a misspelt field shows.
type response struct {
	Results []struct {
		Extensions     []rawExtension `json:"extensions"`
		PagingToken    *string        `json:"pagingToken"`
		ResultMetadata []struct {
			MetadataType  string `json:"metadataType"`
			MetadataItems []struct {
				Name  string `json:"name"`
				Count int    `json:"count"`
			} `json:"metadataItems"`
		} `json:"resultMetadata"`
	} `json:"results"`
}

type rawExtension struct {
	Publisher struct {
		PublisherID      string  `json:"publisherId"`
		PublisherName    string  `json:"publisherName"`
		DisplayName      string  `json:"displayName"`
		Flags            string  `json:"flags"`
		Domain           *string `json:"domain"`
		IsDomainVerified bool    `json:"isDomainVerified"`
	} `json:"publisher"`
	ExtensionID         string       `json:"extensionId"`
	ExtensionName       string       `json:"extensionName"`
	DisplayName         string       `json:"displayName"`
	Flags               string       `json:"flags"`
	LastUpdated         string       `json:"lastUpdated"`
	PublishedDate       string       `json:"publishedDate"`
	ReleaseDate         string       `json:"releaseDate"`
	ShortDescription    string       `json:"shortDescription"`
	Versions            []rawVersion `json:"versions"`
	Categories          []string     `json:"categories"`
	Tags                []string     `json:"tags"`
	Statistics          []any        `json:"statistics"`
	InstallationTargets []struct {
		Target        string `json:"target"`
		TargetVersion string `json:"targetVersion"`
	} `json:"installationTargets"`
	DeploymentType int `json:"deploymentType"`
}

type rawVersion struct {
	Version          string `json:"version"`
	TargetPlatform   string `json:"targetPlatform"`
	Flags            string `json:"flags"`
	LastUpdated      string `json:"lastUpdated"`
	AssetURI         string `json:"assetUri"`
	FallbackAssetURI string `json:"fallbackAssetUri"`
	Files            []struct {
		AssetType string `json:"assetType"`
		Source    string `json:"source"`
	} `json:"files"`
	Properties []struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	} `json:"properties"`
}

func (v *rawVersion) prop(key string) (string, bool) {
	for _, p := range v.Properties {
		if p.Key == key {
			return p.Value, true
		}
	}
	return "", false
}

func (v *rawVersion) file(assetType string) (string, bool) {
	for _, f := range v.Files {
		if f.AssetType == assetType {
			return f.Source, true
		}
	}
	return "", false
}

func decodeStrict(t testing.TB, b []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("response is not the JSON VS Code reads: %v\n%s", err, b)
	}
}

// ask parses body, runs it on ix and decodes the response.
func ask(t testing.TB, ix *Index, body string) response {
	t.Helper()
	q, err := ParseQuery(strings.NewReader(body))
	if err != nil {
		t.Fatalf("ParseQuery(%s): %v", body, err)
	}
	b, err := ix.Query(q, testBase)
	if err != nil {
		t.Fatalf("Query: %v", err)
	}
	var r response
	decodeStrict(t, b, &r)
	return r
}

func names(r response) []string {
	var out []string
	for _, e := range r.Results[0].Extensions {
		out = append(out, e.Publisher.PublisherName+"."+e.ExtensionName)
	}
	return out
}

// totalCount returns TotalCount as VS Code reads it: it throws when
// ResultCount has no TotalCount item.
func totalCount(t testing.TB, r response) int {
	t.Helper()
	for _, m := range r.Results[0].ResultMetadata {
		if m.MetadataType == "ResultCount" {
			for _, it := range m.MetadataItems {
				if it.Name == "TotalCount" {
					return it.Count
				}
			}
		}
	}
	t.Fatal("no ResultCount/TotalCount in resultMetadata: VS Code would throw")
	return 0
}
