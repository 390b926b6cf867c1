package vsix

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index"
)

// sampleVSIXManifest is the vsce 4.1.0 output measured in
// research/host-sandbox.md §1.2 (placeholders filled in).
func sampleVSIXManifest(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/extension.vsixmanifest")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseVSIXManifestSample(t *testing.T) {
	data := sampleVSIXManifest(t)
	var r Report
	v, err := ParseVSIXManifest(data, &r)
	if err != nil {
		t.Fatalf("ParseVSIXManifest(sample) = %v", err)
	}
	if len(r.Problems) != 0 {
		t.Errorf("ParseVSIXManifest(sample) problems = %v; want none", r.Problems)
	}
	want := &VSIXManifest{
		Namespace: VSIXNamespace,
		Identity: VSIXIdentity{
			ID: "hello-offline", Version: "0.0.1", Publisher: "example-pub",
			TargetPlatform: "linux-x64", Language: "en-US",
		},
		DisplayName: "Hello Offline",
		Description: "Says hello & works offline",
		Tags:        "a,b,__sponsor_extension",
		Categories:  "Other",
		Properties: []Property{
			{PropertyEngine, "^1.74.0"},
			{PropertyExtensionDependencies, "vscode.git"},
			{PropertyExtensionPack, "ms-python.python"},
			{"Microsoft.VisualStudio.Code.ExtensionKind", "ui,workspace"},
			{"Microsoft.VisualStudio.Code.LocalizedLanguages", ""},
			{"Microsoft.VisualStudio.Code.EnabledApiProposals", "fileSearchProvider"},
			{PropertyPreRelease, "true"},
			{"Microsoft.VisualStudio.Code.ExecutesCode", "true"},
			{"Microsoft.VisualStudio.Code.SponsorLink", "https://example.com/sponsor"},
			{"Microsoft.VisualStudio.Services.Links.Source", "https://example.com/hello.git"},
			{"Microsoft.VisualStudio.Services.GitHubFlavoredMarkdown", "true"},
			{"Microsoft.VisualStudio.Services.Content.Pricing", "Trial"},
		},
		License: "extension/LICENSE.txt",
		Icon:    "extension/icon.png",
		Assets: []Asset{
			{AssetManifest, "extension/package.json", true},
			{AssetReadme, "extension/readme.md", true},
			{AssetChangelog, "extension/changelog.md", true},
			{AssetLicense, "extension/LICENSE.txt", true},
			{AssetIcon, "extension/icon.png", true},
		},
	}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Errorf("ParseVSIXManifest(sample) (-want +got):\n%s", diff)
	}
	if !v.PreRelease() {
		t.Errorf("PreRelease() = false; want true")
	}
	if got := v.TargetPlatform(); got != index.LinuxX64 {
		t.Errorf("TargetPlatform() = %q; want linux-x64", got)
	}
	if got := v.AssetPath(AssetReadme); got != "extension/readme.md" {
		t.Errorf("AssetPath(readme) = %q; want extension/readme.md", got)
	}
	if got := v.AssetPath("nope"); got != "" {
		t.Errorf("AssetPath(nope) = %q; want \"\"", got)
	}
	wantAssets := Assets{
		Manifest: "extension/package.json", Readme: "extension/readme.md", Changelog: "extension/changelog.md",
		License: "extension/LICENSE.txt", Icon: "extension/icon.png",
	}
	if diff := cmp.Diff(wantAssets, v.AssetPaths()); diff != "" {
		t.Errorf("AssetPaths() (-want +got):\n%s", diff)
	}
	assertXMLRoundTrip(t, data)
}

// vsixXML builds a small vsixmanifest around metadata and assets.
func vsixXML(identity, metadata, assets string) string {
	return `<?xml version="1.0" encoding="utf-8"?>
<PackageManifest Version="2.0.0" xmlns="` + VSIXNamespace + `">
<Metadata><Identity ` + identity + `/>` + metadata + `</Metadata>
<Assets>` + assets + `</Assets></PackageManifest>`
}

const goodIdentity = `Language="en-US" Id="hello-offline" Version="0.0.1" Publisher="example-pub"`

