package vsixtest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"

	"github.com/airvsx/airvsx/index/vsix"
)

// Case is a hostile archive: the sample extension plus entries that break
// one archive rule.
type Case struct {
	Name string
	// Entry is the entry that the report must name with Rule, as the
	// report prints it (names that are not valid UTF-8 or hold control
	// characters are escaped like a Go string literal); "" for a problem
	// of the whole archive.
	Entry string
	Rule  vsix.Rule
	Build func(w io.Writer) error
}

// Hostile returns every hostile case, each with a fresh Build func. Each
// breaks its Rule under the default vsix.Options. Together they take a few
// hundred milliseconds and a few megabytes to build; the largest are
// "70000-entries" (about 9 MB) and "total-size" (about 3 MB).
func Hostile() []Case {
	return []Case{
		// Names.
		{"traversal", "../x", vsix.RuleUncleanName, hostile(file("../x", "x"))},
		{"traversal-inner", "extension/../../x", vsix.RuleUncleanName, hostile(file("extension/../../x", "x"))},
		{"absolute", "/abs", vsix.RuleUncleanName, hostile(file("/abs", "x"))},
		{"dot-element", "extension/./a.js", vsix.RuleUncleanName, hostile(file("extension/./a.js", "x"))},
		{"empty-element", "extension//a.js", vsix.RuleUncleanName, hostile(file("extension//a.js", "x"))},
		{"drive-backslash", `C:\x`, vsix.RuleBackslash, hostile(file(`C:\x`, "x"))},
		{"backslash-traversal", `extension\..\..\x`, vsix.RuleBackslash, hostile(file(`extension\..\..\x`, "x"))},
		{"drive-relative", "C:x", vsix.RuleReservedName, hostile(file("C:x", "x"))},
		{"alternate-data-stream", "extension/a.js:evil", vsix.RuleReservedName, hostile(file("extension/a.js:evil", "x"))},
		{"reserved-name", "extension/con.js", vsix.RuleReservedName, hostile(file("extension/con.js", "x"))},
		{"reserved-name-dir", "extension/LPT1/a.js", vsix.RuleReservedName, hostile(file("extension/LPT1/a.js", "x"))},
		{"reserved-trailing-dot", "extension/aux.", vsix.RuleReservedName, hostile(file("extension/aux.", "x"))},
		{"trailing-space", "extension/a.js ", vsix.RuleReservedName, hostile(file("extension/a.js ", "x"))},
		{"short-name", "extension/PROGRA~1.js", vsix.RuleReservedName, hostile(file("extension/PROGRA~1.js", "x"))},
		{"control-char", `extension/a\x1b[31m.js`, vsix.RuleControlChar, hostile(file("extension/a\x1b[31m.js", "x"))},
		{"nul-char", `extension/a\x00.js`, vsix.RuleControlChar, hostile(file("extension/a\x00.js", "x"))},
		{"invalid-utf8", `extension/\xff\xfe.js`, vsix.RuleInvalidUTF8, hostile(file("extension/\xff\xfe.js", "x"))},

		// Collisions.
		{"duplicate", "extension/dup.js", vsix.RuleDuplicate, hostile(file("extension/dup.js", "1"), file("extension/dup.js", "2"))},
		{"duplicate-dir", "extension/d/", vsix.RuleDuplicate, hostile(file("extension/d/", ""), file("extension/d/", ""))},
		{"case-fold", "extension/a.js", vsix.RuleCaseFold, hostile(file("extension/A.js", "1"), file("extension/a.js", "2"))},
		{"case-fold-kelvin", "extension/\u212a.js", vsix.RuleCaseFold, hostile(file("extension/k.js", "1"), file("extension/\u212a.js", "2"))},
		{"case-fold-parent", "extension/Lib/b.js", vsix.RuleCaseFold, hostile(file("extension/lib/a.js", "1"), file("extension/Lib/b.js", "2"))},
		{"file-is-dir", "extension/x/y", vsix.RuleFileIsDir, hostile(file("extension/x", "1"), file("extension/x/y", "2"))},
		{"dir-is-file", "extension/x", vsix.RuleFileIsDir, hostile(file("extension/x/y", "1"), file("extension/x", "2"))},
		{"dir-with-data", "extension/d/", vsix.RuleFileIsDir, hostile(raw(zip.FileHeader{Name: "extension/d/", Method: zip.Store, CompressedSize64: 5, UncompressedSize64: 5}, nil))},

		// Entry types.
		{"symlink", "extension/link.js", vsix.RuleNotRegular, hostile(withMode("extension/link.js", fs.ModeSymlink|0o777, "../../../../etc/passwd"))},
		{"symlink-dos-creator", "extension/link.js", vsix.RuleNotRegular, hostile(withAttrs("extension/link.js", 0, (0xa000|0o777)<<16, "/etc/passwd"))},
		{"symlink-dir", "extension/link/", vsix.RuleNotRegular, hostile(withAttrs("extension/link/", 3<<8, (0xa000|0o777)<<16|0x10, ""))},
		{"char-device", "extension/tty", vsix.RuleNotRegular, hostile(withMode("extension/tty", fs.ModeDevice|fs.ModeCharDevice|0o666, ""))},
		{"block-device", "extension/sda", vsix.RuleNotRegular, hostile(withMode("extension/sda", fs.ModeDevice|0o660, ""))},
		{"fifo", "extension/fifo", vsix.RuleNotRegular, hostile(withMode("extension/fifo", fs.ModeNamedPipe|0o644, ""))},
		{"socket", "extension/sock", vsix.RuleNotRegular, hostile(withMode("extension/sock", fs.ModeSocket|0o755, ""))},
		{"unix-dir-without-slash", "extension/dir", vsix.RuleNotRegular, hostile(withMode("extension/dir", fs.ModeDir|0o755, ""))},
		{"dos-dir-without-slash", "extension/dir", vsix.RuleNotRegular, hostile(withAttrs("extension/dir", 0, 0x10, ""))},
		{"reparse-point", "extension/junction", vsix.RuleNotRegular, hostile(withAttrs("extension/junction", 11<<8, 0x400|0x20, ""))},
		{"encrypted", "extension/secret.js", vsix.RuleEncrypted, hostile(encrypted("extension/secret.js", "console.log('secret')\n"))},
		{"compression-99", "extension/aes.js", vsix.RuleCompression, hostile(storedAs("extension/aes.js", 99, "AE-x encrypted bytes"))},
		{"compression-bzip2", "extension/bz.js", vsix.RuleCompression, hostile(storedAs("extension/bz.js", 12, "BZh91AY&SY"))},

		// Sizes.
		{"70000-entries", "", vsix.RuleEntryCount, hostile(many(70000))},
		{"size-longer", "extension/longer.js", vsix.RuleSizeLie, hostile(sizeLie("extension/longer.js", 1000, 10))},
		{"size-shorter", "extension/shorter.js", vsix.RuleSizeLie, hostile(sizeLie("extension/shorter.js", 10, 100))},
		{"stored-size-mismatch", "extension/stored.js", vsix.RuleSizeLie, hostile(raw(zip.FileHeader{Name: "extension/stored.js", Method: zip.Store, CRC32: crc32.ChecksumIEEE([]byte("0123456789")), CompressedSize64: 10, UncompressedSize64: 20}, []byte("0123456789")))},
		{"crc-mismatch", "extension/crc.js", vsix.RuleChecksum, hostile(badCRC("extension/crc.js", "console.log(1)\n"))},
		{"corrupt-deflate", "extension/corrupt.js", vsix.RuleCorrupt, hostile(raw(zip.FileHeader{Name: "extension/corrupt.js", Method: zip.Deflate, CRC32: 1, CompressedSize64: 8, UncompressedSize64: 16}, bytes.Repeat([]byte{0xff}, 8)))},
		{"bomb-1gib", "extension/bomb.js", vsix.RuleRatio, hostile(bomb("extension/bomb.js", 256, 0))},
		{"declared-max-uint64", "extension/huge.js", vsix.RuleFileSize, hostile(raw(zip.FileHeader{Name: "extension/huge.js", Method: zip.Deflate, CRC32: 0, CompressedSize64: 2, UncompressedSize64: math.MaxUint64}, []byte{3, 0}))},
		{"total-size", "", vsix.RuleTotalSize, hostile(padBomb("extension/a.bin", 200), padBomb("extension/b.bin", 200), padBomb("extension/c.bin", 200))},
		{"overlapping-entries", "extension/b.js", vsix.RuleOverlap, overlapping()},
	}
}

