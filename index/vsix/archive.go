package vsix

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/airvsx/airvsx/internal/safefile"
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
	name        string
	closer      io.Closer   // the file Open opened, or nil
	r           io.ReaderAt // the archive, bounded by its size; errors are *ioError
	dataOffsets []int64     // where each entry's data starts, from checkLayout
	files       []*zip.File
	entries     []Entry
	nodes       map[string]*node // "." and every file and directory, implied ones too
}

// Open opens the archive at path and checks it like NewReader. The
// Archive keeps the file open until Close.
func Open(path string, opts Options) (*Archive, error) {
	f, fi, err := safefile.Open(path, -1) // newArchive checks the size
	if err != nil {
		return nil, err
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
	r = ioReaderAt{io.NewSectionReader(r, 0, size)}
	z, err := zip.NewReader(r, size)
	if err != nil && !(errors.Is(err, zip.ErrInsecurePath) && z != nil) { // insecure paths: our rules say why
		if ioErr := (*ioError)(nil); errors.As(err, &ioErr) {
			return nil, readErr(name, err)
		}
		rep.Errorf("", "", RuleNotZip, "%v", err)
		return nil, reject()
	}
	a := &Archive{name: name, r: r, files: z.File}
	a.entries = checkDirectory(z.File, size, lim, &rep)
	if len(z.File) <= lim.MaxEntries {
		lay, err := checkLayout(r, size, z.File, &rep)
		if err != nil {
			return nil, readErr(name, err)
		}
		a.dataOffsets = lay.dataOffsets
	}
	if len(rep.Problems) > 0 {
		return nil, reject()
	}
	if err := a.checkData(&rep); err != nil {
		return nil, err
	}
	if len(rep.Problems) > 0 {
		return nil, reject()
	}
	a.buildTree()
	return a, nil
}

// readErr wraps an I/O error of the archive's reader.
func readErr(name string, err error) error {
	if ioErr := (*ioError)(nil); errors.As(err, &ioErr) {
		err = ioErr.err
	}
	return fmt.Errorf("read %s: %w", label(name), err)
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
