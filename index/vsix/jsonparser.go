package vsix

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// jsonParser reads members of a hostile JSON document, recording problems
// instead of failing. Object keys are matched exactly (encoding/json would
// match struct fields case-insensitively; VS Code does not).
type jsonParser struct {
	r    *Report
	file string
	// dirty is set when a problem is recorded; ParseManifest then keeps the
	// member's raw value in Extra.
	dirty bool
}

func (p *jsonParser) report(sev Severity, field string, rule Rule, format string, args ...any) {
	p.dirty = true
	p.r.Add(Problem{File: p.file, Field: field, Rule: rule, Message: fmt.Sprintf(format, args...), Severity: sev})
}

func (p *jsonParser) errorf(field string, rule Rule, format string, args ...any) {
	p.report(Error, field, rule, format, args...)
}

func (p *jsonParser) warnf(field string, rule Rule, format string, args ...any) {
	p.report(Warning, field, rule, format, args...)
}

func (p *jsonParser) wrongType(sev Severity, field, want string, raw json.RawMessage) {
	p.report(sev, field, RuleFieldType, "want %s, got %s", want, jsonKindName(raw))
}

// str returns a string member; any other type is a problem of severity sev.
func (p *jsonParser) str(field string, raw json.RawMessage, sev Severity) string {
	var s string
	if jsonKind(raw) != "string" || json.Unmarshal(raw, &s) != nil {
		p.wrongType(sev, field, "a string", raw)
		return ""
	}
	return s
}

// boolean returns a boolean member; any other type is a problem.
func (p *jsonParser) boolean(field string, raw json.RawMessage, sev Severity) bool {
	var b bool
	if jsonKind(raw) != "boolean" || json.Unmarshal(raw, &b) != nil {
		p.wrongType(sev, field, "a boolean", raw)
		return false
	}
	return b
}

// strList returns an array of strings, leaving out (and reporting) the
// elements that are not strings. An empty array gives nil.
func (p *jsonParser) strList(field string, raw json.RawMessage, sev Severity) []string {
	elems, ok := p.array(field, raw, sev)
	if !ok {
		return nil
	}
	var out []string
	for i, e := range elems {
		var s string
		if jsonKind(e) != "string" || json.Unmarshal(e, &s) != nil {
			p.wrongType(sev, fmt.Sprintf("%s[%d]", field, i), "a string", e)
			continue
		}
		out = append(out, s)
	}
	return out
}

func (p *jsonParser) array(field string, raw json.RawMessage, sev Severity) ([]json.RawMessage, bool) {
	var elems []json.RawMessage
	if jsonKind(raw) != "array" || json.Unmarshal(raw, &elems) != nil {
		p.wrongType(sev, field, "an array", raw)
		return nil, false
	}
	return elems, true
}

func (p *jsonParser) object(field string, raw json.RawMessage, sev Severity) (map[string]json.RawMessage, bool) {
	var obj map[string]json.RawMessage
	if jsonKind(raw) != "object" || json.Unmarshal(raw, &obj) != nil {
		p.wrongType(sev, field, "an object", raw)
		return nil, false
	}
	return obj, true
}

// strOrMember reads a display field that is a string or an object whose
// member key is a string (repository.url, author.name).
func (p *jsonParser) strOrMember(field, key string, raw json.RawMessage) string {
	if jsonKind(raw) == "object" {
		return p.member(field, key, raw)
	}
	if jsonKind(raw) != "string" {
		p.wrongType(displayField, field, "a string or an object", raw)
		return ""
	}
	return p.str(field, raw, displayField)
}

// member reads the string member key of an object (sponsor.url).
func (p *jsonParser) member(field, key string, raw json.RawMessage) string {
	obj, ok := p.object(field, raw, displayField)
	if !ok {
		return ""
	}
	v, ok := obj[key]
	if !ok {
		return ""
	}
	return p.str(field+"."+key, v, displayField)
}

// jsonKind names the JSON type of a raw value from its first byte, "" for
// a missing value. Raw values come from encoding/json, so they are valid.
func jsonKind(raw []byte) string {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

func jsonKindName(raw []byte) string {
	switch k := jsonKind(raw); k {
	case "":
		return "nothing"
	case "object", "array":
		return "an " + k
	default:
		return "a " + k
	}
}

// canonJSON returns raw as json.Marshal writes a json.RawMessage: compact,
// with <, >, & and U+2028/U+2029 escaped. Keeping Extra in this form makes
// parse, encode, parse give identical bytes.
func canonJSON(raw []byte) json.RawMessage {
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return bytes.Clone(raw)
	}
	var out bytes.Buffer
	json.HTMLEscape(&out, compact.Bytes())
	return out.Bytes()
}
