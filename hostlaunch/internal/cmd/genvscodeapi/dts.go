package main

import (
	"fmt"
	"maps"
	"slices"
)

// Kinds of top-level names in api.json.
const (
	kindNamespace = "namespace"
	kindClass     = "class"
	kindEnum      = "enum"
	kindFunction  = "function"
	kindVariable  = "variable"
)

// apiNames is the content of hostlaunch/vscodeapi/api.json: the runtime
// names of module 'vscode' (no interface or type alias: those do not
// exist at run time) and the members of its namespaces.
type apiNames struct {
	Version string              `json:"version"`
	Names   map[string]string   `json:"names"`
	Members map[string][]string `json:"members"`
}

// parseDTS reads the names out of @types/vscode's index.d.ts: the
// declarations directly inside declare module 'vscode' { ... } (in an
// ambient module every declaration is exported, with or without the
// keyword), and the functions, variables, namespaces, classes and enums
// directly inside each of its namespaces. It knows just enough
// TypeScript for a declaration file: comments, strings and braces.
func parseDTS(src []byte) (*apiNames, error) {
	toks := tokenize(src)
	out := &apiNames{Names: make(map[string]string), Members: make(map[string][]string)}
	members := make(map[string]map[string]bool)
	depth := 0
	module := -1  // depth inside declare module 'vscode', -1 outside
	var ns string // namespace being read, at depth module+1
	var pendingNS string
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t {
		case "{":
			depth++
			if pendingNS != "" {
				ns, pendingNS = pendingNS, ""
			}
			continue
		case "}":
			depth--
			if module >= 0 && depth < module {
				module = -1
			}
			if ns != "" && depth == module {
				ns = ""
			}
			continue
		}
		if module < 0 {
			if t == "declare" && i+2 < len(toks) && toks[i+1] == "module" && (toks[i+2] == "'vscode'" || toks[i+2] == `"vscode"`) {
				module = depth + 1
				i += 2
			}
			continue
		}
		atStart := i == 0 || toks[i-1] == ";" || toks[i-1] == "{" || toks[i-1] == "}"
		if !atStart {
			continue
		}
		j := i
		for j < len(toks) && (toks[j] == "export" || toks[j] == "declare") {
			j++
		}
		if j+1 >= len(toks) || !isIdent(toks[j+1]) {
			continue
		}
		kind := declKind(toks[j])
		if kind == "" {
			continue
		}
		name := toks[j+1]
		switch {
		case depth == module:
			if prev, ok := out.Names[name]; ok && prev != kind {
				return nil, fmt.Errorf("%s is declared as both %s and %s", name, prev, kind)
			}
			out.Names[name] = kind
			if kind == kindNamespace {
				pendingNS = name
				if members[name] == nil {
					members[name] = make(map[string]bool)
				}
			}
		case ns != "" && depth == module+1:
			members[ns][name] = true
		}
		i = j + 1
	}
	if len(out.Names) == 0 {
		return nil, fmt.Errorf("no declare module 'vscode' with declarations found")
	}
	for n, m := range members {
		out.Members[n] = slices.Sorted(maps.Keys(m))
	}
	return out, nil
}

// declKind maps a declaration keyword to its kind in api.json, "" for a
// declaration that has no run-time value (interface, type).
func declKind(kw string) string {
	switch kw {
	case "namespace", "module":
		return kindNamespace
	case "class":
		return kindClass
	case "enum":
		return kindEnum
	case "function":
		return kindFunction
	case "const", "let", "var":
		return kindVariable
	}
	return ""
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// tokenize splits a declaration file into identifiers, strings (with their
// quotes) and single punctuation characters, dropping comments and white
// space.
func tokenize(src []byte) []string {
	var toks []string
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			i += 2
			for i+1 < len(src) && !(src[i] == '*' && src[i+1] == '/') {
				i++
			}
			i += 2
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(src))
			toks = append(toks, string(src[i:j]))
			i = j
		case c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			j := i
			for j < len(src) && (src[j] == '_' || src[j] == '$' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			toks = append(toks, string(src[i:j]))
			i = j
		default:
			toks = append(toks, string(src[i:i+1]))
			i++
		}
	}
	return toks
}
