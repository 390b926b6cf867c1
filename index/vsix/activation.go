package vsix

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// RuleUnknownActivationEvent (warning): an activationEvents entry whose
// kind airvsx does not know. It is kept, with Known false.
const RuleUnknownActivationEvent Rule = "unknown-activation-event"

// ActivationEvent is one event that activates an extension.
type ActivationEvent struct {
	// Raw is the event as written, e.g. "onCommand:ext.hello".
	Raw string
	// Kind is the text before the first ':' ("onCommand"), or the whole
	// event when it has no argument ("onStartupFinished", "*").
	Kind string
	// Arg is the text after the first ':' ("ext.hello").
	Arg string
	// Known reports whether Kind is one of ActivationEventKinds.
	Known bool
	// Implicit reports whether the event is derived from contributes (VS
	// Code 1.74 and later) rather than listed in activationEvents.
	Implicit bool
}

// Eager reports whether the event is "*": activation at startup.
func (e ActivationEvent) Eager() bool { return e.Kind == "*" }

// ActivationEventKinds is every activation event kind airvsx knows.
var ActivationEventKinds = []string{
	"*",
	"onAuthenticationRequest", "onChatParticipant", "onCommand", "onCustomEditor",
	"onDebug", "onDebugAdapterProtocolTracker", "onDebugDynamicConfigurations",
	"onDebugInitialConfigurations", "onDebugResolve", "onDebugVisualizer",
	"onEditSession", "onFileSystem", "onIssueReporterOpened", "onLanguage",
	"onLanguageModelTool", "onMcpCollection", "onNotebook", "onNotebookSerializer",
	"onOpenExternalUri", "onRenderer", "onSearch", "onStartupFinished", "onTaskType",
	"onTerminal", "onTerminalProfile", "onUri", "onView", "onWalkthrough",
	"onWebviewPanel", "workspaceContains",
}

// ParseActivationEvent splits an event into kind and argument.
func ParseActivationEvent(s string) ActivationEvent {
	kind, arg, _ := strings.Cut(s, ":")
	return ActivationEvent{Raw: s, Kind: kind, Arg: arg, Known: slices.Contains(ActivationEventKinds, kind)}
}

func (p *jsonParser) checkActivationEvents(events []string) {
	for i, s := range events {
		if e := ParseActivationEvent(s); !e.Known {
			p.warnf(fmt.Sprintf("activationEvents[%d]", i), RuleUnknownActivationEvent,
				"unknown activation event kind %q (kept, never fired by airvsx)", e.Kind)
		}
	}
}

// implicitActivation lists the contribution points that imply activation
// events (VS Code's activationEventsGenerator, 1.74 and later), in the
// order Activation reports them: the contribution point, the member of each
// entry that names the event's argument, and the event kind.
var implicitActivation = []struct {
	point, member, kind string
}{
	{"commands", "command", "onCommand"},
	{"languages", "id", "onLanguage"}, // only entries with a configuration
	{"views", "id", "onView"},         // an object of arrays
	{"customEditors", "viewType", "onCustomEditor"},
	{"authentication", "id", "onAuthenticationRequest"},
	{"notebooks", "type", "onNotebookSerializer"},
	{"notebookRenderer", "id", "onRenderer"},
	{"taskDefinitions", "type", "onTaskType"},
	{"terminal", "id", "onTerminalProfile"}, // terminal.profiles
	{"walkthroughs", "id", "onWalkthrough"},
	{"debugVisualizers", "id", "onDebugVisualizer"},
	{"chatParticipants", "id", "onChatParticipant"},
	{"languageModelTools", "name", "onLanguageModelTool"},
	{"mcpServerDefinitionProviders", "id", "onMcpCollection"},
}

// Activation returns the events that activate the extension: those listed
// in activationEvents, in order, then the ones implied by contributes (only
// when main or browser is set: without code there is nothing to activate),
// without duplicates. Unknown kinds are kept with Known false.
func (m *Manifest) Activation() []ActivationEvent {
	var out []ActivationEvent
	seen := make(map[string]bool)
	add := func(e ActivationEvent) {
		if !seen[e.Raw] {
			seen[e.Raw] = true
			out = append(out, e)
		}
	}
	for _, s := range m.ActivationEvents {
		add(ParseActivationEvent(s))
	}
	if !m.ExecutesCode() {
		return out
	}
	for _, g := range implicitActivation {
		for _, arg := range implicitArgs(m.Contributes, g.point, g.member) {
			e := ParseActivationEvent(g.kind + ":" + arg)
			e.Implicit = true
			add(e)
		}
	}
	return out
}

// implicitArgs returns the non-empty string values of member in the
// entries of a contribution point. Malformed entries are skipped: the
// problems were recorded when the manifest was parsed.
func implicitArgs(c Contributes, point, member string) []string {
	switch point {
	case "commands":
		if c.Raw == nil { // built in code
			var out []string
			for _, cmd := range c.Commands {
				out = append(out, cmd.Command)
			}
			return nonEmpty(out)
		}
	case "languages":
		var out []string
		for _, l := range c.Languages {
			if l.Configuration != "" {
				out = append(out, l.ID)
			}
		}
		return nonEmpty(out)
	}
	raw, ok := c.Raw[point]
	if !ok {
		return nil
	}
	var entries []json.RawMessage
	switch point {
	case "views":
		var containers map[string]json.RawMessage
		if json.Unmarshal(raw, &containers) != nil {
			return nil
		}
		keys := make([]string, 0, len(containers))
		for k := range containers {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			var list []json.RawMessage
			if json.Unmarshal(containers[k], &list) == nil {
				entries = append(entries, list...)
			}
		}
	case "terminal":
		var t map[string]json.RawMessage
		if jsonKind(raw) == "object" && json.Unmarshal(raw, &t) == nil {
			_ = json.Unmarshal(t["profiles"], &entries) // keys match exactly
		}
	case "commands":
		if jsonKind(raw) == "object" {
			entries = []json.RawMessage{raw}
			break
		}
		fallthrough
	default:
		if json.Unmarshal(raw, &entries) != nil {
			return nil
		}
	}
	var out []string
	for _, e := range entries {
		var obj map[string]json.RawMessage
		if jsonKind(e) != "object" || json.Unmarshal(e, &obj) != nil {
			continue
		}
		var s string
		if jsonKind(obj[member]) == "string" && json.Unmarshal(obj[member], &s) == nil {
			out = append(out, s)
		}
	}
	return nonEmpty(out)
}

func nonEmpty(ss []string) []string {
	return slices.DeleteFunc(ss, func(s string) bool { return s == "" })
}
