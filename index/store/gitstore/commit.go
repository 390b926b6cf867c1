package gitstore

import (
	"bytes"
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/internal/atomicfile"
)

// maxListed is how many added or removed tags a commit message names.
const maxListed = 50

// Commit records every write since the last Commit as one signed commit
// on the branch (see the package comment) and returns once the branch
// names it. The message is message, then the tags the change added and
// removed. A change that writes nothing makes no commit.
func (s *gitStore) Commit(ctx context.Context, message string) error {
	if err := s.writable(); err != nil {
		return err
	}
	if s.opts.Signer == nil {
		return errors.New("no signing key: every commit of a git registry is signed")
	}
	s.idxMu.Lock() // no write changes the change while it is committed
	defer s.idxMu.Unlock()
	s.mu.Lock()
	changes := maps.Clone(s.pending)
	base, root := s.head, s.root
	s.mu.Unlock()
	if len(changes) == 0 {
		return nil
	}
	tree, err := s.buildTree(ctx, root, changes)
	if err != nil {
		return fmt.Errorf("write trees: %w", err)
	}
	if tree == root {
		s.clearPending(changes)
		return nil
	}
	when, err := s.commitTime(changes)
	if err != nil {
		return err
	}
	summary, err := s.tagChanges(root, changes)
	if err != nil {
		return err
	}
	name, email := s.identity()
	sig := object.Signature{Name: name, Email: email, When: when}
	c := &object.Commit{Author: sig, Committer: sig, Message: commitMessage(message, summary), TreeHash: tree}
	if !base.IsZero() {
		c.ParentHashes = []plumbing.Hash{base}
	}
	if err := signCommit(c, s.opts.Signer); err != nil {
		return err
	}
	mo := &plumbing.MemoryObject{}
	if err := c.Encode(mo); err != nil {
		return fmt.Errorf("encode commit: %w", err)
	}
	r, _ := mo.Reader()
	data, _ := io.ReadAll(r)
	h, err := s.writeObject(ctx, plumbing.CommitObject, int64(len(data)), bytes.NewReader(data), nil)
	if err != nil {
		return fmt.Errorf("write commit: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// Every object the commit names is durable before the branch moves.
	if err := s.syncObjects(); err != nil {
		return fmt.Errorf("sync objects: %w", err)
	}
	if err := s.moveBranch(base, h); err != nil {
		return err
	}
	s.mu.Lock()
	s.head, s.root = h, tree
	s.mu.Unlock()
	s.clearPending(changes)
	s.log.Info("committed", "commit", h.String(), "branch", s.branch.Short(), "files", len(changes))
	if s.workTree != "" {
		if err := s.updateWorkTree(ctx, changes); err != nil {
			return fmt.Errorf("commit %s made; the work tree is not in step (git reset --hard fixes it): %w", h, err)
		}
	}
	return nil
}

// clearPending drops the committed writes (those written again since
// stay).
func (s *gitStore) clearPending(done map[string]plumbing.Hash) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, h := range done {
		if s.pending[p] == h {
			delete(s.pending, p)
		}
	}
	s.kids = map[string]map[string]bool{}
	for p, h := range s.pending {
		s.setPendingOnly(p, h)
	}
	if s.journal != nil {
		if err := s.rewriteJournal(); err != nil {
			s.log.Warn("cannot record the change; a killed run will not be taken over", "err", err)
		}
	}
}

// commitTime is the created time of the catalog the change writes (of
// the highest serial, when it writes several: a copy carries the earlier
// catalogs too, and the newest is the one the metadata signs), so the
// same change makes the same commit; else the clock.
func (s *gitStore) commitTime(changes map[string]plumbing.Hash) (time.Time, error) {
	var when time.Time
	serial := int64(-1)
	for _, p := range slices.Sorted(maps.Keys(changes)) {
		if !strings.HasPrefix(p, metadataDir+"/targets/") || !strings.HasSuffix(p, ".catalog.json") {
			continue
		}
		data, err := s.readFile(p, 1<<30)
		if err != nil {
			return time.Time{}, err
		}
		var cat struct {
			Serial  int64     `json:"serial"`
			Created time.Time `json:"created"`
		}
		if err := json.Unmarshal(data, &cat); err == nil && !cat.Created.IsZero() && cat.Serial > serial {
			when, serial = cat.Created.UTC(), cat.Serial
		}
	}
	if serial >= 0 {
		return when, nil
	}
	return s.opts.Now().UTC().Truncate(time.Second), nil
}

// tagChanges lists the tags the change adds and removes, as
// "added <repo>:<tag>" and "removed <repo>:<tag>" lines, sorted.
func (s *gitStore) tagChanges(root plumbing.Hash, changes map[string]plumbing.Hash) ([]string, error) {
	var lines []string
	for p, h := range changes {
		rest, ok := strings.CutPrefix(p, extensionsDir+"/")
		if !ok || !strings.HasSuffix(rest, "/"+indexFile) || strings.Count(rest, "/") != 2 {
			continue
		}
		repo := strings.TrimSuffix(rest, "/"+indexFile)
		old := map[string]string{}
		if oh, ok, err := s.lookupIn(root, p); err != nil {
			return nil, err
		} else if ok {
			for _, t := range s.decodeIndexObject(oh) {
				old[t.Tag] = t.Manifest.Digest
			}
		}
		now := map[string]string{}
		for _, t := range s.decodeIndexObject(h) {
			now[t.Tag] = t.Manifest.Digest
		}
		for tag, d := range now {
			switch od, ok := old[tag]; {
			case !ok:
				lines = append(lines, "added "+repo+":"+tag)
			case od != d:
				lines = append(lines, "replaced "+repo+":"+tag)
			}
		}
		for tag := range old {
			if _, ok := now[tag]; !ok {
				lines = append(lines, "removed "+repo+":"+tag)
			}
		}
	}
	slices.Sort(lines)
	return lines, nil
}

// decodeIndexObject decodes an index.json blob; nil when it does not
// decode (the message is a summary, not a check).
func (s *gitStore) decodeIndexObject(h plumbing.Hash) []store.TagEntry {
	o, err := s.st.EncodedObject(plumbing.BlobObject, h)
	if err != nil || o.Size() > artifact.MaxIndexBytes {
		return nil
	}
	r, err := o.Reader()
	if err != nil {
		return nil
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil
	}
	tags, _ := artifact.DecodeIndex(data)
	return tags
}

// commitMessage is the writer's message, then the tag changes.
func commitMessage(message string, summary []string) string {
	msg := strings.TrimRight(message, "\n") + "\n"
	if len(summary) == 0 {
		return msg
	}
	if !strings.Contains(msg, "\n\n") {
		msg += "\n"
	} else {
		msg += "\n"
	}
	for i, l := range summary {
		if i == maxListed {
			msg += fmt.Sprintf("and %d more\n", len(summary)-maxListed)
			break
		}
		msg += l + "\n"
	}
	return msg
}

// moveBranch points the branch at h, if it still names old: it writes
// <ref>.lock exclusively (as git does, so a git running at the same time
// and this writer exclude each other), fsyncs it and renames it over the
// ref. The rename is the commit point.
func (s *gitStore) moveBranch(old, h plumbing.Hash) error {
	if s.branch == "" {
		return errors.New("no branch to move")
	}
	cur, err := s.refHash(s.branch)
	if err != nil {
		return err
	}
	if cur != old {
		return fmt.Errorf("branch %s moved from %s to %s while this change was written; run again", s.branch.Short(), old, cur)
	}
	ref := filepath.Join(s.gitDir, filepath.FromSlash(string(s.branch)))
	if err := os.MkdirAll(filepath.Dir(ref), 0o755); err != nil {
		return err
	}
	lock := ref + ".lock"
	intent := filepath.Join(s.gitDir, branchIntentFile)
	if err := s.dropOwnLock(lock, intent); err != nil {
		return err
	}
	// What this writer is about to lock, before it does: a run killed
	// between the lock and the rename leaves both, and the next writer
	// (the only one: it holds airvsx.lock) knows the lock for its own.
	// Not fsynced: a record lost or cut short in a crash names no lock,
	// and the lock is then refused as before.
	if err := os.WriteFile(intent, []byte(lock+"\n"+h.String()+"\n"), 0o644); err != nil {
		return fmt.Errorf("lock branch %s: %w", s.branch.Short(), err)
	}
	defer os.Remove(intent)
	t, err := atomicfile.FS{}.CreateNamed(lock, 0o644)
	if err != nil {
		return fmt.Errorf("lock branch %s: %w (if no git runs here, remove %s)", s.branch.Short(), err, lock)
	}
	defer t.Cleanup()
	_, err = io.WriteString(t, h.String()+"\n")
	if err == nil {
		err = t.Sync()
	}
	if err == nil {
		err = t.Rename(ref)
	}
	if err != nil {
		return fmt.Errorf("move branch %s: %w", s.branch.Short(), err)
	}
	// The rename was the commit point: a directory that cannot be
	// fsynced does not undo it.
	atomicfile.SyncDir(filepath.Dir(ref))
	return nil
}

// branchIntentFile, in the git directory, names the branch lock a writer
// is about to take and the commit it moves the branch to (moveBranch).
const branchIntentFile = "airvsx-branch-intent"

// dropOwnLock removes the branch lock a killed run of this writer left:
// the intent file names it, and it holds the commit the intent names, or
// a first part of it (killed while writing it). Any other lock is a git
// at work, or left by one, and is kept (moveBranch then refuses, naming
// it).
func (s *gitStore) dropOwnLock(lock, intent string) error {
	held, err := os.ReadFile(lock)
	if err != nil {
		return nil // no lock, or one moveBranch's own create reports
	}
	rec, err := os.ReadFile(intent)
	if err != nil {
		return nil
	}
	name, hash, ok := strings.Cut(strings.TrimSuffix(string(rec), "\n"), "\n")
	if !ok || name != lock || len(hash) != 40 || !strings.HasPrefix(hash+"\n", string(held)) {
		return nil
	}
	if err := os.Remove(lock); err != nil {
		return fmt.Errorf("remove the lock a killed run left on branch %s: %w", s.branch.Short(), err)
	}
	s.log.Warn("removed the branch lock a killed airvsx run left", "lock", lock, "commit", hash)
	return nil
}

// Revision returns the commit read, as hex; "" before the first commit.
func (s *gitStore) Revision() string {
	h := s.Head()
	if h.IsZero() {
		return ""
	}
	return h.String()
}

// CheckSignature checks that the commit read is signed by one of keys
// (VerifyCommit).
func (s *gitStore) CheckSignature(ctx context.Context, keys []crypto.PublicKey) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	h := s.Head()
	if h.IsZero() {
		return fmt.Errorf("no commit: %w", ErrUnsigned)
	}
	c, err := s.readCommit(h)
	if err != nil {
		return err
	}
	return VerifyCommit(c, keys)
}

