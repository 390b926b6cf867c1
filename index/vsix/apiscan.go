package vsix

import (
	"bytes"
	"regexp"
	"strings"
)

// Limits of API member detection.
const (
	// MaxAPIMembers caps how many distinct names Package.APIMembers
	// holds; further names are not recorded.
	MaxAPIMembers = 4096
	// maxAPIName caps one recorded identifier, in bytes.
	maxAPIName = 64
	// maxTemplateDepth caps the nesting of ${ } in template literals the
	// scanner follows; deeper, the rest of the template is skipped as text.
	maxTemplateDepth = 32
)

// apiAliases matches the names compilers and bundlers give the module
// that require("vscode") returns: vscode itself, tsc's vscode_1, esbuild's
// import_vscode and import_vscode2, webpack's
// vscode__WEBPACK_IMPORTED_MODULE_0__.
var apiAliases = regexp.MustCompile(`^(?:vscode|vscode_[0-9]+|import_vscode[0-9]*|vscode__WEBPACK_IMPORTED_MODULE_[0-9]+__)$`)

// apiScanner collects the names of module vscode that JavaScript source
// reads (see scan).
type apiScanner struct {
	names map[string]bool
	full  bool // MaxAPIMembers reached
}

func (s *apiScanner) add(name string) {
	if s.names == nil {
		s.names = make(map[string]bool)
	}
	if s.names[name] {
		return
	}
	if len(s.names) >= MaxAPIMembers {
		s.full = true
		return
	}
	s.names[name] = true
}

// scan records the members of module vscode that src names:
//
//   - A.Top and A.Top.member (also with ?.), where A is vscode, vscode_N,
//     import_vscode, import_vscodeN or vscode__WEBPACK_IMPORTED_MODULE_N__,
//     or a name of three or more characters the source binds with
//     X = require("vscode"), X = f(require("vscode")) or
//     import * as X from "vscode";
//   - require("vscode").Top and require("vscode").Top.member;
//   - const { Top, Other: alias } = require("vscode") and
//     import { Top } from "vscode" (Top only).
//
// as "Top" or "Top.member". It skips comments, strings, template text and
// regular expression literals, crudely (a regular expression is told from
// a division by the token before it): a misjudged literal can hide names
// or show some that are not there, never more than the source holds. It is
// linear in the source. Minifiers rename the aliases to one or two
// letters, which are not followed, so a minified bundle shows only what
// it reads through require("vscode") directly.
func (s *apiScanner) scan(src []byte) {
	aliases := bindings(src)
	var stack []int // brace depth of each open ${ } in a template
	depth := 0
	prev := byte(';') // the last significant character, for regex literals
	prevWord := ""
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			if j := bytes.Index(src[i+2:], []byte("*/")); j >= 0 {
				i += j + 4
			} else {
				i = len(src)
			}
			continue
		case c == '\'' || c == '"':
			i = skipString(src, i)
		case c == '`' || c == '}' && len(stack) > 0 && stack[len(stack)-1] == depth:
			if c == '}' {
				stack = stack[:len(stack)-1]
			}
			// Template text up to its end or the next ${.
			j := i + 1
			for j < len(src) && src[j] != '`' {
				if src[j] == '\\' {
					j += 2
					continue
				}
				if src[j] == '$' && j+1 < len(src) && src[j+1] == '{' && len(stack) < maxTemplateDepth {
					stack = append(stack, depth)
					j++
					break
				}
				j++
			}
			i = min(j+1, len(src))
		case c == '/' && regexAllowed(prev, prevWord):
			i = skipRegex(src, i)
		case isIdentStart(c):
			j := identEnd(src, i)
			word := string(src[i:j])
			if prev != '.' {
				if apiAliases.MatchString(word) || aliases[word] {
					s.members(src, j)
				} else if strings.HasSuffix(word, "require") {
					s.required(src, i, j)
				} else if word == "from" {
					s.imported(src, i, j)
				}
			}
			prev, prevWord, i = 'a', word, j
			continue
		default:
			switch c {
			case '{':
				depth++
			case '}':
				depth--
			}
			i++
		}
		prev, prevWord = c, ""
	}
}

// members records what follows a reference to the module at src[i:]:
// .Top and .Top.member.
func (s *apiScanner) members(src []byte, i int) {
	top, j := member(src, i)
	if top == "" {
		return
	}
	if m, _ := member(src, j); m != "" {
		s.add(top + "." + m)
		return
	}
	s.add(top)
}

// required handles require at src[start:end]: require("vscode") followed
// by members, or assigned to a destructuring pattern.
func (s *apiScanner) required(src []byte, start, end int) {
	j := skipSpace(src, end)
	if j >= len(src) || src[j] != '(' {
		return
	}
	j, ok := vscodeSpecifier(src, skipSpace(src, j+1))
	if !ok {
		return
	}
	j = skipSpace(src, j)
	if j >= len(src) || src[j] != ')' {
		return
	}
	s.members(src, j+1)
	k := backSpace(src, start)
	if k > 0 && src[k-1] == '=' && (k < 2 || !strings.ContainsRune("=!<>", rune(src[k-2]))) {
		s.pattern(src, backSpace(src, k-1))
	}
}

