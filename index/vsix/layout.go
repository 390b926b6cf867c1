package vsix

import (
	"archive/zip"
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
)

// The layout check makes sure that every zip reader sees the same archive
// as archive/zip, which reads only the central directory: Java's
// ZipInputStream (Open VSX) and other streaming readers walk the local
// headers instead, and yauzl (VS Code) rejects bytes before the archive.
// It reads the end records and the central directory itself, each local
// header with one small pread, and each data descriptor from the bytes
// after its data, so no entry data is read twice.
//
// It follows APPNOTE.TXT (https://pkware.cachefly.net/webdocs/casestudies/APPNOTE.TXT)
// sections 4.3.6 to 4.3.16 and 4.5.3, as strictly as yauzl
// (https://github.com/thejoshwolfe/yauzl: the comment length must reach
// exactly to the end of the file) and golang.org/x/mod/zip (one name per
// file, whatever its case); and like Java's ZipInputStream
// (java.util.zip.ZipInputStream.readEnd) it accepts a data descriptor with
// or without its signature, with 4- or 8-byte sizes. Unlike
// ZipInputStream it accepts stored entries with a data descriptor (Go's
// archive/zip.Writer writes them), since their length is the central
// directory's and the tiling below pins where the descriptor ends.

const (
	localHeaderLen  = 30
	centralLen      = 46
	endLen          = 22
	end64LocatorLen = 20
	end64Len        = 56

	sigLocal      = 0x04034b50
	sigCentral    = 0x02014b50
	sigEnd        = 0x06054b50
	sigEnd64      = 0x06064b50
	sigEnd64Loc   = 0x07064b50
	sigDescriptor = 0x08074b50

	flagDescriptor = 0x8 // general-purpose bit 3: sizes and CRC-32 follow the data

	extraZip64       = 0x0001
	extraUnicodePath = 0x7075 // Info-ZIP Unicode Path: some unzips use it instead of the name

	maxComment = 0xffff
)

var le = binary.LittleEndian

// record is what the layout check reads of one central directory record.
type record struct {
	name         string
	flags        uint16
	method       uint16
	crc          uint32
	csize, usize uint64
	offset       uint64 // of the local header
	extra        []byte
}

// layout is the result of a passing layout check: where each entry's data
// starts, in central-directory order.
type layout struct {
	dataOffsets []int64
}

// checkLayout records a problem for every way in which r's bytes allow a
// reading other than files: stray bytes before, between or after the
// entries, local headers and data descriptors that disagree with the
// central directory, and central-directory records that archive/zip read
// differently. It returns only I/O errors.
func checkLayout(r io.ReaderAt, size int64, files []*zip.File, rep *Report) (layout, error) {
	cdOff, recs, err := readCentral(r, size, rep)
	if err != nil || recs == nil {
		return layout{}, err
	}
	if len(recs) != len(files) {
		rep.Errorf("", "", RuleNotZip, "central directory holds %d records, archive/zip read %d", len(recs), len(files))
		return layout{}, nil
	}
	for i, f := range files {
		c := recs[i]
		if f.Name != c.name || f.Flags != c.flags || f.Method != c.method || f.CRC32 != c.crc ||
			f.CompressedSize64 != c.csize || f.UncompressedSize64 != c.usize {
			rep.Errorf(printable(c.name), "central directory", RuleNotZip, "record %d reads differently in archive/zip (%q)", i, printable(f.Name))
			return layout{}, nil
		}
		if d := unicodePathMismatch(c.extra, c.name); d != "" {
			rep.Errorf(printable(c.name), "central extra 0x7075", RuleLocalHeader, "%s", d)
		}
	}

	order := make([]int, len(recs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(recs[x].offset, recs[y].offset) })
	lay := layout{dataOffsets: make([]int64, len(recs))}
	var cursor int64 // end of the previous entry, in offset order
	pr := &preader{r: r}
	for k, i := range order {
		c := &recs[i]
		file := printable(c.name)
		if cdOff < localHeaderLen || c.offset > uint64(cdOff-localHeaderLen) {
			rep.Errorf(file, "local header offset", RuleNotZip, "local header at %d does not fit before the central directory at %d", c.offset, cdOff)
			return layout{}, nil
		}
		start := int64(c.offset)
		switch {
		case start > cursor && cursor == 0:
			rep.Errorf(file, "", RuleStrayBytes, "%d bytes before the first local header (a prefix or another archive)", start)
		case start > cursor:
			rep.Errorf(file, "", RuleStrayBytes, "%d bytes between the previous entry (ending at %d) and this local header", start-cursor, cursor)
		case start < cursor:
			rep.Errorf(file, "", RuleOverlap, "local header at %d lies inside the previous entry (ending at %d)", start, cursor)
		}
		next, nextLen := cdOff, int64(0)
		if k+1 < len(order) {
			n := &recs[order[k+1]]
			next, nextLen = int64(min(n.offset, uint64(cdOff))), headerReadLen(n)
		}
		dataOff, end, err := checkLocal(pr, c, start, cdOff, next, nextLen, rep)
		if err != nil {
			return layout{}, err
		}
		lay.dataOffsets[i] = dataOff
		cursor = max(cursor, end)
	}
	switch {
	case cursor < cdOff:
		rep.Errorf("", "", RuleStrayBytes, "%d bytes between the last entry (ending at %d) and the central directory", cdOff-cursor, cursor)
	case cursor > cdOff:
		rep.Errorf("", "", RuleOverlap, "entries run %d bytes into the central directory", cursor-cdOff)
	}
	return lay, nil
}

