// Package control reads extension control lists, the "kill list" VS Code
// fetches from its gallery's controlUrl and Open VSX keeps in
// open-vsx/publish-extensions (extension-control/extensions.json): the
// extensions found malicious and those deprecated, with their
// replacements.
//
// Parse checks a list strictly against that file's schema (one JSON
// object, no unknown field, no duplicate key, malicious required) and
// never half-reads one. A Set merges the lists of several origins (the
// upstream's, an admin's own), each entry keeping its origin, and answers
// Verdict for an extension as VS Code does: IDs compared ignoring case, a
// bare publisher in malicious covering all of its extensions, a
// deprecation of false ignored.
package control

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/airvsx/airvsx/index"
)

// MaxBytes is the largest list Parse reads (Open VSX's is about 100 KB).
const MaxBytes = index.MaxControlBytes

// ErrMalformed is wrapped by every error of Parse.
var ErrMalformed = errors.New("malformed extension control list")

// identifier is VS Code's EXTENSION_IDENTIFIER_REGEX: what in malicious
// names one extension; anything else there names a publisher.
var identifier = regexp.MustCompile(`^([a-z0-9A-Z][a-z0-9-A-Z]*)\.([a-z0-9A-Z][a-z0-9-A-Z]*)$`)

// List is one control list as its file says it.
type List struct {
	// Malicious lists extension IDs ("publisher.name") and bare
	// publishers, as given.
	Malicious []string `json:"malicious"`
	// LearnMoreLinks maps an entry of Malicious to a page about it
	// (Microsoft's list; VS Code reads it).
	LearnMoreLinks map[string]string `json:"learnMoreLinks,omitempty"`
	// MigrateToPreRelease maps an ID to the extension that replaces it in
	// pre-release.
	MigrateToPreRelease map[string]Migration `json:"migrateToPreRelease,omitempty"`
	// Deprecated maps an ID to its deprecation: true, or the details.
	Deprecated map[string]DeprecationValue `json:"deprecated,omitempty"`
	// Search and ExtensionsEnabledWithPreRelease are kept as read; airvsx
	// does not act on them.
	Search                          []Search `json:"search,omitempty"`
	ExtensionsEnabledWithPreRelease []string `json:"extensionsEnabledWithPreRelease,omitempty"`
}

// Migration is an entry of migrateToPreRelease.
type Migration struct {
	ID             string `json:"id"`
	DisplayName    string `json:"displayName"`
	MigrateStorage *bool  `json:"migrateStorage,omitempty"`
	Engine         string `json:"engine,omitempty"`
}

// Search is an entry of search.
type Search struct {
	Query            string   `json:"query,omitempty"`
	PreferredResults []string `json:"preferredResults,omitempty"`
}

// DeprecationValue is a value of deprecated: a boolean or an object.
type DeprecationValue struct {
	// Set is the boolean form's value, true for the object form.
	Set bool
	// Info is the object form's details; nil for the boolean form.
	Info *Deprecation
}

// Deprecation says why and how an extension is deprecated.
type Deprecation struct {
	// DisallowInstall asks that it not be installed any more.
	DisallowInstall bool `json:"disallowInstall,omitempty"`
	// Extension is the extension that replaces it, when there is one.
	Extension *Replacement `json:"extension,omitempty"`
	// Settings are the settings that replace it.
	Settings []string `json:"settings,omitempty"`
	// AdditionalInfo is free text.
	AdditionalInfo string `json:"additionalInfo,omitempty"`
}

// Replacement is the extension a deprecated one points to.
type Replacement struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
}

// UnmarshalJSON reads true, false or a Deprecation object (strictly).
func (d *DeprecationValue) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch string(b) {
	case "true", "false":
		*d = DeprecationValue{Set: string(b) == "true"}
		return nil
	}
	if len(b) == 0 || b[0] != '{' {
		return errors.New("want true, false or an object")
	}
	var info Deprecation
	if err := strictUnmarshal(b, &info); err != nil {
		return err
	}
	if info.Extension != nil && (info.Extension.ID == "" || info.Extension.DisplayName == "") {
		return errors.New("extension: id and displayName are required")
	}
	*d = DeprecationValue{Set: true, Info: &info}
	return nil
}

// MarshalJSON writes the value back in the form it was read.
func (d DeprecationValue) MarshalJSON() ([]byte, error) {
	if d.Info != nil {
		return json.Marshal(d.Info)
	}
	return json.Marshal(d.Set)
}