// imported handles from at src[start:end]: import { ... } from "vscode".
func (s *apiScanner) imported(src []byte, start, end int) {
	if _, ok := vscodeSpecifier(src, skipSpace(src, end)); ok {
		s.pattern(src, backSpace(src, start))
	}
}

// pattern records the names of a { a, b: c, d = 1 } pattern or import
// list that ends just before src[end].
func (s *apiScanner) pattern(src []byte, end int) {
	if end < 1 || src[end-1] != '}' {
		return
	}
	open := bytes.LastIndexByte(src[max(0, end-1-1024):end-1], '{')
	if open < 0 {
		return
	}
	open += max(0, end-1-1024)
	body := src[open+1 : end-1]
	if bytes.ContainsAny(body, "{}()") {
		return
	}
	for _, item := range bytes.Split(body, []byte(",")) {
		item = bytes.TrimSpace(item)
		if k := bytes.IndexAny(item, ":= \t\r\n"); k >= 0 {
			item = item[:k]
		}
		if n := string(item); isIdent(n) {
			s.add(n)
		}
	}
}

// bindings returns the names (of three or more characters) the source
// binds to the module: X = require("vscode"), X = f(require("vscode")),
// import * as X from "vscode".
func bindings(src []byte) map[string]bool {
	out := make(map[string]bool)
	for _, q := range []string{`"vscode"`, `'vscode'`} {
		for i := 0; ; {
			j := bytes.Index(src[i:], []byte(q))
			if j < 0 {
				break
			}
			at := i + j
			i = at + len(q)
			k := backSpace(src, at)
			var name string
			switch {
			case k > 0 && src[k-1] == '(':
				k = backSpace(src, k-1)
				w := identBefore(src, k)
				if !strings.HasSuffix(w, "require") {
					break
				}
				k = backSpace(src, k-len(w))
				if k > 0 && src[k-1] == '(' { // f(require("vscode"))
					k = backSpace(src, k-1)
					k = backSpace(src, k-len(identBefore(src, k)))
				}
				if k > 0 && src[k-1] == '=' && (k < 2 || !strings.ContainsRune("=!<>", rune(src[k-2]))) {
					k = backSpace(src, k-1)
					name = identBefore(src, k)
				}
			case k >= 4 && string(src[k-4:k]) == "from":
				k = backSpace(src, k-4)
				w := identBefore(src, k)
				if backSpace(src, k-len(w)) >= 2 && string(src[backSpace(src, k-len(w))-2:backSpace(src, k-len(w))]) == "as" {
					name = w
				}
			}
			if len(name) >= 3 && name != "require" {
				out[name] = true
			}
		}
	}
	return out
}

// member reads .name or ?.name at src[i:] (spaces allowed around the
// dot) and returns name ("" when there is none, or it is too long) and
// the index after it.
func member(src []byte, i int) (string, int) {
	i = skipSpace(src, i)
	switch {
	case i+1 < len(src) && src[i] == '?' && src[i+1] == '.':
		i += 2
	case i < len(src) && src[i] == '.':
		i++
	default:
		return "", i
	}
	i = skipSpace(src, i)
	if i >= len(src) || !isIdentStart(src[i]) {
		return "", i
	}
	j := identEnd(src, i)
	if j-i > maxAPIName {
		return "", j
	}
	return string(src[i:j]), j
}

// vscodeSpecifier reads "vscode" or 'vscode' at src[i:] and returns the
// index after it.
func vscodeSpecifier(src []byte, i int) (int, bool) {
	if i+8 <= len(src) && (src[i] == '"' || src[i] == '\'') && src[i+7] == src[i] && string(src[i+1:i+7]) == "vscode" {
		return i + 8, true
	}
	return i, false
}

func skipString(src []byte, i int) int {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case q, '\n':
			return j + 1
		}
	}
	return len(src)
}

// skipRegex skips a regular expression literal starting at src[i] ('/'):
// to the unescaped / outside a class, or the end of the line.
func skipRegex(src []byte, i int) int {
	class := false
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '[':
			class = true
		case ']':
			class = false
		case '/':
			if !class {
				return j + 1
			}
		case '\n':
			return j
		}
	}
	return len(src)
}

// regexAllowed reports whether a / after the token prev (the last
// significant character; 'a' after a word, which is prevWord) starts a
// regular expression rather than a division.
func regexAllowed(prev byte, prevWord string) bool {
	if prev == 'a' {
		switch prevWord {
		case "return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "instanceof", "yield", "await":
			return true
		}
		return false
	}
	return !strings.ContainsRune(")]}\"'`", rune(prev))
}

func skipSpace(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	return i
}

// backSpace returns the index after the last non-space byte before i.
func backSpace(src []byte, i int) int {
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t' || src[i-1] == '\n' || src[i-1] == '\r') {
		i--
	}
	return i
}

// identBefore returns the identifier ending just before src[i].
func identBefore(src []byte, i int) string {
	j := i
	for j > 0 && i-j < maxAPIName && isIdentByte(src[j-1]) {
		j--
	}
	if j == i || !isIdentStart(src[j]) {
		return ""
	}
	return string(src[j:i])
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentByte(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func identEnd(src []byte, i int) int {
	for i < len(src) && isIdentByte(src[i]) {
		i++
	}
	return i
}

// isIdent reports whether s is an ASCII identifier of at most maxAPIName
// bytes.
func isIdent(s string) bool {
	if s == "" || len(s) > maxAPIName || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return true
}
