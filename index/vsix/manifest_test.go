package vsix

import (
	"encoding/json"
	"encoding/xml"
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// prob is the part of a Problem tests compare.
type ruleHit struct {
	Sev   Severity
	Rule  Rule
	Field string
}

func ruleHits(r *Report) []ruleHit {
	var out []ruleHit
	for _, p := range r.Problems {
		out = append(out, ruleHit{p.Severity, p.Rule, p.Field})
	}
	return out
}

func errHit(rule Rule, field string) ruleHit  { return ruleHit{Error, rule, field} }
func warnHit(rule Rule, field string) ruleHit { return ruleHit{Warning, rule, field} }

// baseManifest is a valid package.json as a map tests edit.
func baseManifest() map[string]any {
	return map[string]any{
		"publisher": "example-pub",
		"name":      "hello-offline",
		"version":   "0.0.1",
		"engines":   map[string]any{"vscode": "^1.74.0"},
		"main":      "./extension.js",
		"contributes": map[string]any{
			"commands": []any{map[string]any{"command": "hello.run", "title": "Hello"}},
		},
	}
}

func manifestBytes(t testing.TB, edit func(m map[string]any)) []byte {
	t.Helper()
	m := baseManifest()
	if edit != nil {
		edit(m)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func setField(key string, v any) func(map[string]any) {
	return func(m map[string]any) { m[key] = v }
}

func delFields(keys ...string) func(map[string]any) {
	return func(m map[string]any) {
		for _, k := range keys {
			delete(m, k)
		}
	}
}

func TestParseManifestProblems(t *testing.T) {
	tests := []struct {
		name string
		edit func(map[string]any)
		want []ruleHit
	}{
		{"valid", nil, nil},
		{"missing publisher", delFields("publisher"), []ruleHit{errHit(RuleRequiredField, "publisher")}},
		{"missing name", delFields("name"), []ruleHit{errHit(RuleRequiredField, "name")}},
		{"missing version", delFields("version"), []ruleHit{errHit(RuleRequiredField, "version")}},
		{"missing all", delFields("publisher", "name", "version", "engines"), []ruleHit{
			errHit(RuleRequiredField, "publisher"), errHit(RuleRequiredField, "name"),
			errHit(RuleRequiredField, "version"), errHit(RuleRequiredField, "engines.vscode"),
		}},
		{"empty publisher", setField("publisher", ""), []ruleHit{errHit(RuleRequiredField, "publisher")}},
		{"missing engines", delFields("engines"), []ruleHit{errHit(RuleRequiredField, "engines.vscode")}},
		{"missing engines.vscode", setField("engines", map[string]any{"node": ">=18"}), []ruleHit{errHit(RuleRequiredField, "engines.vscode")}},
		{"empty engines.vscode", setField("engines", map[string]any{"vscode": ""}), []ruleHit{errHit(RuleRequiredField, "engines.vscode")}},
		{"engines not an object", setField("engines", "^1.74.0"), []ruleHit{errHit(RuleFieldType, "engines")}},
		{"engines.vscode a number", setField("engines", map[string]any{"vscode": 1.74}), []ruleHit{errHit(RuleFieldType, "engines.vscode")}},
		{"engines.node a number", setField("engines", map[string]any{"vscode": "*", "node": 18}), []ruleHit{warnHit(RuleFieldType, "engines.node")}},
		{"engine star", setField("engines", map[string]any{"vscode": "*"}), nil},
		{"engine insider", setField("engines", map[string]any{"vscode": "^1.80.0-insider"}), nil},
		{"engine minimum", setField("engines", map[string]any{"vscode": ">=1.60.0"}), nil},
		{"engine wildcard", setField("engines", map[string]any{"vscode": "1.x.x"}), nil},
		{"engine npm range", setField("engines", map[string]any{"vscode": ">1.60.0 <2"}), []ruleHit{errHit(RuleInvalidEngine, "engines.vscode")}},
		{"engine word", setField("engines", map[string]any{"vscode": "latest"}), []ruleHit{errHit(RuleInvalidEngine, "engines.vscode")}},
		{"version two parts", setField("version", "1.2"), []ruleHit{errHit(RuleInvalidVersion, "version")}},
		{"version v prefix", setField("version", "v1.2.3"), []ruleHit{errHit(RuleInvalidVersion, "version")}},
		{"version leading zero", setField("version", "01.2.3"), []ruleHit{errHit(RuleInvalidVersion, "version")}},
		{"version pre-release", setField("version", "1.2.3-beta.1+build.5"), nil},
		{"version a number", setField("version", 1), []ruleHit{errHit(RuleFieldType, "version")}},
		{"publisher with space", setField("publisher", "example pub"), []ruleHit{errHit(RuleInvalidName, "publisher")}},
		{"name with dot", setField("name", "hello.offline"), []ruleHit{errHit(RuleInvalidName, "name")}},
		{"name too long", setField("name", strings.Repeat("a", 256)), []ruleHit{errHit(RuleInvalidName, "name")}},
		{"publisher an object", setField("publisher", map[string]any{}), []ruleHit{errHit(RuleFieldType, "publisher")}},
		{"main a boolean", setField("main", true), []ruleHit{errHit(RuleFieldType, "main")}},
		{"main null", setField("main", nil), []ruleHit{errHit(RuleFieldType, "main")}},
		{"main escapes", setField("main", "../other/extension.js"), []ruleHit{errHit(RuleInvalidEntryPoint, "main")}},
		{"main absolute", setField("main", "/etc/passwd"), []ruleHit{errHit(RuleInvalidEntryPoint, "main")}},
		{"browser backslash", setField("browser", `dist\web.js`), []ruleHit{errHit(RuleInvalidEntryPoint, "browser")}},
		{"main inside after dots", setField("main", "./out/../dist/extension.js"), nil},
		{"displayName a number", setField("displayName", 5), []ruleHit{warnHit(RuleFieldType, "displayName")}},
		{"categories a string", setField("categories", "Other"), []ruleHit{warnHit(RuleFieldType, "categories")}},
		{"keywords with a number", setField("keywords", []any{"a", 1}), []ruleHit{warnHit(RuleFieldType, "keywords[1]")}},
		{"preview a string", setField("preview", "yes"), []ruleHit{warnHit(RuleFieldType, "preview")}},
		{"repository an array", setField("repository", []any{}), []ruleHit{warnHit(RuleFieldType, "repository")}},
		{"repository url a number", setField("repository", map[string]any{"url": 1}), []ruleHit{warnHit(RuleFieldType, "repository.url")}},
		{"activationEvents a string", setField("activationEvents", "*"), []ruleHit{errHit(RuleFieldType, "activationEvents")}},
		{"activationEvents with a number", setField("activationEvents", []any{"*", 2}), []ruleHit{errHit(RuleFieldType, "activationEvents[1]")}},
		{"dependencies valid", setField("extensionDependencies", []any{"vscode.git", "ms-python.python"}), nil},
		{"dependency without dot", setField("extensionDependencies", []any{"vscode.git", "python"}), []ruleHit{errHit(RuleInvalidDependency, "extensionDependencies[1]")}},
		{"pack entry invalid", setField("extensionPack", []any{"a.b.c"}), []ruleHit{errHit(RuleInvalidDependency, "extensionPack[0]")}},
		{"dependencies an object", setField("extensionDependencies", map[string]any{}), []ruleHit{errHit(RuleFieldType, "extensionDependencies")}},
		{"extensionKind string", setField("extensionKind", "ui"), nil},
		{"extensionKind unknown", setField("extensionKind", []any{"ui", "cloud"}), []ruleHit{warnHit(RuleUnknownExtensionKind, "extensionKind")}},
		{"contributes an array", setField("contributes", []any{}), []ruleHit{errHit(RuleFieldType, "contributes")}},
		{"unknown top-level field", setField("scripts", map[string]any{"vscode:prepublish": "tsc"}), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := manifestBytes(t, tt.edit)
			var r Report
			m, err := ParseManifest(data, &r)
			if err != nil || m == nil {
				t.Fatalf("ParseManifest(%q) = %v, %v; want a manifest", data, m, err)
			}
			if diff := cmp.Diff(tt.want, ruleHits(&r)); diff != "" {
				t.Errorf("ParseManifest(%q) problems (-want +got):\n%s\n%v", data, diff, r.Problems)
			}
		})
	}
}

func TestParseManifestNotAnObject(t *testing.T) {
	for _, data := range []string{"", "null", "[]", `"x"`, "{", `{"a":1} {}`, "\xef\xbb\xbf", `{"a":1,}`} {
		var r Report
		m, err := ParseManifest([]byte(data), &r)
		if err == nil || m != nil {
			t.Errorf("ParseManifest(%q) = %v, %v; want an error", data, m, err)
		}
		if diff := cmp.Diff([]ruleHit{errHit(RuleManifestSyntax, "")}, ruleHits(&r)); diff != "" {
			t.Errorf("ParseManifest(%q) problems (-want +got):\n%s", data, diff)
		}
	}
}

func TestParseManifestFields(t *testing.T) {
	data := []byte("\xef\xbb\xbf" + `{
		"publisher": "Example-Pub", "name": "hello", "version": "1.2.3",
		"displayName": "%displayName%", "description": "Says hello",
		"engines": {"vscode": "^1.80.0", "node": ">=18"},
		"main": "./out/extension.js", "browser": "./dist/web.js",
		"activationEvents": ["onStartupFinished"],
		"extensionDependencies": ["vscode.git"], "extensionPack": ["a.b"],
		"extensionKind": ["ui", "workspace"], "enabledApiProposals": ["fileSearchProvider"],
		"capabilities": {"network": true, "untrustedWorkspaces": {"supported": false, "description": "x"}},
		"categories": ["Other"], "keywords": ["hello"], "license": "MIT", "icon": "icon.png",
		"homepage": "https://example.com", "repository": {"type": "git", "url": "https://example.com/r.git"},
		"bugs": {"url": "https://example.com/issues"}, "author": {"name": "Ada"},
		"sponsor": {"url": "https://example.com/sponsor"}, "preview": true, "pricing": "Free", "l10n": "./l10n",
		"scripts": {"vscode:uninstall": "./out/uninstall.js"},
		"NAME": "shadow"
	}`)
	var r Report
	m, err := ParseManifest(data, &r)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Problems) != 0 {
		t.Errorf("ParseManifest problems: %v; want none", r.Problems)
	}
	want := &Manifest{
		Publisher: "Example-Pub", Name: "hello", Version: "1.2.3",
		DisplayName: "%displayName%", Description: "Says hello",
		Engines: map[string]string{"vscode": "^1.80.0", "node": ">=18"},
		Main:    "./out/extension.js", Browser: "./dist/web.js",
		ActivationEvents:      []string{"onStartupFinished"},
		ExtensionDependencies: []string{"vscode.git"}, ExtensionPack: []string{"a.b"},
		ExtensionKind: []string{"ui", "workspace"}, EnabledAPIProposals: []string{"fileSearchProvider"},
		Capabilities: ManifestCapabilities{
			Network:             true,
			UntrustedWorkspaces: json.RawMessage(`{"supported":false,"description":"x"}`),
		},
		Categories: []string{"Other"}, Keywords: []string{"hello"}, License: "MIT", Icon: "icon.png",
		Homepage: "https://example.com", Repository: "https://example.com/r.git",
		Bugs: "https://example.com/issues", Author: "Ada", Sponsor: "https://example.com/sponsor",
		Preview: true, Pricing: "Free", L10n: "./l10n",
		Extra: map[string]json.RawMessage{
			"scripts": json.RawMessage(`{"vscode:uninstall":"./out/uninstall.js"}`),
			"NAME":    json.RawMessage(`"shadow"`),
		},
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("ParseManifest (-want +got):\n%s", diff)
	}
	if got := m.UninstallScript(); got != "./out/uninstall.js" {
		t.Errorf("UninstallScript() = %q; want ./out/uninstall.js", got)
	}
	id, err := m.ID()
	if err != nil || id.String() != "Example-Pub.hello" {
		t.Errorf("ID() = %v, %v; want Example-Pub.hello", id, err)
	}
	e, err := m.Engine()
	if err != nil || e.String() != "^1.80.0" {
		t.Errorf("Engine() = %v, %v; want ^1.80.0", e, err)
	}
	if !m.ExecutesCode() {
		t.Errorf("ExecutesCode() = false; want true")
	}
	assertRoundTrip(t, data)
}

func TestManifestIDAndEngineErrors(t *testing.T) {
	m := &Manifest{Publisher: "a b", Name: "x"}
	if _, err := m.ID(); err == nil {
		t.Errorf("ID() of %q.%q = nil error; want one", m.Publisher, m.Name)
	}
	if _, err := m.Engine(); err == nil {
		t.Errorf("Engine() without engines = nil error; want one")
	}
	m.Engines = map[string]string{"vscode": "soon"}
	if _, err := m.Engine(); err == nil {
		t.Errorf("Engine() of %q = nil error; want one", "soon")
	}
}

// assertRoundTrip checks the invariant the fuzz target checks: an accepted
// manifest encodes to one that parses to an equal value with the same error
// problems.
func assertRoundTrip(t testing.TB, data []byte) {
	t.Helper()
	checkRoundTrip(t, data, "ParseManifest", ParseManifest, jsonCodec)
}

// codec is an encoding a parsed document round-trips through.
type codec struct {
	name      string
	marshal   func(any) ([]byte, error)
	unmarshal func([]byte, any) error
}

var (
	jsonCodec = codec{"json", json.Marshal, json.Unmarshal}
	xmlCodec  = codec{"xml", xml.Marshal, xml.Unmarshal}
)

// checkRoundTrip checks the invariant of the fuzz targets for parse,
// named name: a document it accepts encodes (c.marshal) to one that it
// parses to an equal value with the same error problems, and that
// c.unmarshal decodes to that value too.
func checkRoundTrip[T any](t testing.TB, data []byte, name string, parse func([]byte, *Report) (*T, error), c codec) {
	t.Helper()
	var r1 Report
	v1, err := parse(data, &r1)
	if err != nil {
		return
	}
	enc, err := c.marshal(v1)
	if err != nil {
		t.Fatalf("%s.Marshal(%s(%q)) = %v", c.name, name, data, err)
	}
	var r2 Report
	v2, err := parse(enc, &r2)
	if err != nil {
		t.Fatalf("%s(%q) (re-encoded from %q) = %v; want no error", name, enc, data, err)
	}
	if diff := cmp.Diff(v1, v2); diff != "" {
		t.Fatalf("%s(%q) re-encoded as %q (-first +second):\n%s", name, data, enc, diff)
	}
	if diff := cmp.Diff(r1.Errors(), r2.Errors()); diff != "" {
		t.Fatalf("%s(%q) re-encoded as %q: error problems (-first +second):\n%s", name, data, enc, diff)
	}
	v3 := new(T)
	if err := c.unmarshal(enc, v3); err != nil {
		t.Fatalf("%s.Unmarshal(%q) = %v", c.name, enc, err)
	}
	if diff := cmp.Diff(v1, v3); diff != "" {
		t.Fatalf("%s.Unmarshal(%q) (-%s +Unmarshal):\n%s", c.name, enc, name, diff)
	}
}

func TestManifestRoundTrip(t *testing.T) {
	for _, data := range []string{
		string(manifestBytes(t, nil)),
		`{"name": 5, "version": "1", "engines": {"vscode": 7, "x": []}, "contributes": {"commands": [{}], "bogus": 1}}`,
		`{"capabilities": {"network": "yes", "spawn": true, "camera": true}, "a": "<&>\u2028"}`,
		`{"publisher": "", "activationEvents": ["*", "onWhatever:x", 3], "repository": {"type": "git"}}`,
		`{"extensionKind": "ui", "preview": false, "categories": [], "contributes": {}}`,
		`{"x": 1e400, "y": [[[[{}]]]], "name": "a\ufffdb", "description": "\ud800"}`,
	} {
		assertRoundTrip(t, []byte(data))
	}
}

func TestManifestMarshalBuilt(t *testing.T) {
	// A Manifest built in code (no Extra, no Contributes.Raw) encodes its
	// typed fields.
	m := &Manifest{
		Publisher: "p", Name: "n", Version: "1.0.0", Engines: map[string]string{"vscode": "*"},
		Main:         "x.js",
		Contributes:  Contributes{Commands: []Command{{Command: "a.b", Title: "T"}}},
		Capabilities: ManifestCapabilities{Spawn: true, Unknown: []string{"camera"}},
		Sponsor:      "https://s",
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	got, err := ParseManifest(b, &r)
	if err != nil {
		t.Fatal(err)
	}
	if got.Contributes.Commands[0] != m.Contributes.Commands[0] || !got.Capabilities.Spawn || got.Sponsor != "https://s" {
		t.Errorf("ParseManifest(%s) = %+v; want the fields of %+v", b, got, m)
	}
	if diff := cmp.Diff([]ruleHit{warnHit(RuleUnknownCapability, "capabilities.camera")}, ruleHits(&r)); diff != "" {
		t.Errorf("ParseManifest(%s) problems (-want +got):\n%s", b, diff)
	}
	if !maps.Equal(got.Engines, m.Engines) {
		t.Errorf("Engines = %v; want %v", got.Engines, m.Engines)
	}
}