func TestParseVSIXManifestProblems(t *testing.T) {
	tests := []struct {
		name string
		xml  string
		want []ruleHit
	}{
		{"minimal", vsixXML(goodIdentity, "", ""), nil},
		{"bom", "\xef\xbb\xbf" + vsixXML(goodIdentity, "", ""), nil},
		{"missing version", vsixXML(`Id="a" Publisher="p"`, "", ""), []ruleHit{errHit(RuleRequiredField, "Metadata/Identity/@Version")}},
		{"missing identity", vsixXML(`Id="a" Version="1.0.0" Publisher="p"`, "", "")[0:0] + `<PackageManifest xmlns="` + VSIXNamespace + `"><Metadata/></PackageManifest>`, []ruleHit{
			errHit(RuleRequiredField, "Metadata/Identity/@Id"),
			errHit(RuleRequiredField, "Metadata/Identity/@Version"),
			errHit(RuleRequiredField, "Metadata/Identity/@Publisher"),
		}},
		{"universal", vsixXML(goodIdentity+` TargetPlatform="universal"`, "", ""), nil},
		{"web", vsixXML(goodIdentity+` TargetPlatform="web"`, "", ""), nil},
		{"unknown platform", vsixXML(goodIdentity+` TargetPlatform="linux-sparc"`, "", ""),
			[]ruleHit{errHit(RuleUnknownPlatform, "Metadata/Identity/@TargetPlatform")}},
		{"vscode's unknown platform", vsixXML(goodIdentity+` TargetPlatform="unknown"`, "", ""),
			[]ruleHit{errHit(RuleUnknownPlatform, "Metadata/Identity/@TargetPlatform")}},
		{"no namespace", `<PackageManifest><Metadata><Identity ` + goodIdentity + `/></Metadata></PackageManifest>`,
			[]ruleHit{warnHit(RuleXMLNamespace, "PackageManifest")}},
		{"asset escapes", vsixXML(goodIdentity, "", `<Asset Type="`+AssetReadme+`" Path="../../etc/passwd"/>`),
			[]ruleHit{errHit(RuleInvalidAsset, "Assets/Asset[1]/@Path")}},
		{"asset absolute", vsixXML(goodIdentity, "", `<Asset Type="`+AssetReadme+`" Path="/etc/passwd"/>`),
			[]ruleHit{errHit(RuleInvalidAsset, "Assets/Asset[1]/@Path")}},
		{"asset without path", vsixXML(goodIdentity, "", `<Asset Type="`+AssetReadme+`"/>`),
			[]ruleHit{errHit(RuleInvalidAsset, "Assets/Asset[1]/@Path")}},
		{"asset without type", vsixXML(goodIdentity, "", `<Asset Path="extension/x"/>`),
			[]ruleHit{errHit(RuleInvalidAsset, "Assets/Asset[1]/@Type")}},
		{"duplicate manifest asset", vsixXML(goodIdentity, "", `<Asset Type="`+AssetManifest+`" Path="extension/package.json"/><Asset Type="`+AssetManifest+`" Path="extension/other.json"/>`),
			[]ruleHit{errHit(RuleDuplicateAsset, "Assets/Asset[2]")}},
		{"same asset twice", vsixXML(goodIdentity, "", `<Asset Type="`+AssetReadme+`" Path="extension/r.md"/><Asset Type="`+AssetReadme+`" Path="extension/r.md"/>`), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Report
			v, err := ParseVSIXManifest([]byte(tt.xml), &r)
			if err != nil || v == nil {
				t.Fatalf("ParseVSIXManifest(%q) = %v, %v; want a manifest", tt.xml, v, err)
			}
			if diff := cmp.Diff(tt.want, ruleHits(&r)); diff != "" {
				t.Errorf("ParseVSIXManifest(%q) problems (-want +got):\n%s", tt.xml, diff)
			}
			assertXMLRoundTrip(t, []byte(tt.xml))
		})
	}
}

