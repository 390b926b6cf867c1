package vsix

import (
	"archive/zip"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index"
)

// goodPackage is a package as vsce lays it out (research §1.1).
func goodPackage(t testing.TB) fstest.MapFS {
	t.Helper()
	pj := manifestBytes(t, func(m map[string]any) {
		m["extensionDependencies"] = []any{"vscode.git"}
		m["extensionPack"] = []any{"ms-python.python"}
		m["capabilities"] = map[string]any{"network": true}
	})
	return fstest.MapFS{
		"extension.vsixmanifest":      {Data: sampleVSIXManifest(t)},
		"[Content_Types].xml":         mapFile(`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`),
		"extension/package.json":      {Data: pj},
		"extension/extension.js":      mapFile(`const cp = require("child_process");`),
		"extension/readme.md":         mapFile("# Hello"),
		"extension/changelog.md":      mapFile("## 0.0.1"),
		"extension/LICENSE.txt":       mapFile("MIT"),
		"extension/icon.png":          mapFile("\x89PNG\r\n\x1a\n"),
		"extension/node_modules/x.js": mapFile(`import("node:https")`),
	}
}

func TestReadPackageGood(t *testing.T) {
	pkg := ReadPackage(goodPackage(t))
	if err := pkg.Report.Err(); err != nil {
		t.Fatalf("ReadPackage(good).Report.Err() = %v; want nil", err)
	}
	if len(pkg.Report.Problems) != 0 {
		t.Errorf("ReadPackage(good) problems = %v; want none", pkg.Report.Problems)
	}
	if pkg.ID != index.MustParseID("example-pub.hello-offline") {
		t.Errorf("ID = %v; want example-pub.hello-offline", pkg.ID)
	}
	if pkg.Version == nil || pkg.Version.String() != "0.0.1" {
		t.Errorf("Version = %v; want 0.0.1", pkg.Version)
	}
	if pkg.Platform != index.LinuxX64 || !pkg.PreRelease {
		t.Errorf("Platform, PreRelease = %q, %v; want linux-x64, true", pkg.Platform, pkg.PreRelease)
	}
	wantAssets := Assets{
		Manifest: "extension/package.json", Readme: "extension/readme.md", Changelog: "extension/changelog.md",
		License: "extension/LICENSE.txt", Icon: "extension/icon.png",
	}
	if diff := cmp.Diff(wantAssets, pkg.Assets); diff != "" {
		t.Errorf("Assets (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(index.CapabilitySet{index.Network}, pkg.Declared); diff != "" {
		t.Errorf("Declared (-want +got):\n%s", diff)
	}
	wantFound := []Finding{
		{FindingSpawn, "extension/extension.js", `require("child_process")`},
		{FindingNetwork, "extension/node_modules/x.js", `import("node:https")`},
	}
	if diff := cmp.Diff(wantFound, pkg.Detected); diff != "" {
		t.Errorf("Detected (-want +got):\n%s", diff)
	}
	if pkg.Manifest == nil || pkg.VSIX == nil {
		t.Errorf("Manifest, VSIX = %v, %v; want both", pkg.Manifest, pkg.VSIX)
	}
}

func replaceInFile(name, old, new string) func(t testing.TB, fsys fstest.MapFS) {
	return func(t testing.TB, fsys fstest.MapFS) {
		t.Helper()
		s := string(fsys[name].Data)
		if !strings.Contains(s, old) {
			t.Fatalf("%s has no %q", name, old)
		}
		fsys[name] = mapFile(strings.Replace(s, old, new, 1))
	}
}

func editPackageJSON(edit func(map[string]any)) func(t testing.TB, fsys fstest.MapFS) {
	return func(t testing.TB, fsys fstest.MapFS) {
		fsys[PackageJSONPath] = &fstest.MapFile{Data: manifestBytes(t, func(m map[string]any) {
			m["extensionDependencies"] = []any{"vscode.git"}
			m["extensionPack"] = []any{"ms-python.python"}
			edit(m)
		})}
	}
}

func removeFile(name string) func(t testing.TB, fsys fstest.MapFS) {
	return func(t testing.TB, fsys fstest.MapFS) { delete(fsys, name) }
}

func TestReadPackageProblems(t *testing.T) {
	pp := func(sev Severity, file, field string, rule Rule) Problem {
		return Problem{File: file, Field: field, Rule: rule, Severity: sev}
	}
	tests := []struct {
		name   string
		edit   func(testing.TB, fstest.MapFS)
		want   []Problem // Message is checked separately
		detail string    // a substring of the first problem's detail
	}{
		{"version mismatch", editPackageJSON(setField("version", "0.0.2")),
			[]Problem{pp(Error, PackageJSONPath, "version", RuleManifestMismatch)},
			`extension/package.json version is "0.0.2" but extension.vsixmanifest Metadata/Identity/@Version is "0.0.1"`},
		{"publisher mismatch", editPackageJSON(setField("publisher", "other-pub")),
			[]Problem{pp(Error, PackageJSONPath, "publisher", RuleManifestMismatch)}, "Metadata/Identity/@Publisher"},
		{"publisher differs in case only", editPackageJSON(setField("publisher", "Example-Pub")), nil, ""},
		{"name mismatch", editPackageJSON(setField("name", "hello-online")),
			[]Problem{pp(Error, PackageJSONPath, "name", RuleManifestMismatch)}, "Metadata/Identity/@Id"},
		{"unknown target platform", replaceInFile(VSIXManifestPath, `TargetPlatform="linux-x64"`, `TargetPlatform="linux-mips"`),
			[]Problem{pp(Error, VSIXManifestPath, "Metadata/Identity/@TargetPlatform", RuleUnknownPlatform)}, "linux-mips"},
		{"missing readme", removeFile("extension/readme.md"),
			[]Problem{pp(Error, VSIXManifestPath, "Assets/Asset[2]/@Path", RuleMissingAsset)}, "extension/readme.md"},
		{"asset is a directory", func(t testing.TB, fsys fstest.MapFS) {
			delete(fsys, "extension/changelog.md")
			fsys["extension/changelog.md/x"] = mapFile("x")
		}, []Problem{pp(Error, VSIXManifestPath, "Assets/Asset[3]/@Path", RuleMissingAsset)}, ""},
		{"missing metadata icon is a warning", replaceInFile(VSIXManifestPath, `<Icon>extension/icon.png</Icon>`, `<Icon>extension/nope.png</Icon>`),
			[]Problem{pp(Warning, VSIXManifestPath, "Metadata/Icon", RuleMetadataAsset)}, ""},
		{"missing vsixmanifest", removeFile(VSIXManifestPath),
			[]Problem{pp(Error, VSIXManifestPath, "", RuleMissingManifest)}, ""},
		{"missing package.json", removeFile(PackageJSONPath),
			[]Problem{pp(Error, PackageJSONPath, "", RuleMissingManifest)}, ""},
		{"package.json not json", func(t testing.TB, fsys fstest.MapFS) { fsys[PackageJSONPath] = mapFile("<xml/>") },
			[]Problem{pp(Error, PackageJSONPath, "", RuleManifestSyntax)}, ""},
		{"vsixmanifest with doctype", replaceInFile(VSIXManifestPath, `<PackageManifest`, `<!DOCTYPE x><PackageManifest`),
			[]Problem{pp(Error, VSIXManifestPath, "", RuleXMLDirective)}, "DOCTYPE"},
		{"manifest asset elsewhere", func(t testing.TB, fsys fstest.MapFS) {
			replaceInFile(VSIXManifestPath, `Path="extension/package.json"`, `Path="extension/other.json"`)(t, fsys)
			fsys["extension/other.json"] = mapFile(`{}`)
		}, []Problem{pp(Error, VSIXManifestPath, "Assets/Asset[@Type='Microsoft.VisualStudio.Code.Manifest']/@Path", RuleManifestPath)}, ""},
		{"engine property differs", replaceInFile(VSIXManifestPath, `Value="^1.74.0"`, `Value="^1.90.0"`),
			[]Problem{pp(Warning, PackageJSONPath, "engines.vscode", RulePropertyMismatch)}, ""},
		{"dependency property differs", replaceInFile(VSIXManifestPath, `Value="vscode.git"`, `Value=""`),
			[]Problem{pp(Warning, PackageJSONPath, "extensionDependencies", RulePropertyMismatch)}, ""},
		{"package.json problems are kept", editPackageJSON(setField("contributes", map[string]any{"commands": []any{map[string]any{"command": "a"}}})),
			[]Problem{pp(Error, PackageJSONPath, "contributes.commands[0].title", RuleInvalidCommand)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := goodPackage(t)
			tt.edit(t, fsys)
			pkg := ReadPackage(fsys)
			var got []Problem
			for _, p := range pkg.Report.Problems {
				d := p
				d.Message = ""
				got = append(got, d)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("ReadPackage problems (-want +got):\n%s\n%v", diff, pkg.Report.Problems)
			}
			if tt.detail != "" && !strings.Contains(pkg.Report.Problems[0].Message, tt.detail) {
				t.Errorf("ReadPackage problem %q does not say %q", pkg.Report.Problems[0], tt.detail)
			}
			hasErr := len(pkg.Report.Errors()) > 0
			err := pkg.Report.Err()
			if hasErr != (err != nil) || (err != nil && !errors.Is(err, ErrRejected)) {
				t.Errorf("Report.Err() = %v; want an ErrRejected exactly when there are errors", err)
			}
		})
	}
}

func TestReadPackageEmpty(t *testing.T) {
	pkg := ReadPackage(fstest.MapFS{})
	if pkg == nil {
		t.Fatal("ReadPackage(empty) = nil")
	}
	want := []ruleHit{errHit(RuleMissingManifest, ""), errHit(RuleMissingManifest, "")}
	if diff := cmp.Diff(want, ruleHits(&pkg.Report)); diff != "" {
		t.Errorf("ReadPackage(empty) problems (-want +got):\n%s", diff)
	}
	if pkg.Manifest != nil || pkg.VSIX != nil || !pkg.ID.IsZero() || pkg.Version != nil || pkg.Platform != "" {
		t.Errorf("ReadPackage(empty) = %+v; want nothing filled in", pkg)
	}
}

func TestReadPackageLimits(t *testing.T) {
	fsys := goodPackage(t)
	fsys["extension/big.js"] = mapFile(strings.Repeat("x", 200))
	pkg := ReadPackageWith(fsys, PackageOptions{MaxManifestBytes: 64, Detect: DetectOptions{MaxFileBytes: 100}})
	want := []ruleHit{
		errHit(RuleManifestTooLarge, ""),
		warnHit(RuleDetectLimit, ""),
	}
	if diff := cmp.Diff(want, ruleHits(&pkg.Report)); diff != "" {
		t.Errorf("ReadPackageWith(limits) problems (-want +got):\n%s\n%v", diff, pkg.Report.Problems)
	}
	if p := pkg.Report.Problems[1]; p.File != "extension/big.js" {
		t.Errorf("detect-limit problem %v; want it on extension/big.js", p)
	}
}

func TestReadPackageUnreadable(t *testing.T) {
	fsys := failOpenFS{goodPackage(t), "extension/extension.js"}
	pkg := ReadPackage(fsys)
	want := []ruleHit{errHit(RuleUnreadable, "")}
	if diff := cmp.Diff(want, ruleHits(&pkg.Report)); diff != "" {
		t.Errorf("ReadPackage(unreadable file) problems (-want +got):\n%s", diff)
	}
}

// TestReadPackageFixtures reads the vsce-built packages in
// testdata/vsix through archive/zip (an fs.FS), so it does not depend on
// the safe archive reader.
func TestReadPackageFixtures(t *testing.T) {
	names, err := filepath.Glob("../../testdata/vsix/*.vsix")
	if err != nil || len(names) == 0 {
		t.Skipf("no fixtures: %v", err)
	}
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			zr, err := zip.OpenReader(name)
			if err != nil {
				t.Fatal(err)
			}
			defer zr.Close()
			pkg := ReadPackage(zr)
			if err := pkg.Report.Err(); err != nil {
				t.Fatalf("ReadPackage(%s).Report.Err() = %v", name, err)
			}
			// The file name is <id>-<version>[@<platform>].vsix.
			base := strings.TrimSuffix(filepath.Base(name), ".vsix")
			base, platform, _ := strings.Cut(base, "@")
			if got := pkg.ID.String() + "-" + pkg.Version.String(); got != base {
				t.Errorf("ReadPackage(%s) = %s; want %s", name, got, base)
			}
			if platform == "" {
				platform = string(index.Universal)
			}
			if string(pkg.Platform) != platform {
				t.Errorf("ReadPackage(%s).Platform = %q; want %q", name, pkg.Platform, platform)
			}
			t.Logf("warnings %v; declared %v; detected %v", pkg.Report.Warnings(), pkg.Declared, pkg.Detected)
			if pkg.Assets.Readme == "" || pkg.Assets.Manifest != PackageJSONPath {
				t.Errorf("ReadPackage(%s).Assets = %+v; want a readme and the manifest", name, pkg.Assets)
			}
		})
	}
}

func TestManifestRuleNames(t *testing.T) {
	rules := []Rule{
		RuleManifestSyntax, RuleRequiredField, RuleInvalidName, RuleInvalidVersion, RuleInvalidEngine,
		RuleFieldType, RuleInvalidDependency, RuleInvalidEntryPoint, RuleUnknownExtensionKind,
		RuleInvalidCommand, RuleInvalidLanguage, RuleUnknownContribution, RuleUnknownActivationEvent,
		RuleInvalidCapability, RuleUnknownCapability, RuleXMLDirective, RuleXMLNamespace,
		RuleUnknownPlatform, RuleInvalidAsset, RuleDuplicateAsset, RuleMissingManifest,
		RuleManifestTooLarge, RuleManifestPath, RuleManifestMismatch, RulePropertyMismatch,
		RuleMissingAsset, RuleMetadataAsset, RuleUnreadable, RuleDetectLimit,
	}
	kebab := regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)
	seen := make(map[Rule]bool)
	for _, r := range rules {
		if !kebab.MatchString(string(r)) || seen[r] {
			t.Errorf("rule %q: want a unique kebab-case name", r)
		}
		seen[r] = true
	}
}
