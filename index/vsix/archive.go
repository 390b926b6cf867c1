package vsix

import (
	"archive/zip"
	"bufio"
	"cmp"
	"compress/flate"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options limits what Open accepts. The zero value uses the defaults.
type Options struct {
	MaxArchiveBytes int64 // archive file size; 0 means 512 MiB
	MaxEntries      int   // 0 means 65,536
	MaxFileBytes    int64 // declared uncompressed size of one entry; 0 means MaxTotalBytes
	MaxTotalBytes   int64 // sum of declared uncompressed sizes; 0 means 2 GiB
	MaxRatio        int64 // uncompressed:compressed per entry; 0 means 1000
}

// The defaults of Options.
const (
	DefaultMaxArchiveBytes = 512 << 20
	DefaultMaxEntries      = 65536
	DefaultMaxTotalBytes   = 2 << 30
	DefaultMaxRatio        = 1000
)

// withDefaults fills in zero fields and rejects negative ones.
func (o Options) withDefaults() (Options, error) {
	if o.MaxArchiveBytes < 0 || o.MaxEntries < 0 || o.MaxFileBytes < 0 || o.MaxTotalBytes < 0 || o.MaxRatio < 0 {
		return o, fmt.Errorf("vsix options: negative limit in %+v", o)
	}
	if o.MaxArchiveBytes == 0 {
		o.MaxArchiveBytes = DefaultMaxArchiveBytes
	}
	if o.MaxEntries == 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.MaxTotalBytes == 0 {
		o.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if o.MaxFileBytes == 0 {
		o.MaxFileBytes = o.MaxTotalBytes
	}
	if o.MaxRatio == 0 {
		o.MaxRatio = DefaultMaxRatio
	}
	return o, nil
}

// Entry is one checked archive entry.
type Entry struct {
	Name           string // clean slash-separated path, without a directory's trailing slash
	Size           int64  // declared uncompressed size (verified by Open)
	CompressedSize int64
	Dir            bool
}

// Archive is a .vsix archive that passed every archive rule. It implements
// fs.FS, fs.ReadFileFS and fs.ReadDirFS; every read is limited to the
// declared size + 1 and checked against the declared size and CRC-32. Its
// methods are safe for concurrent use.
type Archive struct {
	name    string
	closer  io.Closer // the file Open opened, or nil
	files   []*zip.File
	entries []Entry
	nodes   map[string]*node // "." and every file and directory, implied ones too
}

// node is a file or directory of the archive's tree.
type node struct {
	name  string // full path, "." for the root
	entry int    // index into Archive.entries, or -1 for implied directories
	dir   bool
	kids  []*node // sorted by name
}

// Open opens the archive at path and checks it like NewReader. The
// Archive keeps the file open until Close.
func Open(path string, opts Options) (*Archive, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *fs.PathError: "open path: ..."
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("open %s: not a regular file", path)
	}
	a, err := newArchive(f, fi.Size(), opts, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	a.closer = f
	return a, nil
}

// NewReader checks the archive of size bytes in r against every rule (see
// the package comment): first the whole central directory, then, if that
// passes, every entry's data in one streaming pass. It returns a
// *ProblemsError listing every broken rule, or a plain error if r cannot be
// read.
func NewReader(r io.ReaderAt, size int64, opts Options) (*Archive, error) {
	return newArchive(r, size, opts, "")
}

func newArchive(r io.ReaderAt, size int64, opts Options, name string) (*Archive, error) {
	lim, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	var rep Report
	reject := func() error {
		e := rep.Err().(*ProblemsError)
		e.Name = name
		return e
	}
	if size < 0 {
		return nil, fmt.Errorf("open %s: negative size %d", label(name), size)
	}
	if size > lim.MaxArchiveBytes {
		rep.Errorf("", "", RuleArchiveSize, "archive is %d bytes (> %d)", size, lim.MaxArchiveBytes)
		return nil, reject()
	}
	// Bound every read by size: header offsets must not reach past it.
	z, err := zip.NewReader(ioReaderAt{io.NewSectionReader(r, 0, size)}, size)
	if err != nil && !(errors.Is(err, zip.ErrInsecurePath) && z != nil) { // insecure paths: our rules say why
		if ioErr := (*ioError)(nil); errors.As(err, &ioErr) {
			return nil, fmt.Errorf("read %s: %w", label(name), ioErr.err)
		}
		rep.Errorf("", "", RuleNotZip, "%v", err)
		return nil, reject()
	}
	a := &Archive{name: name, files: z.File}
	a.entries = checkDirectory(z.File, size, lim, &rep)
	if len(rep.Problems) > 0 {
		return nil, reject()
	}
	if err := a.checkData(size, &rep); err != nil {
		return nil, err
	}
	if len(rep.Problems) > 0 {
		return nil, reject()
	}
	a.buildTree()
	return a, nil
}

// label names an archive in error messages.
func label(name string) string {
	if name == "" {
		return "archive"
	}
	return name
}

// Close closes the file that Open opened. It does nothing for an Archive
// from NewReader.
func (a *Archive) Close() error {
	if a.closer == nil {
		return nil
	}
	return a.closer.Close()
}

// Entries returns the archive's entries in central-directory order.
func (a *Archive) Entries() []Entry { return slices.Clone(a.entries) }

// checkData makes one streaming pass over every entry's data, after
// checking that no two entries' data overlap. It records size, CRC-32 and
// deflate problems in rep, and returns only I/O errors.
func (a *Archive) checkData(size int64, rep *Report) error {
	type span struct {
		start, end int64
		i          int
	}
	spans := make([]span, 0, len(a.files))
	for i, f := range a.files {
		off, err := f.DataOffset()
		if err != nil {
			if ioErr := (*ioError)(nil); errors.As(err, &ioErr) {
				return fmt.Errorf("read %s: %s: %w", label(a.name), a.entries[i].Name, ioErr.err)
			}
			rep.Errorf(f.Name, "", RuleNotZip, "local header: %v", err)
			continue
		}
		end := off + int64(f.CompressedSize64) // off < size + 2^17, CompressedSize64 <= size: no overflow
		if end > size {
			rep.Errorf(f.Name, "", RuleSizeLie, "data runs %d bytes past the end of the archive", end-size)
			continue
		}
		spans = append(spans, span{off, end, i})
	}
	slices.SortStableFunc(spans, func(x, y span) int { return cmp.Compare(x.start, y.start) })
	const localHeaderLen = 30
	for k := 1; k < len(spans); k++ {
		prev, s := spans[k-1], spans[k]
		if prev.end > s.start-localHeaderLen {
			rep.Errorf(a.files[s.i].Name, "", RuleOverlap, "data at offset %d overlaps %q (offsets %d to %d)",
				s.start, a.files[prev.i].Name, prev.start, prev.end)
		}
	}
	if len(rep.Problems) > 0 {
		return nil
	}

	// Entries are independent: verify them on up to GOMAXPROCS goroutines,
	// and report problems in central-directory order.
	found := make([][]Problem, len(a.files))
	workers := min(runtime.GOMAXPROCS(0), maxWorkers, len(a.files))
	errs := make([]error, workers)
	var next atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			buf := make([]byte, 32<<10)
			var er entryReader
			for !stop.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(a.files) {
					return
				}
				err := a.verify(&er, i, buf)
				var pe *ProblemsError
				switch {
				case err == nil:
				case errors.As(err, &pe):
					found[i] = pe.Problems
				default:
					errs[w] = err
					stop.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, ps := range found {
		rep.Problems = append(rep.Problems, ps...)
	}
	return nil
}

// maxWorkers caps the goroutines of Open's data pass.
const maxWorkers = 8

// verify reads all of entry i's data through er, and returns nil, a
// *ProblemsError, or an I/O error.
func (a *Archive) verify(er *entryReader, i int, buf []byte) error {
	if err := a.reset(er, i); err != nil {
		return err
	}
	defer er.release()
	for {
		if _, err := er.Read(buf); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

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
	raw, err := f.OpenRaw()
	if err != nil {
		if ioErr := (*ioError)(nil); errors.As(err, &ioErr) {
			return fmt.Errorf("read %s: %s: %w", label(er.archive), er.name, ioErr.err)
		}
		return er.problem(RuleNotZip, "local header: %v", err)
	}
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
		File: er.name, Rule: rule, Detail: fmt.Sprintf(format, args...),
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
			er.err = io.EOF
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

// buildTree indexes the checked entries for fs.FS, adding the directories
// that names imply.
func (a *Archive) buildTree() {
	a.nodes = map[string]*node{".": {name: ".", entry: -1, dir: true}}
	var add func(name string) *node // returns the directory node name, creating it
	add = func(name string) *node {
		if n, ok := a.nodes[name]; ok {
			return n
		}
		n := &node{name: name, entry: -1, dir: true}
		a.nodes[name] = n
		parent := add(path.Dir(name))
		parent.kids = append(parent.kids, n)
		return n
	}
	for i, e := range a.entries {
		if e.Dir {
			add(e.Name).entry = i
			continue
		}
		n := &node{name: e.Name, entry: i}
		a.nodes[e.Name] = n
		parent := add(path.Dir(e.Name))
		parent.kids = append(parent.kids, n)
	}
	for _, n := range a.nodes {
		slices.SortFunc(n.kids, func(x, y *node) int { return strings.Compare(x.name, y.name) })
	}
}

// lookup returns the node of a valid fs.FS name.
func (a *Archive) lookup(op, name string) (*node, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	n, ok := a.nodes[name]
	if !ok {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return n, nil
}

// Open opens the named file or directory for reading (fs.FS). Reading a
// file fails, with an error naming the entry, if its data is longer or
// shorter than declared or does not match its CRC-32.
func (a *Archive) Open(name string) (fs.File, error) {
	n, err := a.lookup("open", name)
	if err != nil {
		return nil, err
	}
	if n.dir {
		return &dirFile{a: a, n: n}, nil
	}
	f := &file{info: a.info(n)}
	if err := a.reset(&f.r, n.entry); err != nil {
		return nil, err
	}
	return f, nil
}

// ReadFile returns the content of the named file (fs.ReadFileFS).
func (a *Archive) ReadFile(name string) ([]byte, error) {
	n, err := a.lookup("read", name)
	if err != nil {
		return nil, err
	}
	if n.dir {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	}
	var er entryReader
	if err := a.reset(&er, n.entry); err != nil {
		return nil, err
	}
	defer er.release()
	b := make([]byte, 0, a.entries[n.entry].Size+1)
	for {
		m, err := er.Read(b[len(b):cap(b)])
		b = b[:len(b)+m]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// ReadDir returns the named directory's entries sorted by name
// (fs.ReadDirFS).
func (a *Archive) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := a.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if !n.dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	out := make([]fs.DirEntry, len(n.kids))
	for i, k := range n.kids {
		out[i] = fs.FileInfoToDirEntry(a.info(k))
	}
	return out, nil
}

// info describes a node as extraction would create it: files 0644,
// directories 0755.
func (a *Archive) info(n *node) fileInfo {
	fi := fileInfo{name: path.Base(n.name), mode: 0o644}
	if n.dir {
		fi.mode = fs.ModeDir | 0o755
	}
	if n.entry >= 0 {
		fi.size = a.entries[n.entry].Size
		fi.mod = a.files[n.entry].Modified
	}
	return fi
}

type fileInfo struct {
	name string
	size int64
	mode fs.FileMode
	mod  time.Time
}

func (fi fileInfo) Name() string       { return fi.name }
func (fi fileInfo) Size() int64        { return fi.size }
func (fi fileInfo) Mode() fs.FileMode  { return fi.mode }
func (fi fileInfo) ModTime() time.Time { return fi.mod }
func (fi fileInfo) IsDir() bool        { return fi.mode.IsDir() }
func (fi fileInfo) Sys() any           { return nil }

// file is an open regular file of an Archive.
type file struct {
	info   fileInfo
	r      entryReader
	closed bool
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *file) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *file) Close() error {
	if f.closed {
		return fs.ErrClosed
	}
	f.closed = true
	f.r.release()
	return nil
}

// dirFile is an open directory of an Archive.
type dirFile struct {
	a   *Archive
	n   *node
	off int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.a.info(d.n), nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.n.name, Err: errors.New("is a directory")}
}
func (d *dirFile) Close() error { return nil }

// ReadDir implements fs.ReadDirFile.
func (d *dirFile) ReadDir(count int) ([]fs.DirEntry, error) {
	rest := d.n.kids[d.off:]
	if count > 0 && len(rest) > count {
		rest = rest[:count]
	}
	if count > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	out := make([]fs.DirEntry, len(rest))
	for i, k := range rest {
		out[i] = fs.FileInfoToDirEntry(d.a.info(k))
	}
	d.off += len(rest)
	return out, nil
}