func TestParseVSIXManifestRefused(t *testing.T) {
	tests := []struct {
		name string
		xml  string
		rule Rule
	}{
		{"doctype", `<?xml version="1.0"?><!DOCTYPE PackageManifest><PackageManifest xmlns="` + VSIXNamespace + `"/>`, RuleXMLDirective},
		{"external entity", `<?xml version="1.0"?>
<!DOCTYPE PackageManifest [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<PackageManifest xmlns="` + VSIXNamespace + `"><Metadata><DisplayName>&xxe;</DisplayName></Metadata></PackageManifest>`, RuleXMLDirective},
		{"billion laughs", `<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><PackageManifest>&lol2;</PackageManifest>`, RuleXMLDirective},
		{"doctype after root", `<PackageManifest xmlns="` + VSIXNamespace + `"/><!DOCTYPE x>`, RuleXMLDirective},
		{"undefined entity", `<PackageManifest><Metadata><DisplayName>&nope;</DisplayName></Metadata></PackageManifest>`, RuleManifestSyntax},
		{"not xml", `{"publisher": "x"}`, RuleManifestSyntax},
		{"empty", ``, RuleManifestSyntax},
		{"wrong root", `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`, RuleManifestSyntax},
		{"two roots", `<PackageManifest/><PackageManifest/>`, RuleManifestSyntax},
		{"text after root", `<PackageManifest/>junk`, RuleManifestSyntax},
		{"unclosed", `<PackageManifest><Metadata>`, RuleManifestSyntax},
		{"utf-16 declared", `<?xml version="1.0" encoding="utf-16"?><PackageManifest/>`, RuleManifestSyntax},
		{"latin-1 declared", `<?xml version="1.0" encoding="iso-8859-1"?><PackageManifest/>`, RuleManifestSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Report
			v, err := ParseVSIXManifest([]byte(tt.xml), &r)
			if err == nil || v != nil {
				t.Fatalf("ParseVSIXManifest(%q) = %v, %v; want an error", tt.xml, v, err)
			}
			if diff := cmp.Diff([]ruleHit{errHit(tt.rule, "")}, ruleHits(&r)); diff != "" {
				t.Errorf("ParseVSIXManifest(%q) problems (-want +got):\n%s", tt.xml, diff)
			}
			if !strings.Contains(err.Error(), VSIXManifestPath) {
				t.Errorf("ParseVSIXManifest(%q) error %q does not name %s", tt.xml, err, VSIXManifestPath)
			}
			if strings.Contains(err.Error(), "CharsetReader") {
				t.Errorf("ParseVSIXManifest(%q) error %q speaks of encoding/xml's internals, not of what to do", tt.xml, err)
			}
		})
	}
}

// TestParseVSIXManifestASCII: a manifest declaring US-ASCII (a subset of
// UTF-8) is read.
func TestParseVSIXManifestASCII(t *testing.T) {
	var r Report
	data := `<?xml version="1.0" encoding="US-ASCII"?><PackageManifest Version="2.0.0" xmlns="` + VSIXNamespace + `"/>`
	if _, err := ParseVSIXManifest([]byte(data), &r); err != nil && strings.Contains(err.Error(), "encoding") {
		t.Fatalf("ParseVSIXManifest(US-ASCII) = %v; want the encoding accepted", err)
	}
}

func TestVSIXManifestAssetFallbacks(t *testing.T) {
	v := &VSIXManifest{License: "extension/LICENSE", Icon: "extension/i.png"}
	want := Assets{Manifest: PackageJSONPath, License: "extension/LICENSE", Icon: "extension/i.png"}
	if diff := cmp.Diff(want, v.AssetPaths()); diff != "" {
		t.Errorf("AssetPaths() (-want +got):\n%s", diff)
	}
	if v.PreRelease() {
		t.Errorf("PreRelease() without the property = true; want false")
	}
	if got := v.TargetPlatform(); got != index.Universal {
		t.Errorf("TargetPlatform() without the attribute = %q; want universal", got)
	}
}

// assertXMLRoundTrip checks the invariant the fuzz target checks: an
// accepted vsixmanifest encodes to one that parses to an equal value with
// the same error problems.
func assertXMLRoundTrip(t testing.TB, data []byte) {
	t.Helper()
	checkRoundTrip(t, data, "ParseVSIXManifest", ParseVSIXManifest, xmlCodec)
}
