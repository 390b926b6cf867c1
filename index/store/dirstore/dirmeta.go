package dirstore

import (
	"bytes"
	"context"
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

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
)

// ReadMetadata reads metadata/<name>, at most maxSize bytes.
func (d *dirStore) ReadMetadata(ctx context.Context, name string, maxSize int64) ([]byte, error) {
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
func (d *dirStore) ListMetadata(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list metadata: %w", err)
	}
	var names []string
	err := fs.WalkDir(newRootFS(d.root), metadataDir, func(p string, e fs.DirEntry, err error) error {
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
		if err := store.CheckMetadataName(name); err != nil {
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
//
// A file named by the sha256 of its bytes (targets/<hex>.<kind>.json: a
// catalog, a shard, a control list) is reached only through metadata that
// names it, written after it: it is made durable as a blob is, with that
// metadata's write (and Close), so that a copy's hundred changed shards
// cost one syncfs instead of two fsyncs each.
func (d *dirStore) WriteMetadata(ctx context.Context, name string, data []byte) error {
	p := metadataDir + "/" + name
	if contentNamed(name, data) {
		if err := d.root.MkdirAll(path.Dir(p), 0o755); err != nil {
			return fmt.Errorf("write metadata %s: %w", name, err)
		}
		if err := d.writeDeferred(ctx, d.dirAt(path.Dir(p)), path.Base(p), bytes.NewReader(data), nil); err != nil {
			return fmt.Errorf("write metadata %s: %w", name, err)
		}
		return nil
	}
	// Every blob and content-named file written so far is durable before
	// metadata (the catalog) can name it.
	if err := d.syncDirty(""); err != nil {
		return fmt.Errorf("write metadata %s: %w", name, err)
	}
	if err := d.root.MkdirAll(path.Dir(p), 0o755); err != nil {
		return fmt.Errorf("write metadata %s: %w", name, err)
	}
	if err := d.writeBytes(ctx, path.Dir(p), path.Base(p), data); err != nil {
		return fmt.Errorf("write metadata %s: %w", name, err)
	}
	return nil
}

// contentNamed reports whether the metadata file name is
// targets/<hex>.<kind>.json and hex is the sha256 of data.
func contentNamed(name string, data []byte) bool {
	rest, ok := strings.CutPrefix(name, "targets/")
	if !ok || len(rest) < 64+len(".x.json") || rest[64] != '.' || !strings.HasSuffix(rest, ".json") || strings.Contains(rest, "/") {
		return false
	}
	return rest[:64] == index.SHA256Hex(data)
}

// Quarantine writes the files, REASON and reason.json into a temp
// directory under quarantine/, then renames it to quarantine/<name>, or
// <name>.2, <name>.3, … when that exists. It returns that directory's
// location in the registry, "quarantine/<name>[.N]".
func (d *dirStore) Quarantine(ctx context.Context, name, reason string, files map[string]io.Reader) (string, error) {
	now := time.Now
	if d.opts.Now != nil {
		now = d.opts.Now
	}
	rec := store.QuarantineRecord{Name: name, Reason: reason, Time: now().UTC(), Files: []store.QuarantineFile{}}
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

func (d *dirStore) fillQuarantine(ctx context.Context, tmp string, rec *store.QuarantineRecord, files map[string]io.Reader) (string, error) {
	for _, f := range slices.Sorted(maps.Keys(files)) {
		var qf store.QuarantineFile
		err := d.writeFile(ctx, tmp, f, files[f], func(n int64, sum string) error {
			qf = store.QuarantineFile{Name: f, Size: n, SHA256: sum}
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
	if err := d.writeBytes(ctx, tmp, store.ReasonFile, text); err != nil {
		return "", err
	}
	if err := d.writeBytes(ctx, tmp, store.ReasonJSONFile, record); err != nil {
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
