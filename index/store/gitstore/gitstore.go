package gitstore

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/internal/flock"
	"github.com/airvsx/airvsx/internal/madedir"
)

// largeObject is the size above which an object is streamed from disk
// rather than read into memory.
const largeObject = 1 << 20

// lockFile is the writer's lock, in the git directory.
const lockFile = "airvsx.lock"

// Options configure Open. The zero value opens an existing repository
// read-only at HEAD.
type Options struct {
	// Ref is the branch, tag or commit to read ("main", "refs/tags/v1", a
	// commit ID). Writers take a branch only. Default "": HEAD (for
	// writers, the branch HEAD points at, born or not).
	Ref string
	// Write opens for writing: takes the writer lock and allows Commit.
	// Default false: read-only, every write fails with store.ErrReadOnly.
	Write bool
	// Create makes a new repository when the path does not exist or is an
	// empty directory: bare when the path ends in ".git", else with a work
	// tree. Only with Write. Default false.
	Create bool
	// Signer signs every commit (the operator's ECDSA P-256 key). Commit
	// fails without one. Default nil.
	Signer signature.Signer
	// Name and Email are the author and committer of every commit.
	// Default "": git's user.name and user.email (the repository's
	// config, then the user's), else "airvsx" <airvsx@localhost>.
	Name, Email string
	// Now is the commit time of a change that writes no catalog, and the
	// clock of quarantine records. Default nil: time.Now.
	Now func() time.Time
	// Logger receives debug and warning records. Default nil: discard.
	Logger *slog.Logger
}

// gitStore is the git store itself, unchecked: Open wraps it in
// store.Checked (see Store).
type gitStore struct {
	path     string
	gitDir   string
	workTree string // "" for a bare repository
	opts     Options
	log      *slog.Logger
	st       *filesystem.Storage
	lock     *os.File
	branch   plumbing.ReferenceName // writers: the branch Commit moves

	mu      sync.Mutex
	head    plumbing.Hash            // the commit read (zero before the first)
	root    plumbing.Hash            // its tree (zero before the first)
	pending map[string]plumbing.Hash // path → blob written since the last Commit
	// kids indexes pending by directory: dir ("" for the root) → the
	// names in it that pending holds or leads through (true for a
	// directory).
	kids map[string]map[string]bool
	// written lists the object files written since the last Commit, where
	// syncObjects fsyncs them one by one (not on Linux).
	//lint:ignore U1000 used where there is no syncfs(2) (sync_other.go).
	written []string
	journal *os.File // writers: the change's journal (journal.go), open for appending

	idxMu sync.Mutex // serializes read-modify-write of index.json and quarantine names

	trees treeCache

	// created is the outermost directory this open made for a new
	// repository (its own, or a missing parent): "" when the repository
	// existed (Discard).
	created string
}

var _ store.Store = (*gitStore)(nil)

// openGit opens the registry in the git repository at path, unchecked
// (Open).
func openGit(path string, opts Options) (*gitStore, error) {
	if opts.Create && !opts.Write {
		return nil, fmt.Errorf("open git registry %s: Create needs Write", path)
	}
	s := &gitStore{path: path, opts: opts, log: opts.Logger, pending: map[string]plumbing.Hash{}, kids: map[string]map[string]bool{}}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.opts.Now == nil {
		s.opts.Now = time.Now
	}
	if err := s.open(); err != nil {
		s.Close()
		return nil, fmt.Errorf("open git registry %s: %w", path, err)
	}
	return s, nil
}

