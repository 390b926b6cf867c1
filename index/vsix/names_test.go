package vsix

import (
	"path"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/airvsx/airvsx/index"
)

func TestCheckName(t *testing.T) {
	tests := []struct {
		name string
		want Rule
	}{
		{"extension/package.json", ""},
		{"extension.vsixmanifest", ""},
		{"[Content_Types].xml", ""},
		{"extension/node_modules/@scope/pkg/index.js", ""},
		{"extension/ünïcode/日本語.md", ""},
		{"extension/.vscodeignore", ""},
		{"extension/a..b.js", ""},
		{"extension/...x", ""},
		{"extension/console.js", ""},  // "console" is not "con"
		{"extension/com10.js", ""},    // only COM0-9 are devices
		{"extension/a~b.js", ""},      // not digits after the tilde
		{"extension/v1.0~2/x.js", ""}, // the tilde is past the first dot
		{"extension/ x.js", ""},       // a leading space is kept by Windows

		{"", RuleUncleanName},
		{"/abs", RuleUncleanName},
		{"..", RuleUncleanName},
		{"../x", RuleUncleanName},
		{"a/../../x", RuleUncleanName},
		{"a/..", RuleUncleanName},
		{".", RuleUncleanName},
		{"./a", RuleUncleanName},
		{"a//b", RuleUncleanName},
		{"a/", RuleUncleanName}, // callers strip one slash; a second one is empty
		{`a\b`, RuleBackslash},
		{`C:\x`, RuleBackslash},
		{`\\server\share`, RuleBackslash},
		{"a\x00b", RuleControlChar},
		{"a\nb", RuleControlChar},
		{"a\x7fb", RuleControlChar},
		{"a\u0085b", RuleControlChar}, // C1 NEL
		{"\xff\xfe", RuleInvalidUTF8},
		{"a/\xc0\xaf", RuleInvalidUTF8},     // overlong "/"
		{"a/\xed\xa0\x80", RuleInvalidUTF8}, // surrogate
		{"C:x", RuleReservedName},
		{"c:", RuleReservedName},
		{"a.js:stream", RuleReservedName},
		{"a*b", RuleReservedName},
		{"a?b", RuleReservedName},
		{`a"b`, RuleReservedName},
		{"a<b>", RuleReservedName},
		{"a|b", RuleReservedName},
		{"extension/con", RuleReservedName},
		{"extension/CON.js", RuleReservedName},
		{"extension/nul.tar.gz", RuleReservedName},
		{"extension/Aux", RuleReservedName},
		{"extension/aux .js", RuleReservedName},
		{"extension/prn/x.js", RuleReservedName},
		{"com1", RuleReservedName},
		{"LPT9.txt", RuleReservedName},
		{"lpt¹", RuleReservedName},
		{"conin$", RuleReservedName},
		{"extension/aux.", RuleReservedName},
		{"extension/a.", RuleReservedName},
		{"extension/a ", RuleReservedName},
		{"extension/dir./x", RuleReservedName},
		{"extension/PROGRA~1", RuleReservedName},
		{"extension/node_m~12.js", RuleReservedName},
		{"extension/" + strings.Repeat("a", 255), ""},
		{"extension/" + strings.Repeat("a", 256), RuleNameLength},
		{"extension/" + strings.Repeat("é", 128), RuleNameLength}, // 256 bytes
		{strings.Repeat("a/", 507) + "abcd", ""},                  // 1018 bytes
		{strings.Repeat("abcdefg/", 128) + "a", RuleNameLength},   // 1025 bytes
		{"extension/\u202egnp.js", RuleInvisibleChar},             // right-to-left override
		{"extension/a\u2066.js", RuleInvisibleChar},               // left-to-right isolate
		{"extension/a\u200f.js", RuleInvisibleChar},               // right-to-left mark
		{"extension/pack\u200bage.json", RuleInvisibleChar},       // zero-width space
		{"extension/a\u200d.js", RuleInvisibleChar},               // zero-width joiner
		{"extension/a\u2060.js", RuleInvisibleChar},               // word joiner
		{"\ufeffextension/a.js", RuleInvisibleChar},               // byte order mark
	}
	for _, tt := range tests {
		got, detail := checkName(tt.name)
		if got != tt.want {
			t.Errorf("checkName(%q) = %q (%s); want %q", tt.name, got, detail, tt.want)
		}
		if (got == "") != (detail == "") {
			t.Errorf("checkName(%q) = %q, %q: rule and detail must both be set or both empty", tt.name, got, detail)
		}
	}
}

