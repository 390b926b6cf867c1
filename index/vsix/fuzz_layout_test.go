package vsix_test

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index/vsix"
	"github.com/airvsx/airvsx/index/vsix/vsixtest"
)

// FuzzLocalHeaders checks that an archive NewReader accepts reads the same
// through its local headers as through its central directory: re-parsed
// here independently, every central record's local header has the same
// name, flags and method, the same CRC-32 and sizes (or zeros and a data
// descriptor holding them), and the entries exactly tile the bytes before
// the central directory, which ends where the end record (or the zip64
// one) starts and is followed only by the comment.
func FuzzLocalHeaders(f *testing.F) {
	f.Add(build(f, vsixtest.Sample()))
	for _, c := range layoutCases() {
		f.Add(c.zip.bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := vsix.NewReader(bytes.NewReader(data), int64(len(data)), fuzzOptions)
		if err != nil {
			if pe := (*vsix.ProblemsError)(nil); !errors.As(err, &pe) || len(pe.Problems) == 0 || a != nil {
				t.Fatalf("NewReader = %v, %v; want nil and a *ProblemsError with problems", a, err)
			}
			return
		}
		recs, err := agreeingEntries(data)
		if err != nil {
			t.Fatalf("NewReader accepted an archive whose local headers disagree: %v", err)
		}
		entries := a.Entries()
		if len(entries) != len(recs) {
			t.Fatalf("%d entries; the central directory has %d records", len(entries), len(recs))
		}
		for i, e := range entries {
			if e.Name != strings.TrimSuffix(recs[i], "/") {
				t.Fatalf("entry %d is %q; the central directory says %q", i, e.Name, recs[i])
			}
		}
	})
}

// agreeingEntries parses data as a zip archive and returns its central-directory names if every local header agrees
// with its record and the entries tile the archive, and an error
// otherwise.
func agreeingEntries(data []byte) ([]string, error) {
	u16 := func(b []byte) uint64 { return uint64(binary.LittleEndian.Uint16(b)) }
	u32 := func(b []byte) uint64 { return uint64(binary.LittleEndian.Uint32(b)) }
	u64 := func(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }
	size := uint64(len(data))
	end := bytes.LastIndex(data, []byte("PK\x05\x06"))
	if end < 0 || size-uint64(end) < 22 || uint64(end)+22+u16(data[end+20:]) != size {
		return nil, fmt.Errorf("no end record followed only by its comment")
	}
	n, cdSize, cdOff := u16(data[end+10:]), u32(data[end+12:]), u32(data[end+16:])
	cdEnd := uint64(end)
	if loc := end - 20; loc >= 0 && string(data[loc:loc+4]) == "PK\x06\x07" {
		p := u64(data[loc+8:])
		if p+56 > uint64(loc) || string(data[p:p+4]) != "PK\x06\x06" {
			return nil, fmt.Errorf("bad zip64 locator")
		}
		n, cdSize, cdOff, cdEnd = u64(data[p+32:]), u64(data[p+40:]), u64(data[p+48:]), p
	}
	if cdOff+cdSize != cdEnd || cdEnd > size {
		return nil, fmt.Errorf("central directory (%d bytes at %d) does not end at %d", cdSize, cdOff, cdEnd)
	}
	type span struct {
		start uint64
		ends  []uint64 // one per way to read its data descriptor
	}
	var spans []span
	var names []string
	cd := data[cdOff:cdEnd]
	for i := range n {
		if len(cd) < 46 || string(cd[:4]) != "PK\x01\x02" {
			return nil, fmt.Errorf("record %d: bad signature", i)
		}
		nl, xl, cl := u16(cd[28:]), u16(cd[30:]), u16(cd[32:])
		if uint64(len(cd)) < 46+nl+xl+cl {
			return nil, fmt.Errorf("record %d: truncated", i)
		}
		name := string(cd[46 : 46+nl])
		flags, method, crc, csize, usize, off := u16(cd[8:]), u16(cd[10:]), u32(cd[16:]), u32(cd[20:]), u32(cd[24:]), u32(cd[42:])
		z64 := zip64Extra(cd[46+nl : 46+nl+xl])
		for _, p := range []*uint64{&usize, &csize, &off} {
			if *p == 0xffffffff && len(z64) >= 8 {
				*p, z64 = u64(z64), z64[8:]
			}
		}
		cd = cd[46+nl+xl+cl:]
		if off+30 > cdOff {
			return nil, fmt.Errorf("%q: local header past the central directory", name)
		}
		l := data[off:]
		lnl, lxl := u16(l[26:]), u16(l[28:])
		if off+30+lnl+lxl > cdOff {
			return nil, fmt.Errorf("%q: local header runs into the central directory", name)
		}
		if string(l[:4]) != "PK\x03\x04" || lnl != nl || string(l[30:30+lnl]) != name ||
			u16(l[6:]) != flags || u16(l[8:]) != method {
			return nil, fmt.Errorf("%q: local header name, flags or method differ", name)
		}
		desc := flags&8 != 0
		lcsize, lusize := u32(l[18:]), u32(l[22:])
		if z := zip64Extra(l[30+lnl : 30+lnl+lxl]); (lcsize == 0xffffffff || lusize == 0xffffffff) && len(z) >= 16 {
			lusize, lcsize = u64(z), u64(z[8:])
		}
		for _, v := range [][2]uint64{{u32(l[14:]), crc}, {lcsize, csize}, {lusize, usize}} {
			if v[0] != v[1] && !(desc && v[0] == 0) && !(v[0] == 0xffffffff && v[1] >= 0xffffffff) {
				return nil, fmt.Errorf("%q: local header CRC-32 or size %d differs from %d", name, v[0], v[1])
			}
		}
		e := off + 30 + lnl + lxl + csize
		if e > cdOff {
			return nil, fmt.Errorf("%q: data runs into the central directory", name)
		}
		ends := []uint64{e}
		if desc {
			ends = nil
			d := data[e:min(e+24, cdOff)]
			if len(d) >= 4 && u32(d) == 0x08074b50 {
				d, e = d[4:], e+4
			}
			if len(d) >= 12 && u32(d) == crc && u32(d[4:]) == csize && u32(d[8:]) == usize {
				ends = append(ends, e+12)
			}
			if len(d) >= 20 && u32(d) == crc && u64(d[4:]) == csize && u64(d[12:]) == usize {
				ends = append(ends, e+20)
			}
			if len(ends) == 0 {
				return nil, fmt.Errorf("%q: no data descriptor agrees", name)
			}
		}
		spans = append(spans, span{off, ends})
		names = append(names, name)
	}
	if len(cd) != 0 {
		return nil, fmt.Errorf("%d bytes after the last record", len(cd))
	}
	slices.SortFunc(spans, func(x, y span) int { return cmp.Compare(x.start, y.start) })
	at := []uint64{0}
	for _, s := range spans {
		if !slices.Contains(at, s.start) {
			return nil, fmt.Errorf("entry at %d; the previous one ends at %v", s.start, at)
		}
		at = s.ends
	}
	if !slices.Contains(at, cdOff) {
		return nil, fmt.Errorf("entries end at %v, the central directory starts at %d", at, cdOff)
	}
	return names, nil
}

// zip64Extra returns the data of the zip64 extra field in extra, or nil.
func zip64Extra(extra []byte) []byte {
	for len(extra) >= 4 {
		id, n := binary.LittleEndian.Uint16(extra), int(binary.LittleEndian.Uint16(extra[2:]))
		if 4+n > len(extra) {
			return nil
		}
		if id == 1 {
			return extra[4 : 4+n]
		}
		extra = extra[4+n:]
	}
	return nil
}
