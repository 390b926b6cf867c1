package vsix

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseActivationEvent(t *testing.T) {
	tests := []struct {
		in   string
		want ActivationEvent
	}{
		{"*", ActivationEvent{Raw: "*", Kind: "*", Known: true}},
		{"onCommand:a.b", ActivationEvent{Raw: "onCommand:a.b", Kind: "onCommand", Arg: "a.b", Known: true}},
		{"workspaceContains:**/x:y", ActivationEvent{Raw: "workspaceContains:**/x:y", Kind: "workspaceContains", Arg: "**/x:y", Known: true}},
		{"onLanguage", ActivationEvent{Raw: "onLanguage", Kind: "onLanguage", Known: true}},
		{"onStartupFinished", ActivationEvent{Raw: "onStartupFinished", Kind: "onStartupFinished", Known: true}},
		{"onTeleport:x", ActivationEvent{Raw: "onTeleport:x", Kind: "onTeleport", Arg: "x"}},
		{"", ActivationEvent{}},
	}
	for _, tt := range tests {
		if got := ParseActivationEvent(tt.in); got != tt.want {
			t.Errorf("ParseActivationEvent(%q) = %+v; want %+v", tt.in, got, tt.want)
		}
	}
}

func TestActivationWarnings(t *testing.T) {
	data := manifestBytes(t, setField("activationEvents", []any{"onCommand:a", "onTeleport:x", "onStartupFinished", "bogus"}))
	var r Report
	m, err := ParseManifest(data, &r)
	if err != nil {
		t.Fatal(err)
	}
	want := []ruleHit{warnHit(RuleUnknownActivationEvent, "activationEvents[1]"), warnHit(RuleUnknownActivationEvent, "activationEvents[3]")}
	if diff := cmp.Diff(want, ruleHits(&r)); diff != "" {
		t.Errorf("ParseManifest(%q) problems (-want +got):\n%s", data, diff)
	}
	if r.Err() != nil {
		t.Errorf("ParseManifest(%q): Report.Err() = %v; want nil (warnings only)", data, r.Err())
	}
	var kept []string
	for _, e := range m.Activation() {
		if !e.Known {
			kept = append(kept, e.Raw)
		}
	}
	if diff := cmp.Diff([]string{"onTeleport:x", "bogus"}, kept); diff != "" {
		t.Errorf("unknown events kept (-want +got):\n%s", diff)
	}
}

func TestActivation(t *testing.T) {
	contributes := map[string]any{
		"commands":  []any{map[string]any{"command": "ext.hello", "title": "Hello"}, map[string]any{"command": "ext.bye", "title": "Bye"}},
		"languages": []any{map[string]any{"id": "foo", "configuration": "./foo.json"}, map[string]any{"id": "bar"}},
		"views": map[string]any{
			"explorer": []any{map[string]any{"id": "ext.tree", "name": "Tree"}},
			"scm":      []any{map[string]any{"id": 5}},
		},
		"customEditors":                []any{map[string]any{"viewType": "ext.editor"}},
		"authentication":               []any{map[string]any{"id": "ext-auth", "label": "A"}},
		"notebooks":                    []any{map[string]any{"type": "ext-nb"}},
		"notebookRenderer":             []any{map[string]any{"id": "ext-render"}},
		"taskDefinitions":              []any{map[string]any{"type": "ext-task"}},
		"terminal":                     map[string]any{"profiles": []any{map[string]any{"id": "ext.term", "title": "T"}}},
		"walkthroughs":                 []any{map[string]any{"id": "ext-walk"}},
		"debugVisualizers":             []any{map[string]any{"id": "ext-vis"}},
		"chatParticipants":             []any{map[string]any{"id": "ext.chat"}},
		"languageModelTools":           []any{map[string]any{"name": "ext_tool"}},
		"mcpServerDefinitionProviders": []any{map[string]any{"id": "ext-mcp"}},
	}
	ev := func(raw, kind, arg string, implicit bool) ActivationEvent {
		return ActivationEvent{Raw: raw, Kind: kind, Arg: arg, Known: true, Implicit: implicit}
	}
	allImplicit := []ActivationEvent{
		ev("onCommand:ext.hello", "onCommand", "ext.hello", true),
		ev("onCommand:ext.bye", "onCommand", "ext.bye", true),
		ev("onLanguage:foo", "onLanguage", "foo", true),
		ev("onView:ext.tree", "onView", "ext.tree", true),
		ev("onCustomEditor:ext.editor", "onCustomEditor", "ext.editor", true),
		ev("onAuthenticationRequest:ext-auth", "onAuthenticationRequest", "ext-auth", true),
		ev("onNotebookSerializer:ext-nb", "onNotebookSerializer", "ext-nb", true),
		ev("onRenderer:ext-render", "onRenderer", "ext-render", true),
		ev("onTaskType:ext-task", "onTaskType", "ext-task", true),
		ev("onTerminalProfile:ext.term", "onTerminalProfile", "ext.term", true),
		ev("onWalkthrough:ext-walk", "onWalkthrough", "ext-walk", true),
		ev("onDebugVisualizer:ext-vis", "onDebugVisualizer", "ext-vis", true),
		ev("onChatParticipant:ext.chat", "onChatParticipant", "ext.chat", true),
		ev("onLanguageModelTool:ext_tool", "onLanguageModelTool", "ext_tool", true),
		ev("onMcpCollection:ext-mcp", "onMcpCollection", "ext-mcp", true),
	}
	tests := []struct {
		name string
		edit func(map[string]any)
		want []ActivationEvent
	}{
		{"implicit onCommand", nil, []ActivationEvent{ev("onCommand:hello.run", "onCommand", "hello.run", true)}},
		{"no code, no implicit events", delFields("main"), nil},
		{"no code keeps explicit events", func(m map[string]any) {
			delete(m, "main")
			m["activationEvents"] = []any{"onLanguage:x"}
		}, []ActivationEvent{ev("onLanguage:x", "onLanguage", "x", false)}},
		{"browser alone implies", func(m map[string]any) {
			delete(m, "main")
			m["browser"] = "./web.js"
		}, []ActivationEvent{ev("onCommand:hello.run", "onCommand", "hello.run", true)}},
		{"explicit first, deduplicated", setField("activationEvents", []any{"*", "onCommand:hello.run", "*"}), []ActivationEvent{
			ev("*", "*", "", false), ev("onCommand:hello.run", "onCommand", "hello.run", false),
		}},
		{"every generator", setField("contributes", contributes), allImplicit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := manifestBytes(t, tt.edit)
			var r Report
			m, err := ParseManifest(data, &r)
			if err != nil {
				t.Fatal(err)
			}
			got := m.Activation()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseManifest(%q).Activation() (-want +got):\n%s", data, diff)
			}
			if diff := cmp.Diff(got, m.Activation()); diff != "" {
				t.Errorf("Activation() is not stable (-first +second):\n%s", diff)
			}
		})
	}
}

func TestActivationBuiltManifest(t *testing.T) {
	m := &Manifest{Main: "x.js", Contributes: Contributes{
		Commands:  []Command{{Command: "a.b", Title: "T"}},
		Languages: []Language{{ID: "l", Configuration: "c.json"}},
	}}
	want := []string{"onCommand:a.b", "onLanguage:l"}
	var got []string
	for _, e := range m.Activation() {
		got = append(got, e.Raw)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Activation() (-want +got):\n%s", diff)
	}
}
