package policies

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/testkit/filetest"
)

//go:embed schema.json
var schemaJSON []byte

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		t.Fatalf("schema.json: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("compile schema.json: %v", err)
	}
	return s
}

func validateYAML(t *testing.T, s *jsonschema.Schema, src []byte) error {
	t.Helper()
	j, err := yaml.YAMLToJSON(bytes.TrimPrefix(src, bom))
	if err != nil {
		t.Fatalf("YAMLToJSON: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatalf("UnmarshalJSON(%s): %v", j, err)
	}
	return s.Validate(inst)
}

func TestSchemaAcceptsExamples(t *testing.T) {
	s := compileSchema(t)
	files, _ := filepath.Glob("examples/*.yaml")
	if len(files) != 4 {
		t.Fatalf("examples: %d files; want 4 (curated, platform-restricted, ci-gate, demo)", len(files))
	}
	srcs := map[string][]byte{"minimal": []byte(minimal), "decide": []byte(decidePolicy)}
	for _, f := range files {
		srcs[f] = filetest.ReadFile(t, f)
	}
	for name, src := range srcs {
		t.Run(name, func(t *testing.T) {
			if err := validateYAML(t, s, src); err != nil {
				t.Errorf("schema rejects %s: %v", name, err)
			}
			p := mustParse(t, string(src))
			// The canonical form validates too.
			out, err := p.MarshalYAML()
			if err != nil {
				t.Fatal(err)
			}
			if err := validateYAML(t, s, out); err != nil {
				t.Errorf("schema rejects MarshalYAML of %s: %v\n%s", name, err, out)
			}
		})
	}
}

// TestSchemaAndParseRejectTogether: documents both the schema and Parse
// refuse, so they cannot drift apart on these rules.
func TestSchemaAndParseRejectTogether(t *testing.T) {
	s := compileSchema(t)
	tests := []struct{ name, src string }{
		{"unknown top-level field", minimal + "latst: 1\n"},
		{"unknown rule field", "version: 1\nextensions: [{id: a.b, latst: 1}]\n"},
		{"unknown capability rule field", minimal + "capabilities: [{id: a.b, grants: [spawn]}]\n"},
		{"unknown catalog field", minimal + "catalog: {expiry: 1d}\n"},
		{"version missing", "extensions: [{id: a.b}]\n"},
		{"version 2", "version: 2\nextensions: [{id: a.b}]\n"},
		{"version string", "version: \"1\"\nextensions: [{id: a.b}]\n"},
		{"extensions missing", "version: 1\n"},
		{"extensions empty", "version: 1\nextensions: []\n"},
		{"rule without id", "version: 1\nextensions: [{latest: 1}]\n"},
		{"id without dot", "version: 1\nextensions: [{id: redhat}]\n"},
		{"id with two dots", "version: 1\nextensions: [{id: a.b.c}]\n"},
		{"id bare star", "version: 1\nextensions: [{id: '*'}]\n"},
		{"latest zero", "version: 1\nextensions: [{id: a.b, latest: 0}]\n"},
		{"latest word", "version: 1\nextensions: [{id: a.b, latest: many}]\n"},
		{"latest too large", "version: 1\nextensions: [{id: a.b, latest: 2147483648}]\n"},
		{"versions empty", "version: 1\nextensions: [{id: a.b, versions: ''}]\n"},
		{"preRelease string", "version: 1\nextensions: [{id: a.b, preRelease: 'yes'}]\n"},
		{"platform unknown", minimal + "platforms: [linux]\n"},
		{"platforms empty", minimal + "platforms: []\n"},
		{"platforms duplicate", minimal + "platforms: [universal, universal]\n"},
		{"editor loose", minimal + "editor: v1.95.0\n"},
		{"upstream http remote", minimal + "upstream: http://open-vsx.org\n"},
		{"upstream userinfo", minimal + "upstream: https://u:p@open-vsx.org\n"},
		{"upstream query", minimal + "upstream: https://open-vsx.org/?a\n"},
		{"upstream ftp", minimal + "upstream: ftp://open-vsx.org\n"},
		{"maxVsixBytes zero", minimal + "maxVsixBytes: 0\n"},
		{"dependencies string", minimal + "dependencies: 'true'\n"},
		{"capability unknown", minimal + "capabilities: [{id: a.b, grant: [net]}]\n"},
		{"capability rule empty", minimal + "capabilities: [{id: a.b}]\n"},
		{"capability rule empty lists", minimal + "capabilities: [{id: a.b, grant: [], declare: []}]\n"},
		{"expires no unit", minimal + "catalog: {expires: '90'}\n"},
		{"expires go syntax", minimal + "catalog: {expires: 1h30m}\n"},
		{"exclude invalid", minimal + "exclude: [evil]\n"},
		{"hosts without network", minimal + "capabilities: [{id: a.b, grant: [spawn], hosts: [example.com]}]\n"},
		{"hosts with declare only", minimal + "capabilities: [{id: a.b, declare: [network], hosts: [example.com]}]\n"},
		{"programs without spawn", minimal + "capabilities: [{id: a.b, grant: [network], programs: [/bin/sh]}]\n"},
		{"hosts empty", minimal + "capabilities: [{id: a.b, grant: [network], hosts: []}]\n"},
		{"host with scheme", minimal + "capabilities: [{id: a.b, grant: [network], hosts: ['https://example.com']}]\n"},
		{"host with path", minimal + "capabilities: [{id: a.b, grant: [network], hosts: [example.com/x]}]\n"},
		{"host inner wildcard", minimal + "capabilities: [{id: a.b, grant: [network], hosts: ['a.*.com']}]\n"},
		{"program relative", minimal + "capabilities: [{id: a.b, grant: [spawn], programs: [git]}]\n"},
		{"program trailing slash", minimal + "capabilities: [{id: a.b, grant: [spawn], programs: [/usr/bin/]}]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := validateYAML(t, s, []byte(tt.src)); err == nil {
				t.Errorf("schema accepts %q", tt.src)
			}
			if _, err := Parse("bad.yaml", []byte(tt.src)); err == nil {
				t.Errorf("Parse accepts %q", tt.src)
			}
		})
	}
}

