package gitstore

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/airvsx/airvsx/index/store"
)

// maxMetadataDepth is the most directories a metadata name has (it has at
// most 8 elements).
const maxMetadataDepth = 7

// ReadMetadata reads metadata/<name>, at most maxSize bytes (the object's
// size is checked before it is read).
func (s *gitStore) ReadMetadata(ctx context.Context, name string, maxSize int64) ([]byte, error) {
	if maxSize < 0 {
		return nil, fmt.Errorf("read metadata %s: negative maxSize %d", name, maxSize)
	}
	data, err := s.readFile(metadataDir+"/"+name, maxSize)
	if err != nil {
		return nil, fmt.Errorf("read metadata %s: %w", name, err)
	}
	return data, nil
}

// ListMetadata lists the files under metadata/. A name that is not a
// valid metadata name, or an entry that is neither a regular file nor a
// directory, is an error naming it.
func (s *gitStore) ListMetadata(ctx context.Context) ([]string, error) {
	var names []string
	var walk func(dir, rel string, depth int) error
	walk = func(dir, rel string, depth int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if depth > maxMetadataDepth {
			return fmt.Errorf("%s: deeper than any metadata name: %w", dir, store.ErrInvalidName)
		}
		entries, err := s.list(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			name := e.name
			if rel != "" {
				name = rel + "/" + e.name
			}
			if e.isDir {
				if err := walk(dir+"/"+e.name, name, depth+1); err != nil {
					return err
				}
				continue
			}
			if e.mode != 0o100644 && e.mode != 0o100755 {
				return fmt.Errorf("%s/%s: mode %s: %w", dir, e.name, e.mode, errNotFile)
			}
			if err := store.CheckMetadataName(name); err != nil {
				return fmt.Errorf("%s/%s: %w", dir, e.name, err)
			}
			names = append(names, name)
		}
		return nil
	}
	if err := walk(metadataDir, "", 0); err != nil {
		return nil, fmt.Errorf("list metadata: %w", err)
	}
	slices.Sort(names)
	return names, nil
}

// WriteMetadata replaces metadata/<name> in the change.
func (s *gitStore) WriteMetadata(ctx context.Context, name string, data []byte) error {
	if err := s.putFiles(ctx, map[string][]byte{metadataDir + "/" + name: data}); err != nil {
		return fmt.Errorf("write metadata %s: %w", name, err)
	}
	return nil
}

// Quarantine adds the files, REASON and reason.json to the change under
// quarantine/<name>, or <name>.2, <name>.3, … when that is taken, and
// returns that location. Files of unknown size are spooled to a temp file
// in the git directory first.
func (s *gitStore) Quarantine(ctx context.Context, name, reason string, files map[string]io.Reader) (string, error) {
	rec := store.QuarantineRecord{Name: name, Reason: reason, Time: s.opts.Now().UTC(), Files: []store.QuarantineFile{}}
	hashes := map[string]plumbing.Hash{}
	for _, f := range slices.Sorted(maps.Keys(files)) {
		h, qf, err := s.spool(ctx, f, files[f])
		if err != nil {
			return "", fmt.Errorf("quarantine %s: %w", name, err)
		}
		hashes[f] = h
		rec.Files = append(rec.Files, qf)
	}
	text, record, err := rec.ReasonFiles()
	if err != nil {
		return "", fmt.Errorf("quarantine %s: %w", name, err)
	}
	for f, data := range map[string][]byte{store.ReasonFile: text, store.ReasonJSONFile: record} {
		h, err := s.writeBytes(data)
		if err != nil {
			return "", fmt.Errorf("quarantine %s: %w", name, err)
		}
		hashes[f] = h
	}
	s.idxMu.Lock()
	defer s.idxMu.Unlock()
	for i := 1; ; i++ {
		final := quarantineDir + "/" + name
		if i > 1 {
			final += "." + strconv.Itoa(i)
		}
		if entries, err := s.list(final); err != nil {
			return "", fmt.Errorf("quarantine %s: %w", name, err)
		} else if len(entries) > 0 {
			continue
		}
		if _, ok, err := s.lookup(final); err != nil || ok {
			continue // a file of that name
		}
		s.mu.Lock()
		for f, h := range hashes {
			s.setPending(final+"/"+f, h)
		}
		s.mu.Unlock()
		return final, nil
	}
}

// spool writes one quarantined file of unknown size as a blob: to a temp
// file first (for its size), then as an object.
func (s *gitStore) spool(ctx context.Context, name string, r io.Reader) (plumbing.Hash, store.QuarantineFile, error) {
	f, err := os.CreateTemp(filepath.Join(s.gitDir, "objects"), tempPrefix+"spool-")
	if err != nil {
		return plumbing.ZeroHash, store.QuarantineFile{}, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	n, err := io.Copy(f, store.ContextReader(ctx, r))
	if err != nil {
		return plumbing.ZeroHash, store.QuarantineFile{}, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return plumbing.ZeroHash, store.QuarantineFile{}, err
	}
	qf := store.QuarantineFile{Name: name, Size: n}
	h, err := s.writeObject(ctx, plumbing.BlobObject, n, f, func(_ int64, sum string) error {
		qf.SHA256 = sum
		return nil
	})
	return h, qf, err
}
