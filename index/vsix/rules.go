package vsix

import (
	"archive/zip"
	"fmt"
	"math"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// The archive rules. Each Problem that Open reports carries one of them.
const (
	// RuleNotZip: the file is not a zip archive, or its central directory
	// or a local header is broken.
	RuleNotZip Rule = "not-zip"
	// RuleArchiveSize: the archive is larger than Options.MaxArchiveBytes.
	RuleArchiveSize Rule = "archive-size"
	// RuleEntryCount: the archive has more than Options.MaxEntries entries.
	RuleEntryCount Rule = "entry-count"
	// RuleFileSize: an entry declares more than Options.MaxFileBytes.
	RuleFileSize Rule = "file-size"
	// RuleTotalSize: the entries together declare more than
	// Options.MaxTotalBytes.
	RuleTotalSize Rule = "total-size"
	// RuleRatio: an entry declares more than Options.MaxRatio times its
	// compressed size.
	RuleRatio Rule = "compression-ratio"
	// RuleUncleanName: a name is empty, absolute, has empty, "." or ".."
	// elements, or is otherwise not clean and local.
	RuleUncleanName Rule = "unclean-name"
	// RuleBackslash: a name holds a backslash.
	RuleBackslash Rule = "backslash"
	// RuleControlChar: a name holds NUL or another control character.
	RuleControlChar Rule = "control-char"
	// RuleInvalidUTF8: a name is not valid UTF-8.
	RuleInvalidUTF8 Rule = "invalid-utf8"
	// RuleReservedName: an element of a name is reserved on Windows: a
	// device name (CON, NUL.txt, COM1, ...), a name ending in "." or " ",
	// an 8.3 short name (PROGRA~1), or one holding : < > " | ? or *.
	RuleReservedName Rule = "reserved-name"
	// RuleDuplicate: two entries have the same name.
	RuleDuplicate Rule = "duplicate-name"
	// RuleCaseFold: two names differ only in case (after Unicode case
	// folding), so they collide on case-insensitive file systems.
	RuleCaseFold Rule = "case-fold-collision"
	// RuleFileIsDir: a name is both a file and the parent directory of
	// another entry, or a directory entry declares data.
	RuleFileIsDir Rule = "file-is-directory"
	// RuleNotRegular: an entry is neither a regular file nor a directory
	// (a symlink, device, pipe, socket or Windows reparse point), or its
	// type disagrees with its name's trailing slash.
	RuleNotRegular Rule = "not-regular-file"
	// RuleEncrypted: an entry is encrypted.
	RuleEncrypted Rule = "encrypted"
	// RuleSizeLie: an entry's data is longer or shorter than its header
	// declares (or a stored entry declares different sizes, or data that
	// runs past the end of the archive).
	RuleSizeLie Rule = "size-mismatch"
	// RuleChecksum: an entry's data does not match its CRC-32.
	RuleChecksum Rule = "crc-mismatch"
	// RuleCompression: an entry uses a method other than Store or Deflate.
	RuleCompression Rule = "unsupported-compression"
	// RuleCorrupt: an entry's deflate stream is invalid or truncated.
	RuleCorrupt Rule = "corrupt-data"
	// RuleOverlap: two entries overlap (the trick of overlapping-file zip
	// bombs), or an entry runs into the central directory.
	RuleOverlap Rule = "overlapping-entries"
	// RuleLocalHeader: a local header disagrees with its central-directory
	// record on the name, flags, method, CRC-32 or sizes (CRC-32 and sizes
	// may be zero when flag bit 3 defers them to a data descriptor), or a
	// Unicode Path extra field names another file.
	RuleLocalHeader Rule = "local-header-mismatch"
	// RuleDataDescriptor: a data descriptor disagrees with the central
	// directory on the CRC-32 or sizes, or is missing or malformed.
	RuleDataDescriptor Rule = "data-descriptor-mismatch"
	// RuleStrayBytes: bytes that belong to no entry: before the first
	// local header (a prefix, another archive), between entries, between
	// the last entry and the central directory, or after the end of
	// central directory record other than its comment.
	RuleStrayBytes Rule = "stray-bytes"
	// RuleNormalization: two names are equal after Unicode normalization
	// (NFC), so they collide on macOS and in tools that normalize.
	RuleNormalization Rule = "normalization-collision"
	// RuleNameLength: a path element is longer than 255 bytes or a name
	// longer than 1024 bytes.
	RuleNameLength Rule = "name-too-long"
	// RuleInvisibleChar: a name holds a bidirectional control (U+061C,
	// U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) or a zero-width
	// character (U+200B-U+200D, U+2060, U+FEFF) that make it display as
	// another name.
	RuleInvisibleChar Rule = "invisible-char"
)

// Unix file types, in the high 16 bits of zip.FileHeader.ExternalAttrs.
const (
	sIFMT   = 0xf000
	sIFSOCK = 0xc000
	sIFLNK  = 0xa000
	sIFREG  = 0x8000
	sIFBLK  = 0x6000
	sIFDIR  = 0x4000
	sIFCHR  = 0x2000
	sIFIFO  = 0x1000

	dosDir     = 0x10  // MS-DOS directory attribute
	dosReparse = 0x400 // Windows reparse point (symlinks, junctions)

	// General-purpose flags that mean encryption: traditional (bit 0),
	// strong (bit 6) and central-directory encryption (bit 13).
	flagEncrypted = 0x1 | 0x40 | 0x2000
)

// checkDirectory applies every central-directory rule to files, in one flat
// loop, and records a problem for every entry that breaks one. It reads no
// file data. On success it returns the entries, in the order of files.
func checkDirectory(files []*zip.File, size int64, lim Options, r *Report) []Entry {
	if len(files) > lim.MaxEntries {
		r.Errorf("", "", RuleEntryCount, "%d entries (> %d)", len(files), lim.MaxEntries)
		return nil
	}
	entries := make([]Entry, 0, len(files))
	seen := make(map[string]bool, len(files)) // exact entry names
	tree := make(collisions, len(files))
	var total uint64 // saturates at math.MaxUint64
	var overflow bool
	for _, f := range files {
		dir := strings.HasSuffix(f.Name, "/")
		name := strings.TrimSuffix(f.Name, "/")
		file := printable(f.Name)
		before := len(r.Problems)

		if rule, detail := checkName(name); rule != "" {
			r.Errorf(file, "", rule, "%s", detail)
		} else if seen[f.Name] {
			r.Errorf(file, "", RuleDuplicate, "name appears more than once")
		} else {
			seen[f.Name] = true
			if rule, detail := tree.add(name, dir); rule != "" {
				r.Errorf(file, "", rule, "%s", detail)
			}
		}
		if detail := checkType(&f.FileHeader, dir); detail != "" {
			r.Errorf(file, "", RuleNotRegular, "%s", detail)
		}
		if f.Flags&flagEncrypted != 0 {
			r.Errorf(file, "", RuleEncrypted, "general-purpose flags %#04x mark the entry encrypted", f.Flags)
		}
		if f.Method != zip.Store && f.Method != zip.Deflate {
			r.Errorf(file, "", RuleCompression, "method %d; only 0 (store) and 8 (deflate) are allowed", f.Method)
		}

		n, c := f.UncompressedSize64, f.CompressedSize64
		if dir && n != 0 {
			r.Errorf(file, "", RuleFileIsDir, "directory entry declares %d bytes of data", n)
		}
		if f.Method == zip.Store && n != c {
			r.Errorf(file, "", RuleSizeLie, "stored entry declares %d bytes uncompressed but %d compressed", n, c)
		}
		if c > uint64(size) {
			r.Errorf(file, "", RuleSizeLie, "declares %d compressed bytes in a %d-byte archive", c, size)
		}
		if n > uint64(lim.MaxFileBytes) {
			r.Errorf(file, "", RuleFileSize, "declares %d bytes (> %d)", n, lim.MaxFileBytes)
		}
		if ratioExceeds(n, c, uint64(lim.MaxRatio)) {
			r.Errorf(file, "", RuleRatio, "declares %d bytes from %d compressed (%s, limit %d)", n, c, ratioString(n, c), lim.MaxRatio)
		}
		if total > math.MaxUint64-n {
			total, overflow = math.MaxUint64, true
		} else {
			total += n
		}

		if len(r.Problems) == before {
			entries = append(entries, Entry{Name: name, Size: int64(n), CompressedSize: int64(c), Dir: dir})
		}
	}
	if total > uint64(lim.MaxTotalBytes) {
		sum := fmt.Sprint(total)
		if overflow {
			sum = "more than 2^64-1"
		}
		r.Errorf("", "", RuleTotalSize, "entries declare %s bytes in total (> %d)", sum, lim.MaxTotalBytes)
	}
	return entries
}

// checkType returns why the entry is neither a regular file nor a
// directory, or "". It trusts no creator-OS field: Unix type bits are
// checked whenever the high 16 bits of the external attributes are set, and
// MS-DOS attributes whenever the low ones are.
func checkType(h *zip.FileHeader, dir bool) string {
	unix := h.ExternalAttrs >> 16
	switch unix & sIFMT {
	case 0: // no Unix type: MS-DOS attributes only
	case sIFREG:
		if dir {
			return "regular-file mode on a directory name (trailing slash)"
		}
	case sIFDIR:
		if !dir {
			return "directory mode on a name without a trailing slash"
		}
	case sIFLNK:
		return "symbolic link"
	case sIFCHR:
		return "character device"
	case sIFBLK:
		return "block device"
	case sIFIFO:
		return "named pipe"
	case sIFSOCK:
		return "socket"
	default:
		return fmt.Sprintf("unknown Unix file type %#o", unix&sIFMT)
	}
	dos := h.ExternalAttrs & 0xffff
	if dos&dosReparse != 0 {
		return "Windows reparse point (a link)"
	}
	if dos&dosDir != 0 && !dir {
		return "MS-DOS directory attribute on a name without a trailing slash"
	}
	return ""
}

// ratioExceeds reports whether n > max*c, without overflow.
func ratioExceeds(n, c, max uint64) bool {
	if c == 0 {
		return n > 0
	}
	q := n / c
	return q > max || q == max && n%c != 0
}

func ratioString(n, c uint64) string {
	switch {
	case c == 0:
		return "ratio unbounded"
	case n%c != 0:
		return fmt.Sprintf("ratio above %d", n/c)
	}
	return fmt.Sprintf("ratio %d", n/c)
}

// collisions maps folded names to the first spelling seen, and whether it
// is a directory. Parents of every name are recorded as directories.
type collisions map[string]pathInfo

type pathInfo struct {
	name string
	dir  bool
}

// add records name (a file, or a directory when dir is set) and its parent
// directories, and returns the rule it breaks against earlier names.
func (c collisions) add(name string, dir bool) (Rule, string) {
	for {
		key := fold(name)
		if prev, ok := c[key]; ok {
			switch {
			case prev.name != name && norm.NFC.String(prev.name) == norm.NFC.String(name):
				return RuleNormalization, fmt.Sprintf("%q collides with %q after Unicode normalization", name, prev.name)
			case prev.name != name:
				return RuleCaseFold, fmt.Sprintf("%q collides with %q when case is ignored", name, prev.name)
			case prev.dir != dir && prev.dir:
				return RuleFileIsDir, fmt.Sprintf("%q is a file but an earlier entry makes it a directory", name)
			case prev.dir != dir:
				return RuleFileIsDir, fmt.Sprintf("%q is a directory but an earlier entry is a file of that name", name)
			case !dir:
				return RuleDuplicate, fmt.Sprintf("%q appears more than once", name)
			}
			// A directory seen before: its parents are recorded already.
			return "", ""
		}
		c[key] = pathInfo{name: name, dir: dir}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return "", ""
		}
		name, dir = name[:i], true
	}
}
