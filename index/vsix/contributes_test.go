package vsix

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func setContributes(c map[string]any) func(map[string]any) { return setField("contributes", c) }

func TestContributesProblems(t *testing.T) {
	tests := []struct {
		name string
		c    map[string]any
		want []ruleHit
	}{
		{"command ok", map[string]any{"commands": []any{map[string]any{"command": "a.b", "title": "T"}}}, nil},
		{"command nls title", map[string]any{"commands": []any{map[string]any{"command": "a.b", "title": "%a.b.title%"}}}, nil},
		{"command localized title", map[string]any{"commands": []any{map[string]any{"command": "a.b", "title": map[string]any{"value": "T", "original": "T"}, "category": map[string]any{"value": "C"}}}}, nil},
		{"single command object", map[string]any{"commands": map[string]any{"command": "a.b", "title": "T"}}, nil},
		{"command missing title", map[string]any{"commands": []any{map[string]any{"command": "a.b"}}},
			[]ruleHit{errHit(RuleInvalidCommand, "contributes.commands[0].title")}},
		{"command empty title", map[string]any{"commands": []any{map[string]any{"command": "a.b", "title": ""}}},
			[]ruleHit{errHit(RuleInvalidCommand, "contributes.commands[0].title")}},
		{"command title a number", map[string]any{"commands": []any{map[string]any{"command": "a.b", "title": 3}}},
			[]ruleHit{errHit(RuleInvalidCommand, "contributes.commands[0].title")}},
		{"command localized title without value", map[string]any{"commands": []any{map[string]any{"command": "a.b", "title": map[string]any{"original": "T"}}}},
			[]ruleHit{errHit(RuleInvalidCommand, "contributes.commands[0].title.value")}},
		{"command missing command", map[string]any{"commands": []any{map[string]any{"title": "T"}}},
			[]ruleHit{errHit(RuleInvalidCommand, "contributes.commands[0].command")}},
		{"command command a number", map[string]any{"commands": []any{map[string]any{"command": 1, "title": "T"}}},
			[]ruleHit{errHit(RuleInvalidCommand, "contributes.commands[0].command")}},
		{"command not an object", map[string]any{"commands": []any{"a.b"}},
			[]ruleHit{errHit(RuleFieldType, "contributes.commands[0]")}},
		{"commands a string", map[string]any{"commands": "a.b"},
			[]ruleHit{errHit(RuleFieldType, "contributes.commands")}},
		{"category a number", map[string]any{"commands": []any{map[string]any{"command": "a.b", "title": "T", "category": 1}}},
			[]ruleHit{warnHit(RuleFieldType, "contributes.commands[0].category")}},
		{"language ok", map[string]any{"languages": []any{map[string]any{"id": "foo", "extensions": []any{".foo"}}}}, nil},
		{"language missing id", map[string]any{"languages": []any{map[string]any{"extensions": []any{".foo"}}}},
			[]ruleHit{errHit(RuleInvalidLanguage, "contributes.languages[0].id")}},
		{"language empty id", map[string]any{"languages": []any{map[string]any{"id": ""}}},
			[]ruleHit{errHit(RuleInvalidLanguage, "contributes.languages[0].id")}},
		{"language id a number", map[string]any{"languages": []any{map[string]any{"id": 1}}},
			[]ruleHit{errHit(RuleInvalidLanguage, "contributes.languages[0].id")}},
		{"languages an object", map[string]any{"languages": map[string]any{"id": "foo"}},
			[]ruleHit{errHit(RuleFieldType, "contributes.languages")}},
		{"language aliases a string", map[string]any{"languages": []any{map[string]any{"id": "foo", "aliases": "Foo"}}},
			[]ruleHit{warnHit(RuleFieldType, "contributes.languages[0].aliases")}},
		{"unknown contribution", map[string]any{"teleporters": []any{}, "commands": []any{}},
			[]ruleHit{warnHit(RuleUnknownContribution, "contributes.teleporters")}},
		{"known kinds", map[string]any{"themes": []any{}, "grammars": []any{}, "menus": map[string]any{}, "configuration": map[string]any{},
			"keybindings": []any{}, "snippets": []any{}, "viewsContainers": map[string]any{}, "walkthroughs": []any{},
			"semanticTokenTypes": []any{}, "resourceLabelFormatters": []any{}, "codeActions": []any{}, "submenus": []any{}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := manifestBytes(t, setContributes(tt.c))
			var r Report
			if _, err := ParseManifest(data, &r); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, ruleHits(&r)); diff != "" {
				t.Errorf("ParseManifest(%q) problems (-want +got):\n%s", data, diff)
			}
			if r.Err() == nil && tt.want != nil && tt.want[0].Sev == Error {
				t.Errorf("ParseManifest(%q): Report.Err() = nil; want an error", data)
			}
			assertRoundTrip(t, data)
		})
	}
}

func TestContributesParsed(t *testing.T) {
	data := []byte(`{"publisher":"p","name":"n","version":"1.0.0","engines":{"vscode":"*"},"contributes":{
		"zeta": 1,
		"commands": [{"command": "a.one", "title": "One", "category": "Cat"}, {"command": "a.bad"},
		             {"command": "a.two", "title": {"value": "Two", "original": "Zwei"}}],
		"languages": [{"id": "foo", "extensions": [".foo"], "aliases": ["Foo"], "configuration": "./lang.json"}, {"aliases": []}]
	}}`)
	var r Report
	m, err := ParseManifest(data, &r)
	if err != nil {
		t.Fatal(err)
	}
	c := m.Contributes
	wantCmds := []Command{{"a.one", "One", "Cat"}, {"a.two", "Two", ""}}
	if diff := cmp.Diff(wantCmds, c.Commands); diff != "" {
		t.Errorf("Commands (-want +got):\n%s", diff)
	}
	wantLangs := []Language{{ID: "foo", Extensions: []string{".foo"}, Aliases: []string{"Foo"}, Configuration: "./lang.json"}}
	if diff := cmp.Diff(wantLangs, c.Languages); diff != "" {
		t.Errorf("Languages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"commands", "languages", "zeta"}, c.Kinds); diff != "" {
		t.Errorf("Kinds (-want +got):\n%s", diff)
	}
	if string(c.Raw["zeta"]) != "1" {
		t.Errorf("Raw[zeta] = %s; want 1", c.Raw["zeta"])
	}
	want := []ruleHit{
		warnHit(RuleUnknownContribution, "contributes.zeta"),
		errHit(RuleInvalidCommand, "contributes.commands[1].title"),
		errHit(RuleInvalidLanguage, "contributes.languages[1].id"),
	}
	if diff := cmp.Diff(want, ruleHits(&r)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}
