package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The files Quarantine writes beside the rejected ones.
const (
	ReasonFile     = "REASON"      // the reason, as text
	ReasonJSONFile = "reason.json" // QuarantineRecord
)

// maxQuarantineName leaves room for the ".N" suffix of a repeated name.
const maxQuarantineName = 200

// QuarantineRecord is the content of reason.json in a quarantine directory.
type QuarantineRecord struct {
	Name   string           `json:"name"`   // the name asked for
	Reason string           `json:"reason"` // why the files were rejected
	Time   time.Time        `json:"time"`   // when, by the wall clock (UTC)
	Files  []QuarantineFile `json:"files"`  // sorted by name
}

// ReasonFiles returns the content of REASON, the reason as text ending in
// a newline, and of reason.json, the record as indented JSON: what the
// directory store, gitstore and the registry store write beside the
// quarantined files.
func (r *QuarantineRecord) ReasonFiles() (text, record []byte, err error) {
	reason := r.Reason
	if !strings.HasSuffix(reason, "\n") {
		reason += "\n"
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, nil, fmt.Errorf("reason.json: %w", err)
	}
	return []byte(reason), append(b, '\n'), nil
}

// QuarantineFile describes one quarantined file.
type QuarantineFile struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"` // sha256:<hex>
}

// ReadMetadata reads metadata/<name>, at most maxSize bytes.
func (d *Dir) ReadMetadata(ctx context.Context, name string, maxSize int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read metadata: %w", err)
	}
	if err := CheckMetadataName(name); err != nil {
		return nil, fmt.Errorf("read metadata: %w", err)
	}
	if maxSize < 0 {
		return nil, fmt.Errorf("read metadata %s: negative maxSize %d", name, maxSize)
	}
	data, err := readRegular(d.root, metadataDir+"/"+name, maxSize)
	if err != nil {
		return nil, fmt.Errorf("read metadata %s: %w", name, err)
	}
	return data, nil
}

// ListMetadata lists the regular files under metadata/ (temp files left
// by a killed writer excluded). A directory or file whose name is not a
// valid metadata name, or anything that is not a regular file, is an
// error naming it: a copy must not silently leave it behind.
func (d *Dir) ListMetadata(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list metadata: %w", err)
	}
	var names []string
	err := fs.WalkDir(d.root.FS(), metadataDir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == metadataDir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipDir
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == metadataDir || strings.HasPrefix(e.Name(), tempPrefix) {
			return nil
		}
		name := strings.TrimPrefix(p, metadataDir+"/")
		switch {
		case e.IsDir():
			return nil
		case !e.Type().IsRegular():
			return fmt.Errorf("%s: not a regular file", p)
		}
		if err := CheckMetadataName(name); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		names = append(names, name)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list metadata: %w", err)
	}
	slices.Sort(names)
	return names, nil
}

// WriteMetadata replaces metadata/<name> crash-safely, creating its
// parent directories.
func (d *Dir) WriteMetadata(ctx context.Context, name string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write metadata: %w", err)
	}
	if err := CheckMetadataName(name); err != nil {
		return fmt.Errorf("write metadata: %w", err)
	}
	if err := d.writable(); err != nil {
		return fmt.Errorf("write metadata %s: %w", name, err)
	}
	// Every blob written so far is durable before metadata (the catalog)
	// can name it.
	if err := d.syncDirty(""); err != nil {
		return fmt.Errorf("write metadata %s: %w", name, err)
	}
	p := metadataDir + "/" + name
	if err := d.root.MkdirAll(path.Dir(p), 0o755); err != nil {
		return fmt.Errorf("write metadata %s: %w", name, err)
	}
	if err := d.writeBytes(ctx, path.Dir(p), path.Base(p), data); err != nil {
		return fmt.Errorf("write metadata %s: %w", name, err)
	}
	return nil
}

