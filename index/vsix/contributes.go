package vsix

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Rules for package.json contributes.
const (
	// RuleInvalidCommand: a contributes.commands entry is not an object or
	// lacks a string command or a title (a string or {value, original}).
	RuleInvalidCommand Rule = "invalid-command"
	// RuleInvalidLanguage: a contributes.languages entry is not an object
	// or lacks a string id.
	RuleInvalidLanguage Rule = "invalid-language"
	// RuleUnknownContribution (warning): a contributes key airvsx does not
	// know. VS Code ignores unknown contribution points.
	RuleUnknownContribution Rule = "unknown-contribution"
)

// Contributes is package.json "contributes": the static contributions. Raw
// holds every contribution point as written (compact JSON) and is what
// MarshalJSON writes; Commands and Languages are parsed views of it.
type Contributes struct {
	Commands  []Command
	Languages []Language
	// Kinds is every contribution point present, sorted.
	Kinds []string
	Raw   map[string]json.RawMessage
}

// Command is one contributes.commands entry. Title and Category are the
// strings as written (a %key% placeholder is left as is) or, for a
// localized {value, original} object, its value.
type Command struct {
	Command  string `json:"command"`
	Title    string `json:"title"`
	Category string `json:"category,omitempty"`
}

// Language is one contributes.languages entry.
type Language struct {
	ID            string   `json:"id"`
	Extensions    []string `json:"extensions,omitempty"`
	Aliases       []string `json:"aliases,omitempty"`
	Configuration string   `json:"configuration,omitempty"`
}

// ContributionKinds is every contribution point airvsx knows: the ones in
// VS Code's IExtensionContributions and the extension points VS Code and its
// built-in extensions register. Any other key draws a warning.
var ContributionKinds = []string{
	"authentication", "breakpoints", "chatParticipants", "chatViewsWelcome",
	"codeActions", "colors", "commands", "configuration", "configurationDefaults",
	"continueEditSession", "css", "customEditors", "debugVisualizers", "debuggers",
	"documentation", "grammars", "html", "iconThemes", "icons", "jsonValidation",
	"keybindings", "languageModelChatProviders", "languageModelToolSets", "languageModelTools",
	"languages", "localizations", "markdown.markdownItPlugins", "markdown.previewScripts",
	"markdown.previewStyles", "mcpServerDefinitionProviders", "menus", "notebookPreload",
	"notebookRenderer", "notebooks", "problemMatchers", "problemPatterns",
	"productIconThemes", "remoteHelp", "resourceLabelFormatters", "semanticTokenModifiers",
	"semanticTokenScopes", "semanticTokenTypes", "snippets", "startEntries", "submenus",
	"taskDefinitions", "terminal", "themes", "typescriptServerPlugins", "views",
	"viewsContainers", "viewsWelcome", "walkthroughs",
}

func (c Contributes) isZero() bool {
	return c.Raw == nil && len(c.Commands) == 0 && len(c.Languages) == 0
}

// MarshalJSON writes Raw; a Contributes built in code without Raw is
// written from Commands and Languages.
func (c Contributes) MarshalJSON() ([]byte, error) {
	if c.Raw != nil {
		return json.Marshal(c.Raw)
	}
	type typed struct {
		Commands  []Command  `json:"commands,omitempty"`
		Languages []Language `json:"languages,omitempty"`
	}
	return json.Marshal(typed{c.Commands, c.Languages})
}

func (p *jsonParser) contributes(raw json.RawMessage) Contributes {
	obj, ok := p.object("contributes", raw, runtimeField)
	if !ok || len(obj) == 0 {
		return Contributes{}
	}
	c := Contributes{Raw: make(map[string]json.RawMessage, len(obj))}
	for k, v := range obj {
		c.Kinds = append(c.Kinds, k)
		c.Raw[k] = canonJSON(v)
	}
	slices.Sort(c.Kinds)
	for _, k := range c.Kinds {
		if !slices.Contains(ContributionKinds, k) {
			p.warnf("contributes."+k, RuleUnknownContribution, "unknown contribution point %q (ignored)", k)
		}
	}
	if v, ok := obj["commands"]; ok {
		c.Commands = p.commands(v)
	}
	if v, ok := obj["languages"]; ok {
		c.Languages = p.languages(v)
	}
	return c
}

