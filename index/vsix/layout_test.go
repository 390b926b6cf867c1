package vsix_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index/vsix"
)

// want is a problem a layout case must report: the entry, the rule, and
// the start of the field.
type want struct {
	File  string
	Rule  vsix.Rule
	Field string
}

// layoutCase is an archive built byte by byte and the problems it must
// report (none for a clean archive).
type layoutCase struct {
	name string
	zip  rawZip
	want []want // nil: accepted
}

// layoutCases returns archives that different zip readers would read
// differently, and clean ones.
func layoutCases() []layoutCase {
	const okJS = "extension/ok.js"
	base := func() rawZip {
		return rawZip{entries: []rawEntry{
			stored("extension/package.json", `{"name":"x"}`),
			stored(okJS, "console.log(1)\n"),
		}}
	}
	with := func(change func(z *rawZip)) rawZip {
		z := base()
		change(&z)
		return z
	}
	entry := func(change func(e *rawEntry)) rawZip { // changes ok.js
		return with(func(z *rawZip) { change(&z.entries[1]) })
	}
	desc := func(sig, zip64 bool, change func(e *rawEntry)) rawZip {
		return entry(func(e *rawEntry) {
			*e = withDescriptor(*e, sig, zip64)
			if change != nil {
				change(e)
			}
		})
	}
	u32 := func(v uint32) *uint32 { return &v }
	return []layoutCase{
		{"clean", base(), nil},
		{"clean-comment", with(func(z *rawZip) { z.comment = []byte("a comment") }), nil},
		{"clean-zip64-end", with(func(z *rawZip) { z.zip64End = true }), nil},
		{"clean-descriptor-signature", desc(true, false, nil), nil},
		{"clean-descriptor-no-signature", desc(false, false, nil), nil},
		{"clean-descriptor-zip64", desc(true, true, nil), nil},
		{"clean-descriptor-zip64-no-signature", desc(false, true, nil), nil},
		{"clean-descriptor-local-values", desc(true, false, func(e *rawEntry) { e.lcrc, e.lcsize, e.lusize = e.crc, e.csize, e.usize }), nil},
		{"clean-deflate", with(func(z *rawZip) { z.entries[1] = deflated(okJS, "console.log(1)\n", nil) }), nil},
		{"clean-deflate-descriptor", with(func(z *rawZip) { z.entries[1] = withDescriptor(deflated(okJS, "console.log(1)\n", nil), true, false) }), nil},
		{"clean-unicode-path", entry(func(e *rawEntry) { e.localExtra = unicodePath(okJS, okJS) }), nil},

		// Local header against central directory.
		{"local-name-traversal", entry(func(e *rawEntry) { e.lname = "../../../../tmp/evil.js" }), []want{{okJS, vsix.RuleLocalHeader, "local header name"}}},
		{"local-name-same-length", entry(func(e *rawEntry) { e.lname = "extension/ok.sh" }), []want{{okJS, vsix.RuleLocalHeader, "local header name"}}},
		{"local-method", entry(func(e *rawEntry) { e.lmethod = 8 }), []want{{okJS, vsix.RuleLocalHeader, "local header method"}}},
		{"local-flags", entry(func(e *rawEntry) { e.lflags = 0x800 }), []want{{okJS, vsix.RuleLocalHeader, "local header flags"}}},
		{"local-crc", entry(func(e *rawEntry) { e.lcrc ^= 1 }), []want{{okJS, vsix.RuleLocalHeader, "local header crc32"}}},
		{"local-compressed-size", entry(func(e *rawEntry) { e.lcsize++ }), []want{{okJS, vsix.RuleLocalHeader, "local header compressed size"}}},
		{"local-uncompressed-size", entry(func(e *rawEntry) { e.lusize = 0 }), []want{{okJS, vsix.RuleLocalHeader, "local header uncompressed size"}}},
		{"local-zero-sizes-without-descriptor", entry(func(e *rawEntry) { e.lcrc, e.lcsize, e.lusize = 0, 0, 0 }), []want{{okJS, vsix.RuleLocalHeader, "local header"}}},
		{"local-values-with-descriptor", desc(true, false, func(e *rawEntry) { e.lcsize = 3 }), []want{{okJS, vsix.RuleLocalHeader, "local header compressed size"}}},
		{"local-unicode-path", entry(func(e *rawEntry) { e.localExtra = unicodePath(okJS, "../../evil.js") }), []want{{okJS, vsix.RuleLocalHeader, "local extra 0x7075"}}},
		{"central-unicode-path", entry(func(e *rawEntry) { e.centralExtra = unicodePath(okJS, "extension/evil.js") }), []want{{okJS, vsix.RuleLocalHeader, "central extra 0x7075"}}},
		{"local-signature", entry(func(e *rawEntry) { e.offset = u32(5) }), []want{{okJS, vsix.RuleNotZip, "local header signature"}}},

		// Data descriptors.
		{"descriptor-crc", desc(true, false, func(e *rawEntry) { e.descriptor[4] ^= 1 }), []want{{okJS, vsix.RuleDataDescriptor, "data descriptor crc32"}}},
		{"descriptor-compressed-size", desc(false, false, func(e *rawEntry) { e.descriptor[4]++ }), []want{{okJS, vsix.RuleDataDescriptor, "data descriptor compressed size"}}},
		{"descriptor-uncompressed-size", desc(true, false, func(e *rawEntry) { e.descriptor[12]++ }), []want{{okJS, vsix.RuleDataDescriptor, "data descriptor uncompressed size"}}},
		{"descriptor-zip64-size", desc(true, true, func(e *rawEntry) { e.descriptor[19] = 1 }), []want{{okJS, vsix.RuleDataDescriptor, "data descriptor uncompressed size"}}},
		{"descriptor-zip64-no-signature-crc", desc(false, true, func(e *rawEntry) { e.descriptor[0] ^= 0x80 }), []want{{okJS, vsix.RuleDataDescriptor, "data descriptor crc32"}}},
		{"descriptor-missing", desc(true, false, func(e *rawEntry) { e.descriptor = nil }), []want{{okJS, vsix.RuleDataDescriptor, "data descriptor"}}},
		{"descriptor-signature-but-short", desc(true, false, func(e *rawEntry) { e.descriptor = e.descriptor[:12] }), []want{{okJS, vsix.RuleDataDescriptor, "data descriptor"}}},
		{"descriptor-then-stray", desc(true, false, func(e *rawEntry) { e.descriptor = append(e.descriptor, "PK\x03\x04junk"...) }), []want{{okJS, vsix.RuleDataDescriptor, "data descriptor"}}},
		{"descriptor-first-entry", with(func(z *rawZip) {
			z.entries[0] = withDescriptor(z.entries[0], true, false)
			z.entries[0].descriptor[8]++
		}), []want{{"extension/package.json", vsix.RuleDataDescriptor, "data descriptor compressed size"}}},

		// A streaming reader looks for the descriptor where the deflate
		// stream ends, and would find this one, then a hidden entry.
		{"deflate-ends-early", with(func(z *rawZip) {
			hidden := rawZip{entries: []rawEntry{stored("extension/hidden.js", "evil()")}}.bytes()
			e := deflated(okJS, "console.log(1)\n", nil)
			e = withDescriptor(deflated(okJS, "console.log(1)\n", append(descriptor(true, false, e.crc, uint64(e.csize), uint64(e.usize)), hidden[:len(hidden)-22]...)), true, false)
			z.entries[1] = e
		}), []want{{okJS, vsix.RuleSizeLie, ""}}},

		// Bytes outside the entries.
		{"prefix", with(func(z *rawZip) { z.prefix = []byte("#!/bin/sh\nexit 0\n") }), []want{{"extension/package.json", vsix.RuleStrayBytes, ""}}},
		{"prefix-unadjusted", with(func(z *rawZip) { z.prefix, z.noAdjust = []byte("MZ self-extractor stub"), true }), []want{{"", vsix.RuleStrayBytes, "end of central directory"}}},
		{"concatenated", with(func(z *rawZip) {
			other := rawZip{entries: []rawEntry{stored("extension/other.js", "evil()")}}
			z.prefix, z.noAdjust = other.bytes(), true
		}), []want{{"", vsix.RuleStrayBytes, "end of central directory"}}},
		{"gap-between-entries", with(func(z *rawZip) { z.entries[0].trailer = []byte("hidden") }), []want{{okJS, vsix.RuleStrayBytes, ""}}},
		{"gap-before-central-directory", with(func(z *rawZip) { z.beforeCD = []byte("PK\x03\x04hidden") }), []want{{"", vsix.RuleStrayBytes, ""}}},
		{"trailing-bytes", with(func(z *rawZip) { z.suffix = []byte("trailing") }), []want{{"", vsix.RuleStrayBytes, "end of central directory comment"}}},
		{"trailing-zip", with(func(z *rawZip) {
			z.suffix = rawZip{entries: []rawEntry{stored("x", "y")}}.bytes()[:30]
		}), []want{{"", vsix.RuleStrayBytes, "end of central directory comment"}}},
		{"overlap", with(func(z *rawZip) {
			z.entries[1].offset = u32(0) // ok.js's record points at package.json's local header
		}), []want{{okJS, vsix.RuleOverlap, ""}}},
		{"compressed-size-past-directory", entry(func(e *rawEntry) { e.csize, e.lcsize = 0xfffffff0, 0xfffffff0 }), []want{{okJS, vsix.RuleSizeLie, "compressed size"}}},
		{"compressed-size-overflows", entry(func(e *rawEntry) {
			e.csize, e.lcsize = 0xffffffff, 0xffffffff
			e.centralExtra = le64(le16(le16(nil, 1), 8), 1<<63+5) // zip64: compressed size
		}), []want{{okJS, vsix.RuleSizeLie, "compressed size"}}},
		{"extra-record-count", with(func(z *rawZip) { z.extraRecs = 1 }), []want{{"", vsix.RuleNotZip, ""}}},

		// Names.
		{"nfc-nfd", with(func(z *rawZip) {
			z.entries = append(z.entries, stored("extension/caf\u00e9.js", "1"), stored("extension/cafe\u0301.js", "2"))
		}), []want{{"extension/cafe\u0301.js", vsix.RuleNormalization, ""}}},
		{"nfd-parent", with(func(z *rawZip) {
			z.entries = append(z.entries, stored("extension/\u00e9/a.js", "1"), stored("extension/e\u0301/b.js", "2"))
		}), []want{{"extension/e\u0301/b.js", vsix.RuleNormalization, ""}}},
		{"nfc-case", with(func(z *rawZip) {
			z.entries = append(z.entries, stored("extension/CAF\u00c9.js", "1"), stored("extension/cafe\u0301.js", "2"))
		}), []want{{"extension/cafe\u0301.js", vsix.RuleCaseFold, ""}}},
		{"element-too-long", with(func(z *rawZip) {
			z.entries = append(z.entries, stored("extension/"+strings.Repeat("a", 256), "1"))
		}), []want{{"extension/" + strings.Repeat("a", 256), vsix.RuleNameLength, ""}}},
		{"name-too-long", with(func(z *rawZip) {
			z.entries = append(z.entries, stored(strings.Repeat("abcdefg/", 128)+"x", "1"))
		}), []want{{strings.Repeat("abcdefg/", 128) + "x", vsix.RuleNameLength, ""}}},
		{"bidi-override", with(func(z *rawZip) {
			z.entries = append(z.entries, stored("extension/\u202esj.exe", "1"))
		}), []want{{`extension/\u202esj.exe`, vsix.RuleInvisibleChar, ""}}},
		{"zero-width", with(func(z *rawZip) {
			z.entries = append(z.entries, stored("extension/package\u200b.json", "1"))
		}), []want{{`extension/package\u200b.json`, vsix.RuleInvisibleChar, ""}}},
		{"control-char", with(func(z *rawZip) {
			z.entries = append(z.entries, stored("extension/a\x1b.js", "1"))
		}), []want{{`extension/a\x1b.js`, vsix.RuleControlChar, ""}}},
	}
}

