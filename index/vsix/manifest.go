package vsix

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/airvsx/airvsx/index"
)

// PackageJSONPath is where VS Code reads the extension manifest from, whatever
// the vsixmanifest says.
const PackageJSONPath = "extension/package.json"

// Rules for extension/package.json. A rule with a "warning" note is recorded
// as a Warning; the others are errors.
const (
	// RuleManifestSyntax: a manifest is not well-formed JSON (an object) or
	// XML.
	RuleManifestSyntax Rule = "manifest-syntax"
	// RuleRequiredField: publisher, name, version or engines.vscode is
	// missing or empty (or an Identity attribute in the vsixmanifest).
	RuleRequiredField Rule = "required-field"
	// RuleInvalidName: publisher or name breaks index.ValidName.
	RuleInvalidName Rule = "invalid-name"
	// RuleInvalidVersion: version is not strict SemVer.
	RuleInvalidVersion Rule = "invalid-version"
	// RuleInvalidEngine: engines.vscode is not a VS Code engine range.
	RuleInvalidEngine Rule = "invalid-engine"
	// RuleFieldType: a field has the wrong JSON type. An error for fields
	// the runtime uses, a warning for display-only fields.
	RuleFieldType Rule = "field-type"
	// RuleInvalidDependency: an extensionDependencies or extensionPack entry
	// is not a valid "publisher.name".
	RuleInvalidDependency Rule = "invalid-dependency"
	// RuleInvalidEntryPoint: main or browser is absolute, has a backslash,
	// or leads out of the extension directory.
	RuleInvalidEntryPoint Rule = "invalid-entry-point"
	// RuleUnknownExtensionKind (warning): extensionKind has a value other
	// than ui, workspace or web.
	RuleUnknownExtensionKind Rule = "unknown-extension-kind"
)

// Manifest is extension/package.json, the VS Code extension manifest.
//
// ParseManifest fills the typed fields leniently and records every problem
// in a Report. Top-level members it does not know are kept verbatim in
// Extra, and so is any known member whose value drew a problem; MarshalJSON
// writes an Extra member instead of the typed field of the same name, so a
// parsed Manifest encodes back to a manifest that parses to the same value
// with the same problems.
type Manifest struct {
	Publisher   string `json:"publisher"`
	Name        string `json:"name"`
	Version     string `json:"version"`
	DisplayName string `json:"displayName"`
	Description string `json:"description"`
	// Engines holds the engines object as written (engines.vscode etc.).
	Engines          map[string]string `json:"engines"`
	Main             string            `json:"main"`
	Browser          string            `json:"browser"`
	ActivationEvents []string          `json:"activationEvents"`
	Contributes      Contributes       `json:"contributes"`

	ExtensionDependencies []string `json:"extensionDependencies"`
	ExtensionPack         []string `json:"extensionPack"`
	// ExtensionKind is extensionKind, a string or an array in the file.
	ExtensionKind       []string             `json:"extensionKind"`
	EnabledAPIProposals []string             `json:"enabledApiProposals"`
	Capabilities        ManifestCapabilities `json:"capabilities"`

	// Display fields.
	Categories []string `json:"categories"`
	Keywords   []string `json:"keywords"`
	License    string   `json:"license"`
	Icon       string   `json:"icon"`
	Homepage   string   `json:"homepage"`
	// Repository is the repository URL: the string, or the url of a
	// {type, url} object.
	Repository string `json:"repository"`
	// Bugs is the issue tracker URL: the string, or the url of a
	// {url, email} object.
	Bugs string `json:"bugs"`
	// Author is the author's name: the string, or the name of a
	// {name, email, url} object.
	Author string `json:"author"`
	// Sponsor is sponsor.url.
	Sponsor string `json:"sponsor"`
	Preview bool   `json:"preview"`
	Pricing string `json:"pricing"`
	L10n    string `json:"l10n"`

	// Extra holds the top-level members not described above, and any
	// member above whose value drew a problem, as compact JSON. VS Code
	// ignores unknown members; they are kept only for re-encoding.
	Extra map[string]json.RawMessage `json:"-"`
}