// Parse reads a control list, which must be at most MaxBytes and
// conform to the schema of Open VSX's extension-control/extensions.json
// (plus Microsoft's learnMoreLinks): an object with malicious (required),
// deprecated, migrateToPreRelease, search and
// extensionsEnabledWithPreRelease, no other field at any level, no
// duplicate key, nothing after it. Every error wraps ErrMalformed and says
// what is wrong where.
func Parse(data []byte) (*List, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("%w: %d bytes, more than the %d accepted", ErrMalformed, len(data), MaxBytes)
	}
	if err := checkKeys(data); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	var raw struct {
		List
		Malicious *[]string `json:"malicious"`
	}
	if err := strictUnmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if raw.Malicious == nil {
		return nil, fmt.Errorf("%w: malicious is required (an array of extension IDs and publishers)", ErrMalformed)
	}
	l := raw.List
	l.Malicious = *raw.Malicious
	for i, m := range l.Malicious {
		if strings.TrimSpace(m) == "" {
			return nil, fmt.Errorf("%w: malicious[%d] is empty", ErrMalformed, i)
		}
	}
	folded := map[string]bool{}
	for id := range l.Deprecated {
		if id == "" {
			return nil, fmt.Errorf("%w: deprecated has an empty key", ErrMalformed)
		}
		if k := strings.ToLower(id); folded[k] {
			return nil, fmt.Errorf("%w: deprecated lists %q twice (IDs ignore case)", ErrMalformed, id)
		} else {
			folded[k] = true
		}
	}
	for id, m := range l.MigrateToPreRelease {
		if m.ID == "" || m.DisplayName == "" {
			return nil, fmt.Errorf("%w: migrateToPreRelease[%q]: id and displayName are required", ErrMalformed, id)
		}
	}
	return &l, nil
}

// strictUnmarshal decodes exactly one JSON value with no unknown field.
func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("data after the list")
	}
	return nil
}

// The kinds of JSON values checkKeys tells apart: the objects whose keys
// are field names (exact, as a JavaScript reader sees them), and the
// containers of those.
const (
	kindAny = iota
	kindTop
	kindMigrations // migrateToPreRelease: ID -> kindMigration
	kindMigration
	kindDeprecations // deprecated: ID -> true, false or kindDeprecation
	kindDeprecation
	kindReplacement // a deprecation's extension
	kindSearches    // search: [kindSearch]
	kindSearch
)

// fields are the exact field names of each object kind.
var fields = map[int][]string{
	kindTop:         {"malicious", "learnMoreLinks", "migrateToPreRelease", "deprecated", "search", "extensionsEnabledWithPreRelease"},
	kindMigration:   {"id", "displayName", "migrateStorage", "engine"},
	kindDeprecation: {"disallowInstall", "extension", "settings", "additionalInfo"},
	kindReplacement: {"id", "displayName"},
	kindSearch:      {"query", "preferredResults"},
}

// child is the kind of the value of key in an object of kind k.
func child(k int, key string) int {
	switch {
	case k == kindTop && key == "migrateToPreRelease":
		return kindMigrations
	case k == kindTop && key == "deprecated":
		return kindDeprecations
	case k == kindTop && key == "search":
		return kindSearches
	case k == kindMigrations:
		return kindMigration
	case k == kindDeprecations:
		return kindDeprecation
	case k == kindDeprecation && key == "extension":
		return kindReplacement
	}
	return kindAny
}

// checkKeys refuses an object with a key twice at any level (two readers
// would take different values from it) and, in the objects whose keys
// are field names, a key that is not one exactly: encoding/json matches
// field names ignoring case, which VS Code's JavaScript does not, so
// "Malicious" would mean something here and nothing there.
func checkKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		object bool
		kind   int // of this object, or of this array's elements
		keys   map[string]bool
		key    bool // the next string token is a key
		next   int  // the kind of the value of the key just read
	}
	stack := []*frame{{kind: kindTop}} // the document: one value of kind top
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		top := stack[len(stack)-1]
		if k, isKey := tok.(string); isKey && top.object && top.key {
			if top.keys[k] {
				return fmt.Errorf("key %q twice in one object", k)
			}
			if names, ok := fields[top.kind]; ok && !slices.Contains(names, k) {
				return fmt.Errorf("unknown field %q (field names are exact: one of %s)", k, strings.Join(names, ", "))
			}
			top.keys[k] = true
			top.key, top.next = false, child(top.kind, k)
			continue
		}
		kind := top.kind // an array's elements, or the document
		if top.object {
			kind = top.next
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, kind: kind, keys: map[string]bool{}, key: true})
			continue
		case json.Delim('['):
			elems := kindAny
			if kind == kindSearches {
				elems = kindSearch
			}
			stack = append(stack, &frame{kind: elems})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if t := stack[len(stack)-1]; t.object {
			t.key = true
		}
	}
}