// TestLayout checks that each layout case is rejected with its rule,
// naming the entry and the field, and that the clean ones pass.
func TestLayout(t *testing.T) {
	seen := map[vsix.Rule]bool{}
	for _, tt := range layoutCases() {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.zip.bytes()
			a, err := newReader(data, vsix.Options{})
			if tt.want == nil {
				if err != nil {
					t.Fatalf("NewReader: %v; want success", err)
				}
				if got, want := len(a.Entries()), len(tt.zip.entries); got != want {
					t.Errorf("%d entries; want %d", got, want)
				}
				for _, e := range tt.zip.entries {
					if got, err := a.ReadFile(e.name); err != nil || string(got) != e.content {
						t.Errorf("ReadFile(%q) = %q, %v; want %q", e.name, got, err, e.content)
					}
				}
				return
			}
			ps := problems(t, a, err)
			for _, w := range tt.want {
				if !slices.ContainsFunc(ps, func(p vsix.Problem) bool {
					return p.File == w.File && p.Rule == w.Rule && strings.HasPrefix(p.Field, w.Field)
				}) {
					t.Errorf("problems:\n%v\nwant one with file %q, rule %s, field %q...", err, w.File, w.Rule, w.Field)
				}
				seen[w.Rule] = true
			}
		})
	}
	for _, r := range []vsix.Rule{
		vsix.RuleLocalHeader, vsix.RuleDataDescriptor, vsix.RuleStrayBytes, vsix.RuleOverlap,
		vsix.RuleNormalization, vsix.RuleNameLength, vsix.RuleInvisibleChar,
	} {
		if !seen[r] && !t.Failed() {
			t.Errorf("no case for rule %s", r)
		}
	}
}

// TestOpenFixtures checks that the vsce-built packages in testdata/vsix
// (written by yazl) pass every archive rule, the layout rules included.
func TestOpenFixtures(t *testing.T) {
	names, err := filepath.Glob("../../testdata/vsix/*.vsix")
	if err != nil || len(names) == 0 {
		t.Skipf("no fixtures: %v", err)
	}
	for _, name := range names {
		a, err := vsix.Open(name, vsix.Options{})
		if err != nil {
			t.Errorf("Open(%s): %v", name, err)
			continue
		}
		a.Close()
	}
}