func TestFold(t *testing.T) {
	same := [][2]string{
		{"a", "A"},
		{"Extension/Package.JSON", "extension/package.json"},
		{"k", "\u212a"},             // Kelvin sign
		{"s", "\u017f"},             // long s
		{"ß", "ẞ"},                  // sharp s, capital sharp s
		{"ı", "I"},                  // dotless i
		{"Σ", "ς"},                  // final sigma
		{"ǅ", "ǆ"},                  // title case digraph
		{"å", "\u212b"},             // Angstrom sign
		{"straße", "STRAẞE"},        // mixed
		{"caf\u00e9", "cafe\u0301"}, // NFC, NFD
		{"CAF\u00c9", "cafe\u0301"}, // NFC upper case, NFD lower case
		{"\u212b", "A\u030a"},       // Angstrom sign, A + ring
	}
	for _, p := range same {
		if fold(p[0]) != fold(p[1]) {
			t.Errorf("fold(%q) = %q, fold(%q) = %q; want equal", p[0], fold(p[0]), p[1], fold(p[1]))
		}
	}
	differ := [][2]string{
		{"a", "b"},
		{"ss", "ß"}, // full case folding would merge these; file systems do not
		{"a.js", "a.js "},
	}
	for _, p := range differ {
		if fold(p[0]) == fold(p[1]) {
			t.Errorf("fold(%q) = fold(%q) = %q; want different", p[0], p[1], fold(p[0]))
		}
	}
	if s := "already/lower-case.js"; fold(s) != s {
		t.Errorf("fold(%q) = %q; want it unchanged", s, fold(s))
	}
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"extension/a.js":         "extension/a.js",
		"extension/日本.js":        "extension/日本.js",
		"a\x1b[31mb":             `a\x1b[31mb`,
		"\xff\xfe":               `\xff\xfe`,
		"a\u0085":                `a\u0085`,
		"a\"b":                   "a\"b",
		"extension/\u202egnp.js": `extension/\u202egnp.js`, // bidi controls are escaped
		"a\u200bb":               `a\u200bb`,
	} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q; want %q", in, got, want)
		}
	}
}

// FuzzCheckName checks that every accepted name is safe to create on every
// operating system: clean, local, no backslash or control character, valid
// UTF-8, no Windows device name or stripped trailing character, and
// folding is stable.
func FuzzCheckName(f *testing.F) {
	for _, s := range []string{
		"extension/package.json", "../x", "C:\\x", "a/./b", "con.txt", "aux.", "a\x00",
		"\xff", "PROGRA~1", "K", "\u212a", "a//b", "/abs", "extension/ünï.js",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		rule, detail := checkName(name)
		if rule != "" {
			if detail == "" {
				t.Errorf("checkName(%q) = %q without detail", name, rule)
			}
			return
		}
		switch {
		case name == "", path.Clean(name) != name, !filepath.IsLocal(name), path.IsAbs(name):
			t.Fatalf("checkName accepted unclean %q", name)
		case strings.ContainsAny(name, "\\:*?\"<>|"):
			t.Fatalf("checkName accepted %q with a character Windows reserves", name)
		case !utf8.ValidString(name), strings.ContainsFunc(name, isControl):
			t.Fatalf("checkName accepted %q with a control character or invalid UTF-8", name)
		}
		for _, elem := range strings.Split(name, "/") {
			if elem == "" || elem == "." || elem == ".." || strings.HasSuffix(elem, ".") || strings.HasSuffix(elem, " ") {
				t.Fatalf("checkName accepted %q with element %q", name, elem)
			}
			if index.WindowsReserved(elem) {
				t.Fatalf("checkName accepted %q with device name %q", name, elem)
			}
		}
		if printable(name) != name {
			t.Fatalf("printable changes accepted name %q", name)
		}
		f := fold(name)
		if fold(f) != f {
			t.Fatalf("fold(%q) = %q, but fold(%q) = %q", name, f, f, fold(f))
		}
		if up, low := fold(strings.ToUpper(name)), fold(strings.ToLower(name)); up != f || low != f {
			t.Fatalf("fold(%q) = %q; fold of upper case = %q, of lower case = %q", name, f, up, low)
		}
	})
}
