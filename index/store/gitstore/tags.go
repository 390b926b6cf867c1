package gitstore

import (
	"context"
	"fmt"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
)

// readIndex reads repo's index.json as the change sees it.
func (s *gitStore) readIndex(repo string) ([]store.TagEntry, error) {
	p := repoDir(repo) + "/" + indexFile
	data, err := s.readFile(p, artifact.MaxIndexBytes)
	if err != nil {
		return nil, err
	}
	tags, err := artifact.DecodeIndex(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return tags, nil
}

func (s *gitStore) writeIndex(ctx context.Context, repo string, tags []store.TagEntry) error {
	data, err := artifact.EncodeIndex(tags)
	if err != nil {
		return err
	}
	return s.putFiles(ctx, map[string][]byte{repoDir(repo) + "/" + indexFile: data})
}

// Tag points tag at a manifest already in repo, rewriting index.json in
// the change. The descriptor's annotations are kept.
func (s *gitStore) Tag(ctx context.Context, repo, tag string, m store.Descriptor) error {
	if err := artifact.CheckTagTarget(ctx, s, repo, m); err != nil {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, err)
	}
	s.idxMu.Lock()
	defer s.idxMu.Unlock()
	return artifact.TagIndex(ctx, repo, tag, m, s.readIndex, s.writeIndex)
}

// Tags lists repo's tags from its index.json (read strictly, at most
// store.MaxIndexBytes).
func (s *gitStore) Tags(ctx context.Context, repo string) ([]store.TagEntry, error) {
	return artifact.TagsFromIndex(ctx, repo, s.readIndex)
}

// Untag removes tag from repo's index.json in the change.
func (s *gitStore) Untag(ctx context.Context, repo, tag string) error {
	s.idxMu.Lock()
	defer s.idxMu.Unlock()
	return artifact.UntagIndex(ctx, repo, tag, s.readIndex, s.writeIndex)
}

// Repos lists the repositories under extensions/ that have an index.json.
// Names that are not valid repositories are skipped with a warning.
func (s *gitStore) Repos(ctx context.Context) ([]string, error) {
	return artifact.ReposFromDirs(ctx, s.log, s.listDir, func(repo string) bool {
		_, ok, err := s.lookup(repoDir(repo) + "/" + indexFile)
		return err == nil && ok
	})
}

// listDir is list for store.ReposFromDirs.
func (s *gitStore) listDir(dir string) ([]artifact.DirEntry, error) {
	entries, err := s.list(dir)
	if err != nil {
		return nil, err
	}
	out := make([]artifact.DirEntry, len(entries))
	for i, e := range entries {
		out[i] = artifact.DirEntry{Name: e.name, IsDir: e.isDir}
	}
	return out, nil
}