// yamlFields returns the yaml field names of a struct type, recursing into
// struct, slice and yList fields: "extensions[].id", "catalog.expires".
func yamlFields(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		name := prefix + tag
		out = append(out, name)
		ft := f.Type
		if ft.Kind() == reflect.Struct && strings.HasPrefix(ft.Name(), "yList[") {
			ft = reflect.Zero(ft).FieldByName("v").Type()
		}
		if ft.Kind() == reflect.Slice {
			ft, name = ft.Elem(), name+"[]"
		}
		if ft.Kind() == reflect.Struct && !strings.HasPrefix(ft.Name(), "y") {
			out = append(out, yamlFields(ft, name+".")...)
		}
	}
	slices.Sort(out)
	return out
}

// schemaFields returns the property names of the schema the same way.
func schemaFields(root, s map[string]any, prefix string) []string {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		s = root["$defs"].(map[string]any)[name].(map[string]any)
	}
	var out []string
	props, _ := s["properties"].(map[string]any)
	for name, v := range props {
		sub := v.(map[string]any)
		out = append(out, prefix+name)
		if ref, ok := sub["$ref"].(string); ok {
			sub = root["$defs"].(map[string]any)[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		}
		switch sub["type"] {
		case "object":
			out = append(out, schemaFields(root, sub, prefix+name+".")...)
		case "array":
			items := sub["items"].(map[string]any)
			out = append(out, schemaFields(root, items, prefix+name+"[].")...)
		}
	}
	slices.Sort(out)
	return out
}

func loadSchemaMap(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(schemaJSON, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSchemaMatchesGo(t *testing.T) {
	root := loadSchemaMap(t)
	schema := schemaFields(root, root, "")
	decoded := yamlFields(reflect.TypeOf(rawDoc{}), "")
	written := yamlFields(reflect.TypeOf(outDoc{}), "")
	if diff := cmp.Diff(schema, decoded); diff != "" {
		t.Errorf("schema.json properties vs the fields Parse decodes (-schema +Go):\n%s", diff)
	}
	if diff := cmp.Diff(decoded, written); diff != "" {
		t.Errorf("fields Parse decodes vs fields MarshalYAML writes (-decoded +written):\n%s", diff)
	}

	defs := root["$defs"].(map[string]any)
	var platforms []string
	for _, p := range index.Platforms {
		platforms = append(platforms, string(p))
	}
	if diff := cmp.Diff(platforms, toStrings(defs["platform"].(map[string]any)["enum"])); diff != "" {
		t.Errorf("schema platform enum vs index.Platforms:\n%s", diff)
	}
	var caps []string
	for _, c := range index.Capabilities {
		caps = append(caps, string(c))
	}
	if diff := cmp.Diff(caps, toStrings(defs["capability"].(map[string]any)["enum"])); diff != "" {
		t.Errorf("schema capability enum vs index.Capabilities:\n%s", diff)
	}
	version := root["properties"].(map[string]any)["version"].(map[string]any)["const"]
	if version != float64(FormatVersion) {
		t.Errorf("schema version const = %v; want %d", version, FormatVersion)
	}
	latest := defs["rule"].(map[string]any)["properties"].(map[string]any)["latest"].(map[string]any)["oneOf"].([]any)[0].(map[string]any)["maximum"]
	if latest != float64(LatestAll) {
		t.Errorf("schema latest maximum = %v; want %d", latest, LatestAll)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestSchemaDescriptions checks every property and definition has a
// description, and every object schema sets additionalProperties: false.
func TestSchemaDescriptions(t *testing.T) {
	root := loadSchemaMap(t)
	walkSchema(root, func(path string, s map[string]any) {
		if d, _ := s["description"].(string); d == "" {
			t.Errorf("%s: no description", path)
		}
		if s["type"] == "object" && s["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties is not false", path)
		}
	})
	if root["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema = %v; want draft 2020-12", root["$schema"])
	}
}

// walkSchema calls visit with the root schema ("$"), each definition
// ("$defs.name") and, below each of them, every property ("$.a.b").
func walkSchema(root map[string]any, visit func(path string, s map[string]any)) {
	var walk func(path string, s map[string]any)
	walk = func(path string, s map[string]any) {
		visit(path, s)
		props, _ := s["properties"].(map[string]any)
		for name, v := range props {
			walk(path+"."+name, v.(map[string]any))
		}
	}
	walk("$", root)
	for name, v := range root["$defs"].(map[string]any) {
		walk("$defs."+name, v.(map[string]any))
	}
}
