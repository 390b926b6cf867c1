package vsix

import (
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/airvsx/airvsx/index"
)

// checkName returns the first rule that an entry name breaks, and why, or
// "" if the name is safe to create on Linux, macOS and Windows. name is the
// entry name without the trailing slash of a directory.
func checkName(name string) (Rule, string) {
	if name == "" {
		return RuleUncleanName, "empty name"
	}
	if !utf8.ValidString(name) {
		return RuleInvalidUTF8, "name is not valid UTF-8"
	}
	for _, r := range name {
		if isControl(r) {
			return RuleControlChar, fmt.Sprintf("name holds control character %U", r)
		}
	}
	if strings.Contains(name, `\`) {
		return RuleBackslash, "name holds a backslash"
	}
	if i := strings.IndexAny(name, `:<>"|?*`); i >= 0 {
		return RuleReservedName, fmt.Sprintf("name holds %q, reserved on Windows (drive letters, alternate data streams, wildcards)", name[i])
	}
	if strings.HasPrefix(name, "/") {
		return RuleUncleanName, "absolute path"
	}
	for elem := range strings.SplitSeq(name, "/") {
		switch elem {
		case "":
			return RuleUncleanName, "empty path element"
		case ".", "..":
			return RuleUncleanName, fmt.Sprintf("%q path element", elem)
		}
	}
	if path.Clean(name) != name || !filepath.IsLocal(name) {
		return RuleUncleanName, "name is not clean and local"
	}
	for elem := range strings.SplitSeq(name, "/") {
		if detail := checkWindowsElem(elem); detail != "" {
			return RuleReservedName, detail
		}
	}
	return "", ""
}

// isControl reports C0 and C1 control characters and DEL.
func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f || 0x80 <= r && r <= 0x9f
}

// checkWindowsElem returns why Windows cannot create elem as given, or "".
func checkWindowsElem(elem string) string {
	if strings.HasSuffix(elem, ".") || strings.HasSuffix(elem, " ") {
		return fmt.Sprintf("element %q ends in %q, which Windows strips", elem, elem[len(elem)-1:])
	}
	if index.WindowsReserved(elem) {
		return fmt.Sprintf("element %q is a Windows device name", elem)
	}
	short, _, _ := strings.Cut(elem, ".")
	short = strings.TrimRight(short, " ")
	if i := strings.LastIndexByte(short, '~'); i >= 0 && i < len(short)-1 && allDigits(short[i+1:]) {
		return fmt.Sprintf("element %q looks like a Windows 8.3 short name", elem)
	}
	return ""
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// fold returns a canonical case-folded form of s: two names that a
// case-insensitive file system may treat as one fold to the same string.
// Each rune is mapped to lower case through upper case (so dotless ı
// meets i), then to the smallest rune of its unicode.SimpleFold orbit,
// then A-Z become a-z (like strToFold in golang.org/x/mod/zip).
func fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		r = unicode.ToLower(unicode.ToUpper(r))
		for {
			r0 := r
			r = unicode.SimpleFold(r0)
			if r <= r0 {
				break
			}
		}
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// printable returns name as reports show it: unchanged when it is valid
// UTF-8 without control characters, and otherwise escaped like a Go string
// literal (without the quotes), so a report is safe to print on a terminal.
func printable(name string) string {
	if utf8.ValidString(name) && strings.IndexFunc(name, isControl) < 0 {
		return name
	}
	q := strconv.Quote(name)
	return q[1 : len(q)-1]
}