// Quarantine writes the files, REASON and reason.json into a temp
// directory under quarantine/, then renames it to quarantine/<name>, or
// <name>.2, <name>.3, … when that exists. It returns that directory's
// location in the registry, "quarantine/<name>[.N]".
func (d *Dir) Quarantine(ctx context.Context, name, reason string, files map[string]io.Reader) (string, error) {
	if err := CheckQuarantineArgs(ctx, name, files); err != nil {
		return "", fmt.Errorf("quarantine: %w", err)
	}
	if err := d.writable(); err != nil {
		return "", fmt.Errorf("quarantine %s: %w", name, err)
	}
	now := time.Now
	if d.opts.Now != nil {
		now = d.opts.Now
	}
	rec := QuarantineRecord{Name: name, Reason: reason, Time: now().UTC(), Files: []QuarantineFile{}}
	tmp := quarantineDir + "/" + tempPrefix + randText()
	if err := d.root.MkdirAll(quarantineDir, 0o755); err != nil {
		return "", fmt.Errorf("quarantine %s: %w", name, err)
	}
	if err := d.root.Mkdir(tmp, 0o755); err != nil {
		return "", fmt.Errorf("quarantine %s: %w", name, err)
	}
	final, err := d.fillQuarantine(ctx, tmp, &rec, files)
	if err != nil {
		d.root.RemoveAll(tmp)
		return "", fmt.Errorf("quarantine %s: %w", name, err)
	}
	return final, nil
}

// CheckQuarantine checks the names Store.Quarantine is given: name is one
// element [A-Za-z0-9][A-Za-z0-9._-]* of at most 200 bytes (room for a
// ".N" suffix), not a Windows reserved name; every file name is one such
// element of at most 255 bytes, none is REASON or reason.json in any case,
// and no two differ only in case. Errors wrap ErrInvalidName.
func CheckQuarantine(name string, files []string) error {
	if err := checkElement(name); err != nil || len(name) > maxQuarantineName {
		return fmt.Errorf("quarantine name %q: want one element [A-Za-z0-9][A-Za-z0-9._-]* of at most %d bytes, not a reserved name: %w", name, maxQuarantineName, ErrInvalidName)
	}
	folded := make(map[string]string)
	for _, f := range files {
		if err := checkElement(f); err != nil {
			return fmt.Errorf("quarantine file %q: %v: %w", f, err, ErrInvalidName)
		}
		lf := strings.ToLower(f)
		if lf == strings.ToLower(ReasonFile) || lf == ReasonJSONFile {
			return fmt.Errorf("quarantine file %q: reserved for the reason: %w", f, ErrInvalidName)
		}
		if other, ok := folded[lf]; ok {
			return fmt.Errorf("quarantine files %q and %q differ only in case: %w", f, other, ErrInvalidName)
		}
		folded[lf] = f
	}
	return nil
}

func (d *Dir) fillQuarantine(ctx context.Context, tmp string, rec *QuarantineRecord, files map[string]io.Reader) (string, error) {
	for _, f := range slices.Sorted(maps.Keys(files)) {
		var qf QuarantineFile
		err := d.writeFile(ctx, tmp, f, files[f], func(n int64, sum string) error {
			qf = QuarantineFile{Name: f, Size: n, SHA256: sum}
			return nil
		})
		if err != nil {
			return "", err
		}
		rec.Files = append(rec.Files, qf)
	}
	text, record, err := rec.ReasonFiles()
	if err != nil {
		return "", err
	}
	if err := d.writeBytes(ctx, tmp, ReasonFile, text); err != nil {
		return "", err
	}
	if err := d.writeBytes(ctx, tmp, ReasonJSONFile, record); err != nil {
		return "", err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := 1; ; i++ {
		final := quarantineDir + "/" + rec.Name
		if i > 1 {
			final += "." + strconv.Itoa(i)
		}
		if _, err := d.root.Lstat(final); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if err := d.root.Rename(tmp, final); err != nil {
			return "", err
		}
		return final, d.syncDir(quarantineDir)
	}
}
