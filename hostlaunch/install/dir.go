package install

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/airvsx/airvsx/internal/atomicfile"
	"github.com/airvsx/airvsx/internal/flock"
	"github.com/airvsx/airvsx/internal/madedir"
)

// ErrLocked is wrapped when another install or uninstall holds the
// extensions directory.
var ErrLocked = errors.New("in use by another airvsx install or uninstall")

// QuarantineDir is where packages that failed to install are kept, each
// in a folder of its own with a REASON file, inside the extensions
// directory. Nothing there is ever loaded or deleted by airvsx.
const QuarantineDir = ".quarantine"

// extDir is an extensions directory opened for writing: locked, the
// seal key at hand, its installed.json read (unsealed records
// distrusted), what a killed install or uninstall left put right.
type extDir struct {
	path string
	lock *os.File
	key  *sealKey
	idx  *Index
	// created is the outermost directory openForWrite made for path
	// (madedir.Missing): "" when it existed.
	created string
}

// openForWrite creates the extensions directory if create is set and it
// is missing (its parent must exist), locks it, makes the seal key if it
// is missing, reads installed.json (a missing one is an empty index;
// records whose seal does not verify are disabled without grants, and
// logged) and tidies what a killed install or uninstall left (see Tidy).
func openForWrite(ctx context.Context, dir string, create bool, o DirOptions) (*extDir, error) {
	if dir == "" {
		return nil, errors.New("no extensions directory")
	}
	var created string
	if create {
		created = madedir.Missing(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("extensions directory: %w", err)
		}
	}
	f, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	d, err := func() (*extDir, error) {
		key, err := makeSealKey(o.StateDir)
		if err != nil {
			return nil, err
		}
		x, warnings, err := readIndex(dir, key)
		if err != nil {
			return nil, err
		}
		log := o.logger()
		for _, w := range warnings {
			log.Warn(w)
		}
		// What tidy cannot do it leaves for the next time; it never
		// removes a staging folder that may hold a folder to put back.
		if _, err := tidy(ctx, dir, x, log); err != nil {
			log.Warn("tidying the extensions directory", "dir", dir, "err", err)
		}
		return &extDir{path: dir, lock: f, key: key, idx: x, created: created}, nil
	}()
	if err != nil {
		madedir.Remove(dir, created)
		f.Close()
		return nil, err
	}
	return d, nil
}

// lockDir opens the extensions directory and locks it, without waiting:
// an error wrapping ErrLocked when another holds it.
func lockDir(dir string) (*os.File, error) {
	if fi, err := os.Lstat(dir); err != nil {
		return nil, fmt.Errorf("extensions directory: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("extensions directory %s: not a directory", dir)
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("extensions directory: %w", err)
	}
	if err := flock.TryLock(f, ErrLocked); err != nil {
		f.Close()
		return nil, fmt.Errorf("extensions directory %w", err)
	}
	return f, nil
}

// close unlocks the directory. One that openForWrite made and that is
// still empty (an install refused before it wrote anything: no
// installed.json, no quarantine) is removed first, with the parents made
// for it, so that a refused install leaves nothing behind.
func (d *extDir) close() error {
	err := madedir.Remove(d.path, d.created)
	return errors.Join(err, d.lock.Close())
}

// readIndex reads DIR/installed.json (decodeIndex) and distrusts every
// record whose seal does not verify under key: disabled, without grants.
// It returns a warning for each.
func readIndex(dir string, key *sealKey) (*Index, []string, error) {
	x, err := decodeIndex(dir)
	if err != nil {
		return nil, nil, err
	}
	return x, key.distrust(x), nil
}

// decodeIndex reads DIR/installed.json; a missing file is an empty index,
// a damaged one an error naming it. Seals are not checked.
func decodeIndex(dir string) (*Index, error) {
	name := filepath.Join(dir, IndexFile)
	fi, err := os.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return &Index{Format: IndexFormat, Extensions: []Record{}}, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	if fi.Size() > MaxIndexBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, MaxIndexBytes)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	x, err := Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s is damaged: %w (restore it from a backup, or move the directory aside and install again)", name, err)
	}
	return x, nil
}

// writeIndex replaces installed.json atomically, every record sealed.
func (d *extDir) writeIndex(x *Index) error {
	data, err := x.Encode()
	if err != nil {
		return err
	}
	// Seal the records as a reader decodes them, so that the seals are
	// of exactly what is read back.
	y, err := Decode(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("encode %s: %w", IndexFile, err)
	}
	if err := d.key.sealAll(y); err != nil {
		return err
	}
	if data, err = y.Encode(); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(d.path, IndexFile), data, 0o644)
}

// unsafeChars are replaced in quarantine folder names.
var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._@+~$-]+`)

// quarantine keeps a package that failed to install: a new folder
// DIR/.quarantine/<name>-<UTC time>/ holding REASON (why, in words) and,
// when vsix is not nil, the package's bytes as <name>.vsix. It returns the
// folder.
func quarantine(dir, name string, vsix io.ReaderAt, size int64, reason string, now time.Time) (string, error) {
	q := filepath.Join(dir, QuarantineDir)
	if err := os.MkdirAll(q, 0o755); err != nil {
		return "", fmt.Errorf("quarantine: %w", err)
	}
	name = unsafeChars.ReplaceAllString(name, "_")
	if len(name) > 100 {
		name = name[:100]
	}
	base := name + "-" + now.UTC().Format("20060102T150405Z")
	var folder string
	for i := 1; ; i++ {
		folder = filepath.Join(q, base)
		if i > 1 {
			folder = filepath.Join(q, fmt.Sprintf("%s-%d", base, i))
		}
		err := os.Mkdir(folder, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || i > 100 {
			return "", fmt.Errorf("quarantine: %w", err)
		}
	}
	if err := atomicfile.WriteExclusive(filepath.Join(folder, "REASON"), []byte(reason+"\n"), 0o644); err != nil {
		return folder, fmt.Errorf("quarantine: %w", err)
	}
	if vsix != nil {
		err := atomicfile.Write(filepath.Join(folder, name+".vsix"), 0o644, func(w io.Writer) error {
			_, err := io.Copy(w, io.NewSectionReader(vsix, 0, size))
			return err
		})
		if err != nil {
			return folder, fmt.Errorf("quarantine: %w", err)
		}
	}
	return folder, nil
}
