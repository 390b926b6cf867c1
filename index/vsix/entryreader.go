package vsix

import (
	"archive/zip"
	"bufio"
	"compress/flate"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"sync"
)

// ioReaderAt marks errors of the underlying reader, so that the errors of
// a broken archive can be told from those of a broken disk.
type ioReaderAt struct{ r io.ReaderAt }

func (r ioReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 { // a header offset that overflows int64
		return 0, errNegativeOffset
	}
	n, err := r.r.ReadAt(p, off)
	if err != nil && err != io.EOF {
		err = &ioError{err}
	}
	return n, err
}

var errNegativeOffset = errors.New("zip: negative offset")

type ioError struct{ err error }

func (e *ioError) Error() string { return e.err.Error() }
func (e *ioError) Unwrap() error { return e.err }

var (
	flatePool = sync.Pool{New: func() any { return flate.NewReader(nil) }}
	bufPool   = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 32<<10) }}
)

// entryReader reads one entry's data: never more than the declared size +
// 1 from the decompressor, and at EOF it checks the exact declared size and
// the CRC-32. Its errors name the entry: a *ProblemsError for data that
// breaks a rule, a plain error for I/O errors.
type entryReader struct {
	archive string
	name    string
	src     io.Reader     // decompressed data
	flate   io.ReadCloser // pooled deflate reader, or nil
	buf     *bufio.Reader // pooled, or nil
	size    uint64        // declared
	want    uint32        // declared CRC-32
	n       uint64
	crc     uint32
	err     error
}

// reset points er at entry i.
func (a *Archive) reset(er *entryReader, i int) error {
	f := a.files[i]
	*er = entryReader{archive: a.name, name: a.entries[i].Name, size: f.UncompressedSize64, want: f.CRC32}
	// The data starts where checkLayout found it, after the local header
	// it compared with the central directory.
	raw := io.NewSectionReader(a.r, a.dataOffsets[i], int64(f.CompressedSize64))
	switch f.Method {
	case zip.Store:
		er.src = raw
	case zip.Deflate:
		er.buf = bufPool.Get().(*bufio.Reader)
		er.buf.Reset(raw)
		er.flate = flatePool.Get().(io.ReadCloser)
		if err := er.flate.(flate.Resetter).Reset(er.buf, nil); err != nil {
			er.release()
			return er.problem(RuleCorrupt, "deflate: %v", err)
		}
		er.src = er.flate
	default: // checkDirectory rejected it
		return er.problem(RuleCompression, "method %d", f.Method)
	}
	return nil
}

// release returns pooled readers; er must not be read afterwards.
func (er *entryReader) release() {
	if er.flate != nil {
		flatePool.Put(er.flate)
		er.flate = nil
	}
	if er.buf != nil {
		er.buf.Reset(nil)
		bufPool.Put(er.buf)
		er.buf = nil
	}
	er.src = nil
	if er.err == nil {
		er.err = fs.ErrClosed
	}
}

func (er *entryReader) problem(rule Rule, format string, args ...any) error {
	return &ProblemsError{Name: er.archive, Problems: []Problem{{
		File: er.name, Rule: rule, Message: fmt.Sprintf(format, args...),
	}}}
}

func (er *entryReader) Read(p []byte) (int, error) {
	if er.err != nil {
		return 0, er.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if rest := er.size - er.n + 1; uint64(len(p)) > rest { // size < MaxInt64: no overflow
		p = p[:rest]
	}
	n, err := er.src.Read(p)
	if left := er.size - er.n; uint64(n) > left {
		er.crc = crc32.Update(er.crc, crc32.IEEETable, p[:left])
		er.n = er.size
		er.err = er.problem(RuleSizeLie, "data is longer than the declared %d bytes", er.size)
		return int(left), er.err
	}
	er.crc = crc32.Update(er.crc, crc32.IEEETable, p[:n])
	er.n += uint64(n)
	switch {
	case err == nil:
	case err == io.EOF:
		switch {
		case er.n != er.size:
			er.err = er.problem(RuleSizeLie, "data is %d bytes, shorter than the declared %d", er.n, er.size)
		case er.crc != er.want:
			er.err = er.problem(RuleChecksum, "data has CRC-32 %08x, header declares %08x", er.crc, er.want)
		default:
			er.err = er.trailing()
		}
	default:
		if ioErr := (*ioError)(nil); errors.As(err, &ioErr) {
			er.err = fmt.Errorf("read %s: %s: %w", label(er.archive), er.name, ioErr.err)
		} else {
			er.err = er.problem(RuleCorrupt, "deflate data: %v (after %d bytes of output)", err, er.n)
		}
	}
	return n, er.err
}

// trailing returns io.EOF if the deflate stream used every compressed
// byte, as a streaming reader (Java's ZipInputStream) that looks for the
// next header where the stream ends needs; otherwise a problem, or an I/O
// error. flate reads its input byte by byte from er.buf, never past the
// end of the stream.
func (er *entryReader) trailing() error {
	if er.buf == nil {
		return io.EOF
	}
	switch _, err := er.buf.ReadByte(); {
	case err == io.EOF:
		return io.EOF
	case err == nil:
		rest := 1 + er.buf.Buffered()
		return er.problem(RuleSizeLie, "compressed size: the deflate stream ends %d or more bytes before the declared compressed size", rest)
	default:
		if ioErr := (*ioError)(nil); errors.As(err, &ioErr) {
			err = ioErr.err
		}
		return fmt.Errorf("read %s: %s: %w", label(er.archive), er.name, err)
	}
}