type step func(zw *zip.Writer) error

// hostile returns a build func for the sample extension followed by steps.
func hostile(steps ...step) func(io.Writer) error {
	return func(w io.Writer) error {
		zw := zip.NewWriter(w)
		if err := addFiles(zw, SampleFiles()); err != nil {
			return err
		}
		for _, s := range steps {
			if err := s(zw); err != nil {
				return err
			}
		}
		return zw.Close()
	}
}

func file(name, content string) step {
	return func(zw *zip.Writer) error { return add(zw, name, content) }
}

func write(zw *zip.Writer, h *zip.FileHeader, content string) error {
	h.Modified = modified
	w, err := zw.CreateHeader(h)
	if err != nil {
		return err
	}
	if content == "" {
		return nil
	}
	_, err = io.WriteString(w, content)
	return err
}

// withMode writes a file whose Unix mode (creator 3) is mode.
func withMode(name string, mode fs.FileMode, content string) step {
	return func(zw *zip.Writer) error {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		h.SetMode(mode)
		return write(zw, h, content)
	}
}

// withAttrs writes a file with the given creator version and external
// attributes, as they are.
func withAttrs(name string, creator uint16, attrs uint32, content string) step {
	return func(zw *zip.Writer) error {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate, CreatorVersion: creator, ExternalAttrs: attrs}
		return write(zw, h, content)
	}
}

func encrypted(name, content string) step {
	return func(zw *zip.Writer) error {
		return write(zw, &zip.FileHeader{Name: name, Method: zip.Deflate, Flags: 0x1}, content)
	}
}