// Severities of a wrong JSON type: errors for what the runtime relies on.
const (
	runtimeField = Error
	displayField = Warning
)

// manifestField is a known top-level member and how to parse it.
type manifestField struct {
	key   string
	parse func(p *jsonParser, m *Manifest, raw json.RawMessage)
}

// checkedStr is a string member the runtime uses, stored in *field(m) and
// then checked by check (called with the key and the value).
func checkedStr(key string, field func(*Manifest) *string, check func(p *jsonParser, key, s string)) manifestField {
	return manifestField{key, func(p *jsonParser, m *Manifest, raw json.RawMessage) {
		s := field(m)
		*s = p.str(key, raw, runtimeField)
		check(p, key, *s)
	}}
}

// manifestFields lists the known top-level members and how to parse each.
var manifestFields = []manifestField{
	checkedStr("publisher", func(m *Manifest) *string { return &m.Publisher }, (*jsonParser).checkName),
	checkedStr("name", func(m *Manifest) *string { return &m.Name }, (*jsonParser).checkName),
	checkedStr("version", func(m *Manifest) *string { return &m.Version }, func(p *jsonParser, _, s string) { p.checkVersion(s) }),
	{"displayName", func(p *jsonParser, m *Manifest, raw json.RawMessage) {
		m.DisplayName = p.str("displayName", raw, displayField)
	}},
	{"description", func(p *jsonParser, m *Manifest, raw json.RawMessage) {
		m.Description = p.str("description", raw, displayField)
	}},
	{"engines", func(p *jsonParser, m *Manifest, raw json.RawMessage) { m.Engines = p.engines(raw) }},
	checkedStr("main", func(m *Manifest) *string { return &m.Main }, (*jsonParser).checkEntryPoint),
	checkedStr("browser", func(m *Manifest) *string { return &m.Browser }, (*jsonParser).checkEntryPoint),
	{"activationEvents", func(p *jsonParser, m *Manifest, raw json.RawMessage) {
		m.ActivationEvents = p.strList("activationEvents", raw, runtimeField)
		p.checkActivationEvents(m.ActivationEvents)
	}},
	{"contributes", func(p *jsonParser, m *Manifest, raw json.RawMessage) { m.Contributes = p.contributes(raw) }},
	{"extensionDependencies", func(p *jsonParser, m *Manifest, raw json.RawMessage) {
		m.ExtensionDependencies = p.idList("extensionDependencies", raw)
	}},
	{"extensionPack", func(p *jsonParser, m *Manifest, raw json.RawMessage) {
		m.ExtensionPack = p.idList("extensionPack", raw)
	}},
	{"extensionKind", func(p *jsonParser, m *Manifest, raw json.RawMessage) { m.ExtensionKind = p.extensionKind(raw) }},
	{"enabledApiProposals", func(p *jsonParser, m *Manifest, raw json.RawMessage) {
		m.EnabledAPIProposals = p.strList("enabledApiProposals", raw, runtimeField)
	}},
	{"capabilities", func(p *jsonParser, m *Manifest, raw json.RawMessage) { m.Capabilities = p.capabilities(raw) }},
	{"categories", func(p *jsonParser, m *Manifest, raw json.RawMessage) {
		m.Categories = p.strList("categories", raw, displayField)
	}},
	{"keywords", func(p *jsonParser, m *Manifest, raw json.RawMessage) {
		m.Keywords = p.strList("keywords", raw, displayField)
	}},
	{"license", func(p *jsonParser, m *Manifest, raw json.RawMessage) { m.License = p.str("license", raw, displayField) }},
	{"icon", func(p *jsonParser, m *Manifest, raw json.RawMessage) { m.Icon = p.str("icon", raw, displayField) }},
	{"homepage", func(p *jsonParser, m *Manifest, raw json.RawMessage) {
		m.Homepage = p.str("homepage", raw, displayField)
	}},
	{"repository", func(p *jsonParser, m *Manifest, raw json.RawMessage) {
		m.Repository = p.strOrMember("repository", "url", raw)
	}},
	{"bugs", func(p *jsonParser, m *Manifest, raw json.RawMessage) { m.Bugs = p.strOrMember("bugs", "url", raw) }},
	{"author", func(p *jsonParser, m *Manifest, raw json.RawMessage) { m.Author = p.strOrMember("author", "name", raw) }},
	{"sponsor", func(p *jsonParser, m *Manifest, raw json.RawMessage) { m.Sponsor = p.member("sponsor", "url", raw) }},
	{"preview", func(p *jsonParser, m *Manifest, raw json.RawMessage) {
		m.Preview = p.boolean("preview", raw, displayField)
	}},
	{"pricing", func(p *jsonParser, m *Manifest, raw json.RawMessage) { m.Pricing = p.str("pricing", raw, displayField) }},
	{"l10n", func(p *jsonParser, m *Manifest, raw json.RawMessage) { m.L10n = p.str("l10n", raw, runtimeField) }},
}

