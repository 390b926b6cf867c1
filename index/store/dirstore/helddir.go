package dirstore

import (
	"io"
	"io/fs"
	"os"
)

// heldDir is a directory a read-only store holds open (dirCache): a
// path below it is resolved from it, not from the registry's root. Each
// access has the rules of every access of a store (nothing outside the
// registry, no final symlink followed, no device or pipe opened); one
// that fails is repeated from the registry's root, whose errors are the
// ones reported, so a held directory's own errors only need to say that
// it failed.
type heldDir interface {
	// lstat stats rel without following a final symlink.
	lstat(rel string) (fs.FileInfo, error)
	// readFile reads the regular file rel of at most max bytes.
	readFile(rel string, max int64) ([]byte, error)
	// openFile opens the regular file rel for reading.
	openFile(rel string) (*os.File, error)
	// openReader opens the regular file rel for reading, and returns its
	// size.
	openReader(rel string) (io.ReadCloser, int64, error)
	// sub opens the directory rel below it.
	sub(rel string) (heldDir, error)
	// fsys returns it as a read-only file system.
	fsys() fs.FS
	// close releases it.
	close() error
}

// rootDir is a held directory open as an os.Root, through os.Root and
// safefile: what every platform has.
type rootDir struct {
	r     *os.Root
	owned bool // closed by close
}

func (d *rootDir) lstat(rel string) (fs.FileInfo, error) { return d.r.Lstat(rel) }

func (d *rootDir) readFile(rel string, max int64) ([]byte, error) {
	return readRegular(d.r, rel, max)
}

func (d *rootDir) openFile(rel string) (*os.File, error) { return openRegular(d.r, rel) }

func (d *rootDir) openReader(rel string) (io.ReadCloser, int64, error) {
	f, err := openRegular(d.r, rel)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

func (d *rootDir) sub(rel string) (heldDir, error) {
	r, err := d.r.OpenRoot(rel)
	if err != nil {
		return nil, err
	}
	return &rootDir{r: r, owned: true}, nil
}

func (d *rootDir) fsys() fs.FS { return newRootFS(d.r) }

func (d *rootDir) close() error {
	if !d.owned {
		return nil
	}
	return d.r.Close()
}
