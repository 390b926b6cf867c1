package vsix

import (
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/airvsx/airvsx/index"
)

// Name length limits: most file systems (ext4, APFS, NTFS) cap an element
// at 255 bytes or UTF-16 units, and macOS caps a path at 1024 bytes
// (PATH_MAX); the archive's names must fit under an extensions directory.
const (
	maxElemBytes = 255
	maxNameBytes = 1024
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
	if len(name) > maxNameBytes {
		return RuleNameLength, fmt.Sprintf("name is %d bytes (> %d)", len(name), maxNameBytes)
	}
	for _, r := range name {
		if isControl(r) {
			return RuleControlChar, fmt.Sprintf("name holds control character %U", r)
		}
		if isInvisible(r) {
			return RuleInvisibleChar, fmt.Sprintf("name holds invisible character %U (bidirectional control or zero width)", r)
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
		if len(elem) > maxElemBytes {
			return RuleNameLength, fmt.Sprintf("element %.20q... is %d bytes (> %d)", elem, len(elem), maxElemBytes)
		}
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

// isInvisible reports the bidirectional controls and zero-width
// characters that make a name display as another one (the characters of
// "Trojan Source", CVE-2021-42574): ALM, LRM, RLM, the embeddings and
// overrides U+202A-U+202E, the isolates U+2066-U+2069, ZWSP, ZWNJ, ZWJ,
// WORD JOINER and the BOM.
func isInvisible(r rune) bool {
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f, 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069:
		return true
	case 0x200b <= r && r <= 0x200d, r == 0x2060, r == 0xfeff:
		return true
	}
	return false
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

// fold returns a canonical case-folded and normalized form of s: two names
// that a case-insensitive or normalization-insensitive file system (APFS,
// HFS+, NTFS) may treat as one fold to the same string. s is decomposed
// (NFD); each rune is mapped to lower case through upper case (so dotless
// ı meets i), then to the smallest rune of its unicode.SimpleFold orbit,
// then A-Z become a-z (like strToFold in golang.org/x/mod/zip, which
// checks case only); the result is composed again (NFC).
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
	for _, r := range norm.NFD.String(s) {
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
	return norm.NFC.String(b.String())
}

// printable returns name as reports show it: unchanged when it is valid
// UTF-8 without control, bidirectional or zero-width characters, and
// otherwise escaped like a Go string literal (without the quotes), so a
// report is safe to print on a terminal and shows what the name holds.
func printable(name string) string {
	if utf8.ValidString(name) && strings.IndexFunc(name, func(r rune) bool { return isControl(r) || isInvisible(r) }) < 0 {
		return name
	}
	q := strconv.Quote(name)
	return q[1 : len(q)-1]
}