// raw writes h and data as they are: sizes, CRC-32 and method unchecked.
func raw(h zip.FileHeader, data []byte) step {
	return func(zw *zip.Writer) error {
		h.Modified = modified
		w, err := zw.CreateRaw(&h)
		if err != nil {
			return err
		}
		if len(data) == 0 {
			return nil
		}
		_, err = w.Write(data)
		return err
	}
}

// storedAs writes content uncompressed but labelled with method.
func storedAs(name string, method uint16, content string) step {
	n := uint64(len(content))
	return raw(zip.FileHeader{Name: name, Method: method, CRC32: crc32.ChecksumIEEE([]byte(content)), CompressedSize64: n, UncompressedSize64: n}, []byte(content))
}

func deflate(data []byte) []byte {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// sizeLie writes an entry whose data inflates to actual bytes while its
// headers declare declared bytes (and the CRC-32 of the declared prefix,
// or of all the data when it is shorter).
func sizeLie(name string, actual, declared int) step {
	data := bytes.Repeat([]byte("A"), actual)
	comp := deflate(data)
	crc := crc32.ChecksumIEEE(data[:min(actual, declared)])
	return raw(zip.FileHeader{Name: name, Method: zip.Deflate, CRC32: crc, CompressedSize64: uint64(len(comp)), UncompressedSize64: uint64(declared)}, comp)
}

func badCRC(name, content string) step {
	comp := deflate([]byte(content))
	return raw(zip.FileHeader{Name: name, Method: zip.Deflate, CRC32: crc32.ChecksumIEEE([]byte(content)) ^ 1, CompressedSize64: uint64(len(comp)), UncompressedSize64: uint64(len(content))}, comp)
}

// bomb writes a valid entry inflating to chunks*4 MiB zeros, from about
// chunks*4 KB, padded with pad empty deflate blocks.
func bomb(name string, chunks, pad int) step {
	return func(zw *zip.Writer) error {
		data := zeroStream(chunks, pad)
		h := zip.FileHeader{Name: name, Method: zip.Deflate, CRC32: zerosCRC(chunks), CompressedSize64: uint64(len(data)), UncompressedSize64: uint64(chunks) * zeroChunkSize}
		return raw(h, data)(zw)
	}
}

// padBomb is a bomb padded to a ratio of about 900:1, under the default
// limit of 1000.
func padBomb(name string, chunks int) step {
	want := chunks * zeroChunkSize / 900
	pad := max(0, (want-len(zeroStream(1, 0))*chunks)/5)
	return bomb(name, chunks, pad)
}

// many writes n tiny stored files.
func many(n int) step {
	return func(zw *zip.Writer) error {
		for i := range n {
			w, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("extension/many/%05d.txt", i), Method: zip.Store})
			if err != nil {
				return err
			}
			if _, err := io.WriteString(w, "x"); err != nil {
				return err
			}
		}
		return nil
	}
}

// overlapping builds extension/a.js and extension/b.js with equal content,
// then points b's central-directory record at a's local header, so both
// entries share one copy of the data (the trick of overlapping zip bombs).
func overlapping() func(io.Writer) error {
	build := hostile(file("extension/a.js", "console.log('shared')\n"), file("extension/b.js", "console.log('shared')\n"))
	return patched(build, func(recs map[string][]byte) error {
		a, b := recs["extension/a.js"], recs["extension/b.js"]
		if a == nil || b == nil {
			return errors.New("overlapping: records not found")
		}
		copy(b[42:46], a[42:46]) // relative offset of local header
		return nil
	})
}

// patched builds an archive in memory, lets patch change its central
// directory records (name to record bytes, aliasing the archive), and
// writes the result to w.
func patched(build func(io.Writer) error, patch func(recs map[string][]byte) error) func(io.Writer) error {
	return func(w io.Writer) error {
		var buf bytes.Buffer
		if err := build(&buf); err != nil {
			return err
		}
		b := buf.Bytes()
		recs, err := centralRecords(b)
		if err != nil {
			return err
		}
		if err := patch(recs); err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
}

// centralRecords returns the central-directory records of a small archive
// (no zip64), keyed by name, aliasing b.
func centralRecords(b []byte) (map[string][]byte, error) {
	i := bytes.LastIndex(b, []byte("PK\x05\x06"))
	if i < 0 || len(b)-i < 22 {
		return nil, errors.New("no end of central directory record")
	}
	le := binary.LittleEndian
	n := int(le.Uint16(b[i+10:]))
	off := int(le.Uint32(b[i+16:]))
	recs := make(map[string][]byte, n)
	for range n {
		if off+46 > len(b) || string(b[off:off+4]) != "PK\x01\x02" {
			return nil, fmt.Errorf("no central directory record at %d", off)
		}
		nl, xl, cl := int(le.Uint16(b[off+28:])), int(le.Uint16(b[off+30:])), int(le.Uint16(b[off+32:]))
		end := off + 46 + nl + xl + cl
		if end > len(b) {
			return nil, fmt.Errorf("truncated central directory record at %d", off)
		}
		recs[string(b[off+46:off+46+nl])] = b[off:end]
		off = end
	}
	return recs, nil
}