// headerReadLen is how much of c's local header checkLocal reads at once:
// enough for the name and extra field of a writer that repeats them.
func headerReadLen(c *record) int64 {
	return int64(localHeaderLen + len(c.name) + len(c.extra) + 64)
}

// checkLocal checks the local header of c at start, and its data
// descriptor, against c. next is where the next entry (or the central
// directory) starts, and nextLen how much of its header to read along
// with the descriptor. It returns where the data starts and where the
// entry ends (after its descriptor), or an I/O error.
func checkLocal(pr *preader, c *record, start, cdOff, next, nextLen int64, rep *Report) (dataOff, end int64, err error) {
	file := printable(c.name)
	fail := func(field, format string, args ...any) {
		rep.Errorf(file, field, RuleLocalHeader, format, args...)
	}
	// One pread for the fixed part, the name and (usually) the extra field,
	// unless the previous entry's descriptor read has them.
	n := min(headerReadLen(c), cdOff-start)
	b, err := pr.read(start, n, n)
	if err != nil {
		return 0, 0, err
	}
	if le.Uint32(b) != sigLocal {
		rep.Errorf(file, "local header signature", RuleNotZip, "no local header at offset %d", start)
		return start, next, nil
	}
	nameLen, extraLen := int64(le.Uint16(b[26:])), int64(le.Uint16(b[28:]))
	dataOff = start + localHeaderLen + nameLen + extraLen
	if dataOff > cdOff {
		fail("local header", "name and extra field run into the central directory")
		return start, next, nil
	}
	if int64(len(b)) < localHeaderLen+nameLen+extraLen {
		n := localHeaderLen + nameLen + extraLen
		if b, err = pr.read(start, n, n); err != nil {
			return 0, 0, err
		}
	}
	name, extra := b[localHeaderLen:localHeaderLen+nameLen], b[localHeaderLen+nameLen:localHeaderLen+nameLen+extraLen]
	if string(name) != c.name {
		fail("local header name", "%q; the central directory says %q", printable(string(name)), file)
	}
	if d := unicodePathMismatch(extra, c.name); d != "" {
		fail("local extra 0x7075", "%s", d)
	}
	flags, method := le.Uint16(b[6:]), le.Uint16(b[8:])
	if flags != c.flags {
		fail("local header flags", "%#04x; the central directory says %#04x", flags, c.flags)
	}
	if method != c.method {
		fail("local header method", "%d; the central directory says %d", method, c.method)
	}
	crc := le.Uint32(b[14:])
	csize, usize := uint64(le.Uint32(b[18:])), uint64(le.Uint32(b[22:]))
	var zip64 bool // sizes are in a local zip64 extra field
	if csize == 0xffffffff || usize == 0xffffffff {
		// APPNOTE 4.5.3: a local zip64 extra field holds both sizes.
		if z, ok := findExtra(extra, extraZip64); ok && len(z) >= 16 {
			usize, csize, zip64 = le.Uint64(z), le.Uint64(z[8:]), true
		}
	}
	desc := c.flags&flagDescriptor != 0
	check := func(field string, got, want uint64) {
		switch {
		case got == want, desc && got == 0:
		// archive/zip.Writer.CreateRaw writes 0xffffffff without a local
		// zip64 extra field for sizes that need one: only the central
		// directory holds them.
		case got == 0xffffffff && want >= 0xffffffff && !zip64:
		default:
			fail(field, "%d; the central directory says %d", got, want)
		}
	}
	check("local header crc32", uint64(crc), uint64(c.crc))
	check("local header compressed size", csize, c.csize)
	check("local header uncompressed size", usize, c.usize)

	if c.csize > uint64(cdOff-dataOff) {
		rep.Errorf(file, "compressed size", RuleSizeLie, "%d bytes of data starting at %d run into the central directory at %d", c.csize, dataOff, cdOff)
		return dataOff, cdOff, nil
	}
	dataEnd := dataOff + int64(c.csize)
	if !desc {
		return dataOff, dataEnd, nil
	}
	end, err = checkDescriptor(pr, c, dataEnd, next, min(nextLen, cdOff-next), rep)
	return dataOff, end, err
}