// ParseManifest parses extension/package.json. A leading UTF-8 byte order
// mark is skipped, as VS Code skips it. It returns an error only when data
// is not a JSON object at all; every problem with a field is recorded in r
// (File "extension/package.json", Field the JSON path), and the Manifest
// holds whatever could be read.
//
// Required: publisher and name (index.ValidName), version (strict SemVer,
// index.ParseVersion) and engines.vscode (index.ParseEngineRange).
func ParseManifest(data []byte, r *Report) (*Manifest, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		if _, ok := err.(*json.UnmarshalTypeError); ok || err == nil {
			err = fmt.Errorf("want a JSON object, got %s", jsonKindName(data))
		}
		r.Errorf(PackageJSONPath, "", RuleManifestSyntax, "%v", err)
		return nil, fmt.Errorf("%s: %w", PackageJSONPath, err)
	}
	p := &jsonParser{r: r, file: PackageJSONPath}
	m := &Manifest{}
	for _, f := range manifestFields {
		raw, ok := obj[f.key]
		if !ok {
			continue
		}
		delete(obj, f.key)
		p.dirty = false
		f.parse(p, m, raw)
		if p.dirty {
			m.setExtra(f.key, raw)
		}
	}
	for k, raw := range obj {
		m.setExtra(k, raw)
	}
	for _, f := range []struct {
		name, val string
	}{{"publisher", m.Publisher}, {"name", m.Name}, {"version", m.Version}} {
		if _, ok := m.Extra[f.name]; !ok && f.val == "" {
			r.Errorf(PackageJSONPath, f.name, RuleRequiredField, "%s is required", f.name)
		}
	}
	if _, ok := m.Extra["engines"]; !ok && m.Engines["vscode"] == "" {
		r.Errorf(PackageJSONPath, "engines.vscode", RuleRequiredField, "engines.vscode is required")
	}
	return m, nil
}

var utf8BOM = []byte("\xef\xbb\xbf")

func (m *Manifest) setExtra(key string, raw json.RawMessage) {
	if m.Extra == nil {
		m.Extra = make(map[string]json.RawMessage)
	}
	m.Extra[key] = canonJSON(raw)
}

// ID returns publisher.name, validated.
func (m *Manifest) ID() (index.ID, error) {
	id := index.ID{Namespace: m.Publisher, Name: m.Name}
	if err := id.Validate(); err != nil {
		return index.ID{}, fmt.Errorf("%s: %w", PackageJSONPath, err)
	}
	return id, nil
}

// Engine returns the parsed engines.vscode range.
func (m *Manifest) Engine() (index.EngineRange, error) {
	s, ok := m.Engines["vscode"]
	if !ok || s == "" {
		return index.EngineRange{}, fmt.Errorf("%s: engines.vscode is required", PackageJSONPath)
	}
	e, err := index.ParseEngineRange(s)
	if err != nil {
		return index.EngineRange{}, fmt.Errorf("%s: %w", PackageJSONPath, err)
	}
	return e, nil
}

