package gitstore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/airvsx/airvsx/internal/atomicfile"
	"github.com/airvsx/airvsx/internal/copybuf"
)

// journalFile records the change being written (in the git directory), so
// that a writer killed before Commit leaves its work for the next one: a
// header line "airvsx change 1 <base commit> <branch>", then one line
// "<object> <path>" per file written. A writer that opens on the same
// branch at the same commit takes the change over (each object read and
// hashed again first, since objects are made durable only at Commit); any
// other writer starts afresh. Commit removes it.
const journalFile = "airvsx-change"

const journalHeader = "airvsx change 1"

// openJournal takes over the change a killed writer left, when it was
// made on the branch and commit this writer starts from, and opens the
// journal for appending. The caller owns s.
func (s *gitStore) openJournal() error {
	p := filepath.Join(s.gitDir, journalFile)
	head := fmt.Sprintf("%s %s %s\n", journalHeader, s.head, s.branch)
	data, err := os.ReadFile(p)
	switch {
	case os.IsNotExist(err):
	case err != nil:
		return err
	case bytes.HasPrefix(data, []byte(head)):
		n := 0
		sc := bufio.NewScanner(bytes.NewReader(data[len(head):]))
		for sc.Scan() {
			hx, name, ok := strings.Cut(sc.Text(), " ")
			if !ok || len(hx) != 40 || path.Clean(name) != name || strings.HasPrefix(name, "/") || strings.HasPrefix(name, "../") {
				continue // a torn last line, or damage
			}
			h := plumbing.NewHash(hx)
			if h.String() != hx || s.checkObject(h) != nil {
				continue
			}
			s.setPendingOnly(name, h)
			n++
		}
		if n > 0 {
			s.log.Info("took over an uncommitted change", "files", n)
		}
	default:
		s.log.Debug("dropped an uncommitted change made from another commit", "path", p)
	}
	return s.rewriteJournal()
}

// checkObject reads blob h whole and checks it hashes to h.
func (s *gitStore) checkObject(h plumbing.Hash) error {
	r, size, err := s.openBlob(h)
	if err != nil {
		return err
	}
	defer r.Close()
	hasher := plumbing.NewHasher(plumbing.BlobObject, size)
	n, err := copybuf.Copy(hasher, r)
	if err != nil {
		return err
	}
	if n != size || hasher.Sum() != h {
		return fmt.Errorf("object %s: %w", h, ErrDamaged)
	}
	return nil
}

// rewriteJournal replaces the journal with the change as it stands. The
// caller holds s.mu or owns s.
func (s *gitStore) rewriteJournal() error {
	p := filepath.Join(s.gitDir, journalFile)
	if s.journal != nil {
		s.journal.Close()
		s.journal = nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s %s\n", journalHeader, s.head, s.branch)
	for name, h := range s.pending {
		fmt.Fprintf(&b, "%s %s\n", h, name)
	}
	// A fixed temp name, so that one a killed writer left is replaced
	// here rather than kept.
	tmp := p + ".tmp"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	t, err := atomicfile.FS{}.CreateNamed(tmp, 0o644)
	if err != nil {
		return err
	}
	defer t.Cleanup()
	if _, err := t.Write(b.Bytes()); err != nil {
		return err
	}
	if err := t.Commit(p); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	s.journal = f
	return nil
}

// journalAppend records one write; the caller holds s.mu. A journal that
// cannot be written costs only the take-over after a kill, so the error
// is logged, not returned.
func (s *gitStore) journalAppend(name string, h plumbing.Hash) {
	if s.journal == nil {
		return
	}
	if _, err := fmt.Fprintf(s.journal, "%s %s\n", h, name); err != nil {
		s.log.Warn("cannot record the change; a killed run will not be taken over", "err", err)
		s.journal.Close()
		s.journal = nil
	}
}