func (s *gitStore) open() error {
	gitDir, workTree, err := findRepo(s.path)
	if errors.Is(err, fs.ErrNotExist) && s.opts.Create {
		s.created = madedir.Missing(s.path)
		gitDir, workTree, err = initRepo(s.path)
	}
	if err != nil {
		return err
	}
	s.gitDir, s.workTree = gitDir, workTree
	// No object cache: every read comes from the repository as it is
	// now (trees are cached by the store, checked once).
	s.st = filesystem.NewStorageWithOptions(osfs.New(gitDir), cache.NewObjectLRU(0),
		filesystem.Options{LargeObjectThreshold: largeObject, KeepDescriptors: false})
	if s.opts.Write {
		f, err := os.OpenFile(filepath.Join(gitDir, lockFile), os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		s.lock = f
		if err := flock.TryLock(f, store.ErrLocked); err != nil {
			return err
		}
		removeTemps(gitDir, s.log)
	}
	head, branch, err := s.resolve()
	if err != nil {
		return err
	}
	s.branch = branch
	if !head.IsZero() {
		if err := s.setHead(head); err != nil {
			return err
		}
	}
	if s.head.IsZero() && !s.opts.Write {
		return fmt.Errorf("no commit at %s: %w", s.refName(), store.ErrNotRegistry)
	}
	if !s.root.IsZero() {
		if _, ok, err := s.lookup(artifact.MarkerFile); err != nil {
			return err
		} else if !ok {
			return fmt.Errorf("commit %s has no %s file: %w", s.head, artifact.MarkerFile, store.ErrNotRegistry)
		}
	} else {
		h, err := s.writeBytes(markerBytes())
		if err != nil {
			return err
		}
		s.setPendingOnly(artifact.MarkerFile, h)
	}
	if s.opts.Write {
		if err := s.openJournal(); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
	}
	return nil
}

// setHead makes the store read commit h.
func (s *gitStore) setHead(h plumbing.Hash) error {
	c, err := s.readCommit(h)
	if err != nil {
		return err
	}
	s.head, s.root = h, c.TreeHash
	return nil
}

func (s *gitStore) refName() string {
	if s.opts.Ref == "" {
		return "HEAD"
	}
	return s.opts.Ref
}

// findRepo returns the git directory and the work tree ("" for a bare
// repository) of the repository at path.
func findRepo(path string) (gitDir, workTree string, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", "", err
	}
	if !fi.IsDir() {
		return "", "", fmt.Errorf("not a directory: %w", store.ErrNotRegistry)
	}
	if fi, err := os.Stat(filepath.Join(path, ".git")); err == nil && fi.IsDir() {
		return filepath.Join(path, ".git"), path, nil
	}
	if isGitDir(path) {
		return path, "", nil
	}
	entries, err := os.ReadDir(path)
	if err == nil && len(entries) == 0 {
		return "", "", fs.ErrNotExist // empty: may be created
	}
	return "", "", fmt.Errorf("not a git repository (no .git, no HEAD and objects): %w", store.ErrNotRegistry)
}

func isGitDir(dir string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return false
		}
	}
	return true
}

// initRepo makes a new repository at path, as git init does: bare when
// the path ends in ".git", else with a work tree. HEAD names refs/heads/main.
func initRepo(path string) (gitDir, workTree string, err error) {
	bare := strings.HasSuffix(filepath.Base(filepath.Clean(path)), ".git")
	gitDir = path
	if !bare {
		gitDir, workTree = filepath.Join(path, ".git"), path
	}
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags"} {
		if err := os.MkdirAll(filepath.Join(gitDir, d), 0o755); err != nil {
			return "", "", err
		}
	}
	config := fmt.Sprintf("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = %t\n", bare)
	if !bare {
		config += "\tlogallrefupdates = true\n"
	}
	for name, data := range map[string]string{"config": config, "description": "an airvsx registry\n"} {
		if err := os.WriteFile(filepath.Join(gitDir, name), []byte(data), 0o644); err != nil {
			return "", "", err
		}
	}
	// HEAD last: its presence makes the directory a repository.
	if err := os.WriteFile(filepath.Join(gitDir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		return "", "", err
	}
	return gitDir, workTree, nil
}

// resolve finds the commit to read and, for writers, the branch to move.
func (s *gitStore) resolve() (plumbing.Hash, plumbing.ReferenceName, error) {
	ref := s.opts.Ref
	if ref == "" || ref == "HEAD" {
		r, err := s.st.Reference(plumbing.HEAD)
		if err != nil {
			return plumbing.ZeroHash, "", fmt.Errorf("read HEAD: %w", err)
		}
		if r.Type() == plumbing.HashReference {
			if s.opts.Write {
				return plumbing.ZeroHash, "", errors.New("HEAD is detached; name the branch to write: git:PATH#BRANCH")
			}
			return r.Hash(), "", nil
		}
		h, err := s.refHash(r.Target())
		return h, r.Target(), err
	}
	names := []plumbing.ReferenceName{plumbing.ReferenceName(ref), plumbing.NewBranchReferenceName(ref), plumbing.NewTagReferenceName(ref)}
	if !strings.HasPrefix(ref, "refs/") {
		names = names[1:]
	}
	for _, n := range names {
		r, err := s.st.Reference(n)
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			continue
		}
		if err != nil {
			return plumbing.ZeroHash, "", fmt.Errorf("read %s: %w", n, err)
		}
		if s.opts.Write && !n.IsBranch() {
			return plumbing.ZeroHash, "", fmt.Errorf("%s is not a branch; a writer moves a branch", n)
		}
		h, err := s.peel(r.Hash())
		return h, n, err
	}
	if len(ref) == 40 {
		if _, err := hex.DecodeString(ref); err == nil {
			if s.opts.Write {
				return plumbing.ZeroHash, "", fmt.Errorf("%s is a commit; a writer moves a branch", ref)
			}
			return plumbing.NewHash(ref), "", nil
		}
	}
	return plumbing.ZeroHash, "", fmt.Errorf("no branch, tag or commit %q: %w", ref, fs.ErrNotExist)
}

// refHash returns the commit a reference names, zero for an unborn branch.
func (s *gitStore) refHash(n plumbing.ReferenceName) (plumbing.Hash, error) {
	r, err := s.st.Reference(n)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read %s: %w", n, err)
	}
	return s.peel(r.Hash())
}

// peel turns an annotated tag into the commit it names.
func (s *gitStore) peel(h plumbing.Hash) (plumbing.Hash, error) {
	for range 8 {
		o, err := s.st.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("object %s: %w", h, err)
		}
		if o.Type() != plumbing.TagObject {
			return h, nil
		}
		t, err := readTag(o)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		h = t
	}
	return plumbing.ZeroHash, fmt.Errorf("tag %s: too deeply nested", h)
}

// Close releases the repository and the writer lock. Writes not
// committed are dropped (their objects stay, unreferenced).
func (s *gitStore) Close() error {
	var errs []error
	if s.st != nil {
		errs = append(errs, s.st.Close())
	}
	if s.journal != nil {
		errs = append(errs, s.journal.Close())
		s.journal = nil
	}
	if s.lock != nil {
		errs = append(errs, s.lock.Close())
		s.lock = nil
	}
	return errors.Join(errs...)
}

// Discard removes a repository this open created (Create, on a path
// that did not exist) while it holds no commit and nothing written but
// its marker: for a writer whose first sync or copy failed before it
// stored anything, so that the failure leaves nothing behind. The
// repository's directory and the missing parents made for it go, never a
// directory that existed before; the writer lock (a file in the
// repository) is held until the repository is gone. It reports whether
// it removed the repository; the Store must still be closed.
func (s *gitStore) Discard() (bool, error) {
	s.mu.Lock()
	empty := s.created != "" && s.lock != nil && s.head.IsZero() && len(s.pending) <= 1
	if _, marker := s.pending[artifact.MarkerFile]; len(s.pending) == 1 && !marker {
		empty = false
	}
	s.mu.Unlock()
	if !empty {
		return false, nil
	}
	if err := os.RemoveAll(s.path); err != nil {
		return false, fmt.Errorf("discard git registry %s: %w", s.path, err)
	}
	if err := madedir.Remove(s.path, s.created); err != nil { // the parents made for it
		return true, fmt.Errorf("discard git registry %s: %w", s.path, err)
	}
	s.created = ""
	return true, nil
}

// Path returns the path the store was opened at.
func (s *gitStore) Path() string { return s.path }

// GitDir returns the repository's git directory.
func (s *gitStore) GitDir() string { return s.gitDir }

// Head returns the commit the store reads (after a Commit, the new one);
// zero before the first commit.
func (s *gitStore) Head() plumbing.Hash {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.head
}

func (s *gitStore) writable() error {
	if !s.opts.Write {
		return store.ErrReadOnly
	}
	return nil
}

// markerBytes is the content of the marker file, as the directory store writes it.
func markerBytes() []byte {
	return []byte(fmt.Sprintf(`{"kind":"airvsx-registry","format":%d}`+"\n", artifact.DirFormat))
}

// setPending records a write of blob h at path in the change and in its
// journal; the caller holds s.mu (or owns s alone).
func (s *gitStore) setPending(path string, h plumbing.Hash) {
	s.journalAppend(path, h)
	s.setPendingOnly(path, h)
}

// setPendingOnly is setPending without the journal.
func (s *gitStore) setPendingOnly(path string, h plumbing.Hash) {
	s.pending[path] = h
	dir, name, isDir := "", path, false
	for {
		i := strings.LastIndexByte(name, '/')
		if i >= 0 {
			dir, name = name[:i], name[i+1:]
		} else {
			dir = ""
		}
		if s.kids[dir] == nil {
			s.kids[dir] = map[string]bool{}
		}
		if seen, ok := s.kids[dir][name]; ok && seen == isDir {
			return // its parents are recorded already
		}
		s.kids[dir][name] = isDir
		if dir == "" {
			return
		}
		name, isDir = dir, true
	}
}