// commands parses contributes.commands: an array of commands, or a single
// command object (VS Code accepts both).
func (p *jsonParser) commands(raw json.RawMessage) []Command {
	const field = "contributes.commands"
	var elems []json.RawMessage
	switch jsonKind(raw) {
	case "object":
		elems = []json.RawMessage{raw}
	case "array":
		elems, _ = p.array(field, raw, runtimeField)
	default:
		p.wrongType(runtimeField, field, "an array or an object", raw)
		return nil
	}
	var out []Command
	for i, e := range elems {
		f := fmt.Sprintf("%s[%d]", field, i)
		if jsonKind(raw) == "object" {
			f = field
		}
		obj, ok := p.object(f, e, runtimeField)
		if !ok {
			continue
		}
		var cmd Command
		good := true
		switch v, ok := obj["command"]; {
		case !ok:
			p.errorf(f+".command", RuleInvalidCommand, "command is required")
			good = false
		case jsonKind(v) != "string":
			p.errorf(f+".command", RuleInvalidCommand, "want a string, got %s", jsonKindName(v))
			good = false
		default:
			cmd.Command = p.str(f+".command", v, runtimeField)
			if cmd.Command == "" {
				p.errorf(f+".command", RuleInvalidCommand, "command is required")
				good = false
			}
		}
		if v, ok := obj["title"]; !ok {
			p.errorf(f+".title", RuleInvalidCommand, "title is required")
			good = false
		} else if t, ok := p.localized(f+".title", v, Error); !ok || t == "" {
			if ok {
				p.errorf(f+".title", RuleInvalidCommand, "title is required")
			}
			good = false
		} else {
			cmd.Title = t
		}
		if v, ok := obj["category"]; ok {
			cmd.Category, _ = p.localized(f+".category", v, Warning)
		}
		if good {
			out = append(out, cmd)
		}
	}
	return out
}

// localized reads a string or a localized {value, original} object and
// returns the value.
func (p *jsonParser) localized(field string, raw json.RawMessage, sev Severity) (string, bool) {
	rule := RuleFieldType
	if sev == Error {
		rule = RuleInvalidCommand
	}
	switch jsonKind(raw) {
	case "string":
		var s string
		_ = json.Unmarshal(raw, &s)
		return s, true
	case "object":
		var obj map[string]json.RawMessage
		_ = json.Unmarshal(raw, &obj)
		var s string
		if jsonKind(obj["value"]) != "string" || json.Unmarshal(obj["value"], &s) != nil {
			p.report(sev, field+".value", rule, "want a string, got %s", jsonKindName(obj["value"]))
			return "", false
		}
		return s, true
	default:
		p.report(sev, field, rule, "want a string or {value, original}, got %s", jsonKindName(raw))
		return "", false
	}
}

// languages parses contributes.languages.
func (p *jsonParser) languages(raw json.RawMessage) []Language {
	const field = "contributes.languages"
	elems, ok := p.array(field, raw, runtimeField)
	if !ok {
		return nil
	}
	var out []Language
	for i, e := range elems {
		f := fmt.Sprintf("%s[%d]", field, i)
		obj, ok := p.object(f, e, runtimeField)
		if !ok {
			continue
		}
		var l Language
		switch v, ok := obj["id"]; {
		case !ok:
			p.errorf(f+".id", RuleInvalidLanguage, "id is required")
			continue
		case jsonKind(v) != "string":
			p.errorf(f+".id", RuleInvalidLanguage, "want a string, got %s", jsonKindName(v))
			continue
		default:
			if l.ID = p.str(f+".id", v, runtimeField); l.ID == "" {
				p.errorf(f+".id", RuleInvalidLanguage, "id is required")
				continue
			}
		}
		if v, ok := obj["extensions"]; ok {
			l.Extensions = p.strList(f+".extensions", v, Warning)
		}
		if v, ok := obj["aliases"]; ok {
			l.Aliases = p.strList(f+".aliases", v, Warning)
		}
		if v, ok := obj["configuration"]; ok {
			l.Configuration = p.str(f+".configuration", v, Warning)
		}
		out = append(out, l)
	}
	return out
}
