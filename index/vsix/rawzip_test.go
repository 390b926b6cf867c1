package vsix_test

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
)

// rawEntry is one entry of a rawZip: its central-directory values, the
// local header's (equal unless a test changes them), and the bytes after
// its data.
type rawEntry struct {
	name                string
	content             string // uncompressed
	data                []byte // as stored: method 0 unless method says otherwise
	method, flags       uint16
	crc                 uint32
	csize, usize        uint32
	centralExtra        []byte
	offset              *uint32 // central record's local header offset; nil: where it is
	lname               string
	lmethod, lflags     uint16
	lcrc                uint32
	lcsize, lusize      uint32
	localExtra          []byte
	descriptor, trailer []byte // written after the data: a data descriptor, then stray bytes
}

// stored returns a stored entry of content, its local header agreeing.
func stored(name, content string) rawEntry {
	n, crc := uint32(len(content)), crc32.ChecksumIEEE([]byte(content))
	return rawEntry{
		name: name, content: content, data: []byte(content), crc: crc, csize: n, usize: n,
		lname: name, lcrc: crc, lcsize: n, lusize: n,
	}
}

// deflated returns an entry of content compressed with deflate, followed
// by junk inside the compressed size.
func deflated(name, content string, junk []byte) rawEntry {
	e := stored(name, content)
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	w.Write([]byte(content))
	w.Close()
	e.data = append(b.Bytes(), junk...)
	e.method, e.lmethod = 8, 8
	e.csize, e.lcsize = uint32(len(e.data)), uint32(len(e.data))
	return e
}

// withDescriptor sets flag bit 3, zeroes the local CRC-32 and sizes and
// appends a data descriptor of the entry's values: with or without its
// signature, with 4- or 8-byte sizes.
func withDescriptor(e rawEntry, sig, zip64 bool) rawEntry {
	e.flags |= 8
	e.lflags |= 8
	e.lcrc, e.lcsize, e.lusize = 0, 0, 0
	e.descriptor = descriptor(sig, zip64, e.crc, uint64(e.csize), uint64(e.usize))
	return e
}

func descriptor(sig, zip64 bool, crc uint32, csize, usize uint64) []byte {
	var b []byte
	if sig {
		b = le32(b, 0x08074b50)
	}
	b = le32(b, crc)
	if zip64 {
		return le64(le64(b, csize), usize)
	}
	return le32(le32(b, uint32(csize)), uint32(usize))
}

// unicodePath returns an Info-ZIP Unicode Path extra field naming name.
func unicodePath(header, name string) []byte {
	b := le16(le16(nil, 0x7075), uint16(5+len(name)))
	b = append(le32(append(b, 1), crc32.ChecksumIEEE([]byte(header))), name...)
	return b
}

// rawZip writes an archive byte by byte, so tests can make every field
// lie: prefix, entries (each local header, data, descriptor and trailer),
// stray bytes before the central directory, the central directory, the
// end records (zip64 ones when zip64End is set), the comment, and stray
// bytes after it.
type rawZip struct {
	prefix    []byte
	entries   []rawEntry
	beforeCD  []byte
	zip64End  bool
	comment   []byte
	suffix    []byte
	cdOffset  *uint32 // the end record's central directory offset; nil: where it is
	noAdjust  bool    // offsets count from the end of prefix, as in a concatenation
	extraRecs int     // records the end record counts beyond the entries
}

func (z rawZip) bytes() []byte {
	out := bytes.Clone(z.prefix)
	base := uint32(len(z.prefix))
	if z.noAdjust {
		base = 0
	}
	offsets := make([]uint32, len(z.entries))
	for i, e := range z.entries {
		offsets[i] = uint32(len(out)) - uint32(len(z.prefix)) + base
		b := le32(nil, 0x04034b50)
		b = le16(b, 20)
		b = le16(b, e.lflags)
		b = le16(b, e.lmethod)
		b = le32(b, 0) // time, date
		b = le32(b, e.lcrc)
		b = le32(b, e.lcsize)
		b = le32(b, e.lusize)
		b = le16(b, uint16(len(e.lname)))
		b = le16(b, uint16(len(e.localExtra)))
		b = append(b, e.lname...)
		b = append(b, e.localExtra...)
		b = append(b, e.data...)
		b = append(b, e.descriptor...)
		out = append(out, b...)
		out = append(out, e.trailer...)
	}
	out = append(out, z.beforeCD...)
	cdStart := uint32(len(out)) - uint32(len(z.prefix)) + base
	for i, e := range z.entries {
		off := offsets[i]
		if e.offset != nil {
			off = *e.offset
		}
		b := le32(nil, 0x02014b50)
		b = le16(b, 3<<8|20) // made by Unix
		b = le16(b, 20)
		b = le16(b, e.flags)
		b = le16(b, e.method)
		b = le32(b, 0)
		b = le32(b, e.crc)
		b = le32(b, e.csize)
		b = le32(b, e.usize)
		b = le16(b, uint16(len(e.name)))
		b = le16(b, uint16(len(e.centralExtra)))
		b = le16(b, 0) // comment
		b = le16(b, 0) // disk
		b = le16(b, 0) // internal attributes
		b = le32(b, 0o100644<<16)
		b = le32(b, off)
		b = append(b, e.name...)
		b = append(b, e.centralExtra...)
		out = append(out, b...)
	}
	cdSize := uint32(len(out)) - uint32(len(z.prefix)) + base - cdStart
	if z.cdOffset != nil {
		cdStart = *z.cdOffset
	}
	n := uint16(len(z.entries) + z.extraRecs)
	if z.zip64End {
		end64 := uint64(len(out)) - uint64(len(z.prefix)) + uint64(base)
		b := le32(nil, 0x06064b50)
		b = le64(b, 44)
		b = le16(b, 45)
		b = le16(b, 45)
		b = le32(b, 0)
		b = le32(b, 0)
		b = le64(b, uint64(n))
		b = le64(b, uint64(n))
		b = le64(b, uint64(cdSize))
		b = le64(b, uint64(cdStart))
		b = le32(b, 0x07064b50)
		b = le32(b, 0)
		b = le64(b, end64)
		b = le32(b, 1)
		out = append(out, b...)
		n, cdSize, cdStart = 0xffff, 0xffffffff, 0xffffffff
	}
	b := le32(nil, 0x06054b50)
	b = le16(b, 0)
	b = le16(b, 0)
	b = le16(b, n)
	b = le16(b, n)
	b = le32(b, cdSize)
	b = le32(b, cdStart)
	b = le16(b, uint16(len(z.comment)))
	b = append(b, z.comment...)
	out = append(out, b...)
	return append(out, z.suffix...)
}

func le16(b []byte, v uint16) []byte { return binary.LittleEndian.AppendUint16(b, v) }
func le32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
func le64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }
