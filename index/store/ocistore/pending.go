package ocistore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/internal/strictjson"
)

// The records of unfinished writers (store.PendingWriter) in a
// registry: PREFIX/airvsx-pending holds one manifest per writer, tagged
// with its name, whose one layer is the record's JSON. A finished
// writer's record is replaced by one naming no repository (a tag can be
// moved where a registry may not allow deletes), which Pending leaves
// out.

const (
	pendingRepo = "airvsx-pending"
	// PendingArtifactType is the manifest of a writer's pending record.
	PendingArtifactType = "application/vnd.airvsx.pending.v1"
	pendingFile         = "pending.json"
	maxPending          = 64 << 20
)

// BeginPending records that the writer name writes into repos, adding
// them to a record of that name already there.
func (s *ociStore) BeginPending(ctx context.Context, name string, repos []string) error {
	if err := s.checkPending(ctx, name); err != nil {
		return err
	}
	for _, r := range repos {
		if err := store.CheckRepo(r); err != nil {
			return fmt.Errorf("pending record %s: %w", name, err)
		}
	}
	rec, err := s.readPending(ctx, name)
	if err != nil {
		return fmt.Errorf("pending record %s: %w", name, err)
	}
	if rec == nil || len(rec.Repos) == 0 {
		rec = &store.PendingRecord{Name: name, Started: s.now().UTC().Truncate(time.Second)}
	}
	rec.Repos = append(rec.Repos, repos...)
	slices.Sort(rec.Repos)
	rec.Repos = slices.Compact(rec.Repos)
	return s.writePending(ctx, rec)
}

// EndPending replaces the record name with one naming no repository.
func (s *ociStore) EndPending(ctx context.Context, name string) error {
	if err := s.checkPending(ctx, name); err != nil {
		return err
	}
	rec, err := s.readPending(ctx, name)
	if err != nil || rec == nil || len(rec.Repos) == 0 {
		return err
	}
	return s.writePending(ctx, &store.PendingRecord{Name: name, Started: rec.Started, Repos: []string{}})
}

// Pending reads every record that names a repository.
func (s *ociStore) Pending(ctx context.Context) ([]store.PendingRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tags, err := s.listTags(ctx, s.repoPath(pendingRepo))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pending records: %w", err)
	}
	slices.Sort(tags)
	var recs []store.PendingRecord
	for _, tag := range tags {
		if store.CheckWriterName(tag) != nil {
			continue
		}
		rec, err := s.readPending(ctx, tag)
		if err != nil {
			return nil, fmt.Errorf("pending record %s: %w", tag, err)
		}
		if rec != nil && len(rec.Repos) > 0 {
			recs = append(recs, *rec)
		}
	}
	return recs, nil
}

// readPending reads the record name; nil when there is none.
func (s *ociStore) readPending(ctx context.Context, name string) (*store.PendingRecord, error) {
	rpath := s.repoPath(pendingRepo)
	m, err := s.readFileSet(ctx, rpath, name)
	if err != nil || m == nil {
		return nil, err
	}
	if len(m.Layers) != 1 || m.Layers[0].Size > maxPending {
		return nil, fmt.Errorf("manifest %s of %s: not one record of at most %d bytes", name, rpath, maxPending)
	}
	l := m.Layers[0]
	body, _, err := s.getBlob(ctx, rpath, l.Digest)
	if err != nil {
		return nil, err
	}
	rc := store.VerifyReader(ctx, body, pendingRepo, l.Digest, l.Size)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, err
	}
	var rec store.PendingRecord
	if err := strictjson.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("%s: %w", pendingFile, err)
	}
	return &rec, nil
}

// writePending uploads rec and tags the manifest of it with its name.
func (s *ociStore) writePending(ctx context.Context, rec *store.PendingRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	rpath := s.repoPath(pendingRepo)
	d := index.DigestBytes(b)
	if err := s.putBlob(ctx, rpath, d, int64(len(b)), store.BytesContent(b)); err != nil {
		return fmt.Errorf("pending record %s: %w", rec.Name, err)
	}
	m := newFileSet(PendingArtifactType)
	m.Layers = append(m.Layers, fileDesc{MediaType: fileMediaType, Digest: d, Size: int64(len(b)), Annotations: map[string]string{titleAnnotation: pendingFile}})
	if err := s.writeFileSet(ctx, rpath, rec.Name, m); err != nil {
		return fmt.Errorf("pending record %s: %w", rec.Name, err)
	}
	return nil
}

// checkPending checks a record's writer name and that the store may
// write.
func (s *ociStore) checkPending(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := store.CheckWriterName(name); err != nil {
		return err
	}
	if err := s.writable(); err != nil {
		return fmt.Errorf("pending record %s: %w", name, err)
	}
	return nil
}