// checkDescriptor checks the data descriptor that starts at off and must
// end at next, and returns where the entry ends, or an I/O error. In the
// same pread it reads ahead nextLen bytes of the next local header.
func checkDescriptor(pr *preader, c *record, off, next, nextLen int64, rep *Report) (int64, error) {
	file := printable(c.name)
	gap := next - off
	n := min(max(gap, 0), 24)
	want := n
	if gap == n {
		want += nextLen
	}
	b, err := pr.read(off, n, want)
	if err != nil {
		return 0, err
	}
	sig := len(b) >= 4 && le.Uint32(b) == sigDescriptor
	if sig {
		b = b[4:]
	}
	var crc uint32
	var csize, usize uint64
	switch {
	case len(b) == 12 && gap <= 24: // 4-byte sizes
		crc, csize, usize = le.Uint32(b), uint64(le.Uint32(b[4:])), uint64(le.Uint32(b[8:]))
	case len(b) == 20 && gap <= 24: // zip64: 8-byte sizes
		crc, csize, usize = le.Uint32(b), le.Uint64(b[4:]), le.Uint64(b[12:])
	default:
		want := "12 or 20 bytes without a signature"
		if sig {
			want = "16 or 24 bytes with its signature"
		}
		rep.Errorf(file, "data descriptor", RuleDataDescriptor, "%d bytes lie between the data and the next entry; a descriptor takes %s", gap, want)
		return off + min(max(gap, 0), 16), nil
	}
	for _, f := range []struct {
		field     string
		got, want uint64
	}{
		{"data descriptor crc32", uint64(crc), uint64(c.crc)},
		{"data descriptor compressed size", csize, c.csize},
		{"data descriptor uncompressed size", usize, c.usize},
	} {
		if f.got != f.want {
			rep.Errorf(file, f.field, RuleDataDescriptor, "%d; the central directory says %d", f.got, f.want)
		}
	}
	return next, nil
}

// preader reads small pieces of an archive, each with one pread, and
// keeps the last one for reads that fall inside it.
type preader struct {
	r    io.ReaderAt
	off  int64  // of buf
	buf  []byte // the last read
	pool []byte
}

// read returns n bytes at off, valid until the next read. When they are
// not in the last read, it reads max(n, want) bytes at off; want must not
// reach past the bytes that exist.
func (p *preader) read(off, n, want int64) ([]byte, error) {
	if p.buf != nil && off >= p.off && off+n <= p.off+int64(len(p.buf)) {
		return p.buf[off-p.off:][:n], nil
	}
	b, err := readAt(p.r, &p.pool, off, max(n, want))
	if err != nil {
		p.buf = nil
		return nil, err
	}
	p.off, p.buf = off, b
	return b[:n], nil
}

