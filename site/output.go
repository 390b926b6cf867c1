package site

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/airvsx/airvsx/internal/atomicfile"
)

// SiteMarker is the file every rendered site holds at its root; Render
// replaces only a directory that has it (or an empty one).
const SiteMarker = ".airvsx-site"

const markerContent = "airvsx site: this directory is replaced by airvsx site\n"

// The directories of a site.
var siteDirs = []string{"assets", "ext", "category", "publisher", "dl", "img"}

// checkOut refuses an output directory that is not absent, empty, or a
// site, so that a mistyped --out cannot replace someone's files.
func checkOut(out string) error {
	fi, err := os.Lstat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("output %s: %w", out, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("output %s: not a directory", out)
	}
	if _, err := os.Lstat(filepath.Join(out, SiteMarker)); err == nil {
		return nil
	}
	f, err := os.Open(out)
	if err != nil {
		return fmt.Errorf("output %s: %w", out, err)
	}
	defer f.Close()
	if _, err := f.Readdirnames(1); err == io.EOF {
		return nil
	}
	return fmt.Errorf("output %s: not empty and not a site airvsx rendered (no %s); remove it or choose another directory", out, SiteMarker)
}

// outDir is the temporary directory a site is rendered into, or, for
// an incremental render, the site itself, each file then replaced
// atomically (inPlace).
type outDir struct {
	out, tmp string
	inPlace  bool
	claimed  sync.Map // names of content-addressed files already written
	files    atomic.Int64
	pages    atomic.Int64
	bytes    atomic.Int64
	copied   atomic.Int64 // package bytes copied into dl/
	done     bool
}

func newOutDir(out string) (*outDir, error) {
	out = filepath.Clean(out)
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("output %s: %w", out, err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(out)+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("output %s: %w", out, err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	d := &outDir{out: out, tmp: tmp}
	for _, sub := range siteDirs {
		if err := os.Mkdir(filepath.Join(tmp, sub), 0o755); err != nil {
			d.discard()
			return nil, err
		}
	}
	return d, nil
}

// openInPlace returns the site out itself as the directory to write: an
// incremental render replaces its files one by one.
func openInPlace(out string) *outDir {
	out = filepath.Clean(out)
	return &outDir{out: out, tmp: out, inPlace: true}
}

// write writes one file of the site. Names are slash-separated, made by
// this package from validated IDs, versions and platforms, and one of
// siteDirs deep at most; the file must not exist yet.
func (d *outDir) write(name string, data []byte) error {
	if !fs.ValidPath(name) || strings.ContainsAny(name, `\:`) {
		return fmt.Errorf("write %q: not a clean relative name", name)
	}
	return d.copyFrom(name, bytes.NewReader(data))
}

// claim reports whether the caller is the first to ask for name, and so
// should write it.
func (d *outDir) claim(name string) bool {
	_, loaded := d.claimed.LoadOrStore(name, true)
	return !loaded
}

// copyFrom writes name from r; it returns r's error (a verification
// failure of a blob) as is.
func (d *outDir) copyFrom(name string, r io.Reader) error {
	if d.inPlace {
		return d.replace(name, r)
	}
	f, err := os.OpenFile(d.path(name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	n, err := io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(d.path(name))
		return err
	}
	d.files.Add(1)
	d.bytes.Add(n)
	return nil
}

// replace replaces name in place, atomically, with what r gives; its
// directory is made when missing.
func (d *outDir) replace(name string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(d.path(name)), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	var n int64
	var rerr error
	err := atomicfile.Write(d.path(name), 0o644, func(w io.Writer) error {
		n, rerr = io.Copy(w, r)
		return rerr
	})
	if rerr != nil {
		return rerr
	}
	if err != nil {
		return err
	}
	d.files.Add(1)
	d.bytes.Add(n)
	return nil
}

// writeIfChanged writes name unless it holds data already (an
// incremental render keeps what did not change).
func (d *outDir) writeIfChanged(name string, data []byte) (written bool, err error) {
	if d.inPlace {
		if old, err := os.ReadFile(d.path(name)); err == nil && bytes.Equal(old, data) {
			return false, nil
		}
	}
	return true, d.write(name, data)
}

// remove removes a file of an in-place site; a missing file is fine.
func (d *outDir) remove(name string) error {
	if err := os.Remove(d.path(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", name, err)
	}
	return nil
}

// path is the OS path of a file in the temporary directory.
func (d *outDir) path(name string) string { return filepath.Join(d.tmp, filepath.FromSlash(name)) }

// commit puts the temporary directory in place of out: one exchange when
// out exists (then the old site is removed), one rename when it does not.
func (d *outDir) commit() error {
	if d.inPlace {
		d.done = true
		return atomicfile.SyncDir(d.out)
	}
	if err := d.write(SiteMarker, []byte(markerContent)); err != nil {
		return err
	}
	if err := atomicfile.SyncDir(d.tmp); err != nil {
		return err
	}
	if _, err := os.Lstat(d.out); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(d.tmp, d.out); err != nil {
			return fmt.Errorf("output %s: %w", d.out, err)
		}
		d.done = true
		return atomicfile.SyncDir(filepath.Dir(d.out))
	}
	if err := exchange(d.tmp, d.out); err != nil {
		return fmt.Errorf("output %s: replace: %w", d.out, err)
	}
	d.done = true
	// d.tmp now holds the previous site.
	if err := os.RemoveAll(d.tmp); err != nil {
		return fmt.Errorf("remove the previous site (now %s): %w", d.tmp, err)
	}
	return atomicfile.SyncDir(filepath.Dir(d.out))
}

// discard removes the temporary directory unless it was committed.
func (d *outDir) discard() {
	if d.done || d.inPlace {
		return
	}
	os.RemoveAll(d.tmp)
}