// DependencyIDs returns extensionDependencies as IDs, in file order; an
// entry that is not a valid ID is left out (it is a manifest problem,
// reported as such).
func (m *Manifest) DependencyIDs() []index.ID { return index.ValidIDs(m.ExtensionDependencies) }

// PackIDs is DependencyIDs for extensionPack.
func (m *Manifest) PackIDs() []index.ID { return index.ValidIDs(m.ExtensionPack) }

// ExecutesCode reports whether the extension has code to run (main or
// browser); without either it is declarative only and never activates.
func (m *Manifest) ExecutesCode() bool { return m.Main != "" || m.Browser != "" }

// UninstallScript returns scripts["vscode:uninstall"], the Node script VS
// Code runs after an uninstall, or "" when there is none. airvsx never runs
// it unsandboxed.
func (m *Manifest) UninstallScript() string {
	var scripts map[string]json.RawMessage
	if json.Unmarshal(m.Extra["scripts"], &scripts) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(scripts["vscode:uninstall"], &s) != nil {
		return ""
	}
	return s
}

// MarshalJSON encodes the manifest as a package.json object with sorted
// keys. Members of Extra take the place of typed fields of the same name.
func (m Manifest) MarshalJSON() ([]byte, error) {
	obj := make(map[string]json.RawMessage, len(m.Extra)+16)
	for k, v := range m.Extra {
		obj[k] = v
	}
	var err error
	set := func(key string, v any, zero bool) {
		if _, ok := obj[key]; ok || zero || err != nil {
			return
		}
		obj[key], err = json.Marshal(v)
	}
	set("publisher", m.Publisher, m.Publisher == "")
	set("name", m.Name, m.Name == "")
	set("version", m.Version, m.Version == "")
	set("displayName", m.DisplayName, m.DisplayName == "")
	set("description", m.Description, m.Description == "")
	set("engines", m.Engines, len(m.Engines) == 0)
	set("main", m.Main, m.Main == "")
	set("browser", m.Browser, m.Browser == "")
	set("activationEvents", m.ActivationEvents, len(m.ActivationEvents) == 0)
	set("contributes", m.Contributes, m.Contributes.isZero())
	set("extensionDependencies", m.ExtensionDependencies, len(m.ExtensionDependencies) == 0)
	set("extensionPack", m.ExtensionPack, len(m.ExtensionPack) == 0)
	set("extensionKind", m.ExtensionKind, len(m.ExtensionKind) == 0)
	set("enabledApiProposals", m.EnabledAPIProposals, len(m.EnabledAPIProposals) == 0)
	set("capabilities", m.Capabilities, m.Capabilities.isZero())
	set("categories", m.Categories, len(m.Categories) == 0)
	set("keywords", m.Keywords, len(m.Keywords) == 0)
	set("license", m.License, m.License == "")
	set("icon", m.Icon, m.Icon == "")
	set("homepage", m.Homepage, m.Homepage == "")
	set("repository", m.Repository, m.Repository == "")
	set("bugs", m.Bugs, m.Bugs == "")
	set("author", m.Author, m.Author == "")
	set("sponsor", map[string]string{"url": m.Sponsor}, m.Sponsor == "")
	set("preview", m.Preview, !m.Preview)
	set("pricing", m.Pricing, m.Pricing == "")
	set("l10n", m.L10n, m.L10n == "")
	if err != nil {
		return nil, err
	}
	return json.Marshal(obj)
}

// UnmarshalJSON is ParseManifest with the problems discarded, so a
// Manifest inside other JSON decodes the way it encodes. Use ParseManifest
// to see the problems.
func (m *Manifest) UnmarshalJSON(data []byte) error {
	var r Report
	p, err := ParseManifest(data, &r)
	if err != nil {
		return err
	}
	*m = *p
	return nil
}