// readAt reads n bytes at off into *buf, growing it as needed.
func readAt(r io.ReaderAt, buf *[]byte, off, n int64) ([]byte, error) {
	if int64(cap(*buf)) < n {
		*buf = make([]byte, n)
	}
	b := (*buf)[:n]
	m, err := r.ReadAt(b, off)
	if m == len(b) {
		return b, nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return nil, err
}

// findExtra returns the data of the first extra field with id.
func findExtra(extra []byte, id uint16) ([]byte, bool) {
	for len(extra) >= 4 {
		tag, n := le.Uint16(extra), int(le.Uint16(extra[2:]))
		if 4+n > len(extra) {
			return nil, false
		}
		if tag == id {
			return extra[4 : 4+n], true
		}
		extra = extra[4+n:]
	}
	return nil, false
}

// unicodePathMismatch returns why an Info-ZIP Unicode Path extra field
// (version 1, CRC-32 of the header name, UTF-8 name), which Info-ZIP unzip
// and 7-Zip prefer to the name, names another file than name; or "".
func unicodePathMismatch(extra []byte, name string) string {
	u, ok := findExtra(extra, extraUnicodePath)
	if !ok {
		return ""
	}
	if len(u) < 5 || string(u[5:]) != name {
		return fmt.Sprintf("Unicode Path extra field names %q", printable(string(u[min(len(u), 5):])))
	}
	return ""
}

// readCentral finds the end of central directory record (and the zip64
// one, when its fields say so) as archive/zip does, checks that nothing
// but the comment follows it and that the central directory ends where
// the end records start, and parses every record. It returns nil records
// when it recorded a problem.
func readCentral(r io.ReaderAt, size int64, rep *Report) (int64, []record, error) {
	// Like archive/zip (readDirectoryEnd), take the last signature in the
	// last 1 KiB, else in the last 65 KiB.
	var b []byte
	var tail int64
	i := -1
	for _, n := range []int64{1024, endLen + maxComment + 1024} {
		tail = min(size, n)
		var err error
		if b, err = readAt(r, new([]byte), size-tail, tail); err != nil {
			return 0, nil, err
		}
		if i = bytes.LastIndex(b[:max(0, len(b)-endLen+4)], []byte("PK\x05\x06")); i >= 0 || tail == size {
			break
		}
	}
	if i < 0 {
		rep.Errorf("", "end of central directory", RuleNotZip, "no end of central directory record")
		return 0, nil, nil
	}
	eocd := size - tail + int64(i)
	e := b[i:]
	disk, cdDisk := le.Uint16(e[4:]), le.Uint16(e[6:])
	count, total := uint64(le.Uint16(e[8:])), uint64(le.Uint16(e[10:]))
	cdSize, cdOff := uint64(le.Uint32(e[12:])), uint64(le.Uint32(e[16:]))
	if after := size - eocd - endLen - int64(le.Uint16(e[20:])); after != 0 {
		rep.Errorf("", "end of central directory comment", RuleStrayBytes,
			"comment length %d, but %d bytes follow the record", le.Uint16(e[20:]), size-eocd-endLen)
		return 0, nil, nil
	}
	cdEnd := eocd // where the central directory must end
	// archive/zip's condition (readDirectoryEnd), 0xffff included.
	if total == 0xffff || cdSize == 0xffff || cdSize == 0xffffffff || cdOff == 0xffffffff {
		if loc := eocd - end64LocatorLen; loc >= end64Len {
			l, err := readAt(r, new([]byte), loc, end64LocatorLen)
			if err != nil {
				return 0, nil, err
			}
			if le.Uint32(l) == sigEnd64Loc {
				p := le.Uint64(l[8:])
				if p > uint64(loc-end64Len) {
					rep.Errorf("", "zip64 end of central directory locator", RuleNotZip, "points at %d, after itself", p)
					return 0, nil, nil
				}
				z, err := readAt(r, new([]byte), int64(p), end64Len)
				if err != nil {
					return 0, nil, err
				}
				if le.Uint32(z) != sigEnd64 || le.Uint32(l[4:]) != 0 || le.Uint32(l[16:]) != 1 {
					rep.Errorf("", "zip64 end of central directory", RuleNotZip, "no zip64 end record at %d", p)
					return 0, nil, nil
				}
				if recEnd := p + 12 + le.Uint64(z[4:]); recEnd != uint64(loc) {
					rep.Errorf("", "zip64 end of central directory", RuleStrayBytes, "record ends at %d, the locator starts at %d", recEnd, loc)
					return 0, nil, nil
				}
				disk, cdDisk = uint16(min(le.Uint32(z[16:]), 0xffff)), uint16(min(le.Uint32(z[20:]), 0xffff))
				count, total, cdSize, cdOff = le.Uint64(z[24:]), le.Uint64(z[32:]), le.Uint64(z[40:]), le.Uint64(z[48:])
				cdEnd = int64(p)
			}
		}
	}
	if disk != 0 || cdDisk != 0 || count != total {
		rep.Errorf("", "end of central directory", RuleNotZip, "a spanned (multi-disk) archive")
		return 0, nil, nil
	}
	if cdSize > uint64(cdEnd) || cdOff != uint64(cdEnd)-cdSize {
		if cdSize <= uint64(cdEnd) && cdOff < uint64(cdEnd)-cdSize {
			rep.Errorf("", "end of central directory", RuleStrayBytes,
				"%d bytes before the first local header (a prefix or another archive) or after the central directory", uint64(cdEnd)-cdSize-cdOff)
		} else {
			rep.Errorf("", "end of central directory", RuleNotZip, "central directory (%d bytes at %d) does not end at %d", cdSize, cdOff, cdEnd)
		}
		return 0, nil, nil
	}
	if total > uint64(size)/centralLen {
		rep.Errorf("", "end of central directory", RuleNotZip, "%d records cannot fit", total)
		return 0, nil, nil
	}
	cd, err := readAt(r, new([]byte), int64(cdOff), int64(cdSize))
	if err != nil {
		return 0, nil, err
	}
	recs, err := parseCentral(cd, int(total))
	if err != nil {
		rep.Errorf("", "central directory", RuleNotZip, "%v", err)
		return 0, nil, nil
	}
	return int64(cdOff), recs, nil
}

// parseCentral parses exactly n records that fill cd, reading zip64 extra
// fields like archive/zip (only for the fields that are all ones).
func parseCentral(cd []byte, n int) ([]record, error) {
	recs := make([]record, 0, n)
	for k := range n {
		if len(cd) < centralLen || le.Uint32(cd) != sigCentral {
			return nil, fmt.Errorf("no record %d", k)
		}
		nl, xl, cl := int(le.Uint16(cd[28:])), int(le.Uint16(cd[30:])), int(le.Uint16(cd[32:]))
		if len(cd) < centralLen+nl+xl+cl {
			return nil, fmt.Errorf("record %d is truncated", k)
		}
		c := record{
			name:   string(cd[centralLen : centralLen+nl]),
			flags:  le.Uint16(cd[8:]),
			method: le.Uint16(cd[10:]),
			crc:    le.Uint32(cd[16:]),
			csize:  uint64(le.Uint32(cd[20:])),
			usize:  uint64(le.Uint32(cd[24:])),
			offset: uint64(le.Uint32(cd[42:])),
			extra:  cd[centralLen+nl : centralLen+nl+xl],
		}
		if c.usize == 0xffffffff || c.csize == 0xffffffff || c.offset == 0xffffffff {
			z, _ := findExtra(c.extra, extraZip64)
			for _, p := range []*uint64{&c.usize, &c.csize, &c.offset} {
				if *p != 0xffffffff {
					continue
				}
				if len(z) < 8 {
					return nil, fmt.Errorf("record %d (%q): zip64 extra field too short", k, printable(c.name))
				}
				*p, z = le.Uint64(z), z[8:]
			}
		}
		recs = append(recs, c)
		cd = cd[centralLen+nl+xl+cl:]
	}
	if len(cd) != 0 {
		return nil, fmt.Errorf("%d bytes after the last record", len(cd))
	}
	return recs, nil
}