// Descends reports whether the commit read is old or descends from it;
// false when old is not in the repository at all (a history rewritten and
// collected).
func (s *gitStore) Descends(ctx context.Context, old string) (bool, error) {
	if len(old) != 40 {
		return false, fmt.Errorf("revision %q is not a commit ID", old)
	}
	want := plumbing.NewHash(old)
	if want.String() != old {
		return false, fmt.Errorf("revision %q is not a commit ID", old)
	}
	// Breadth first over the parents, each commit once.
	seen := map[plumbing.Hash]bool{}
	queue := []plumbing.Hash{s.Head()}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		h := queue[0]
		queue = queue[1:]
		if h == want {
			return true, nil
		}
		if h.IsZero() || seen[h] {
			continue
		}
		seen[h] = true
		c, err := s.readCommit(h)
		if err != nil {
			return false, err
		}
		queue = append(queue, c.ParentHashes...)
	}
	return false, nil
}

// Parent returns the first parent of the commit read, as hex; "" for a
// first commit.
func (s *gitStore) Parent() (string, error) {
	h := s.Head()
	if h.IsZero() {
		return "", nil
	}
	c, err := s.readCommit(h)
	if err != nil {
		return "", err
	}
	if len(c.ParentHashes) == 0 {
		return "", nil
	}
	return c.ParentHashes[0].String(), nil
}
