package gitstore_test

import (
	"context"
	"crypto"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/gitstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/testkit/gittest"
	"github.com/airvsx/airvsx/testkit/signtest"
)

// needGit skips a test that runs stock git when there is none.
func needGit(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("git")
	if err != nil {
		t.Skip("stock git is not on PATH: the interoperability checks need it")
	}
	return p
}

// git runs stock git in dir with a clean environment and returns its
// output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(needGit(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(), "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// allowedSigners writes an allowed-signers file for sv and returns git's
// options that use it.
func allowedSigners(t *testing.T, sv signature.SignerVerifier) []string {
	t.Helper()
	line, err := gitstore.AllowedSigner("airvsx", signtest.PublicKey(t, sv))
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "allowed_signers")
	if err := os.WriteFile(f, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"-c", "gpg.format=ssh", "-c", "gpg.ssh.allowedSignersFile=" + f}
}

// openWriter opens the registry at path for writing, creating it, its
// commits signed by sv.
func openWriter(t *testing.T, path string, sv signature.Signer) *gitstore.Store {
	t.Helper()
	s, err := gitstore.Open(path, gitstore.Options{Write: true, Create: true, Signer: sv})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// commitChange writes the change of text (writeChange, at created) and
// commits it with msg.
func commitChange(t *testing.T, s *gitstore.Store, text, msg string) {
	t.Helper()
	writeChange(t, s, text, created)
	if err := s.Commit(t.Context(), msg); err != nil {
		t.Fatal(err)
	}
}

// writeChange puts a blob, tags a manifest, and writes a catalog created
// at created; it returns the blob.
func writeChange(t *testing.T, s store.Store, text string, created time.Time) []byte {
	t.Helper()
	ctx := t.Context()
	b := []byte("blob " + text)
	d := index.DigestBytes(b)
	if err := s.PutBlob(ctx, "golang/go", d, int64(len(b)), store.BytesContent(b)); err != nil {
		t.Fatal(err)
	}
	m := []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","x":"` + text + `"}`)
	md := index.DigestBytes(m)
	if err := s.PutBlob(ctx, "golang/go", md, int64(len(m)), store.BytesContent(m)); err != nil {
		t.Fatal(err)
	}
	if err := s.Tag(ctx, "golang/go", "universal-"+text, store.Descriptor{MediaType: artifact.MediaTypeManifest, Digest: md, Size: int64(len(m))}); err != nil {
		t.Fatal(err)
	}
	cat := `{"created":"` + created.Format(time.RFC3339) + `","x":"` + text + `"}`
	if err := s.WriteMetadata(ctx, "targets/"+index.SHA256Hex([]byte(cat))+".catalog.json", []byte(cat)); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteMetadata(ctx, "timestamp.json", []byte(text)); err != nil {
		t.Fatal(err)
	}
	return b
}

var created = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// TestCommitStockGit commits two changes into a bare repository and one
// with a work tree, and checks them with stock git: the commits verify
// with an allowed-signers file made by AllowedSigner, fsck is clean, the
// second commit's parent is the first, the commit time is the catalog's,
// the message names the tags added, and a work tree is clean.
func TestCommitStockGit(t *testing.T) {
	needGit(t)
	t.Setenv("HOME", t.TempDir()) // no user.name: the fixed identity
	t.Setenv("XDG_CONFIG_HOME", "")
	for _, kind := range []string{"reg.git", "reg"} {
		t.Run(kind, func(t *testing.T) {
			sv := signtest.Signer(t)
			path := filepath.Join(t.TempDir(), kind)
			s := openWriter(t, path, sv)
			defer s.Close()
			writeChange(t, s, "1.0.0", created)
			if err := store.Commit(t.Context(), s, "airvsx sync: catalog serial 1"); err != nil {
				t.Fatal(err)
			}
			first := s.Revision()
			writeChange(t, s, "2.0.0", created.Add(time.Hour))
			if err := store.Commit(t.Context(), s, "airvsx sync: catalog serial 2"); err != nil {
				t.Fatal(err)
			}
			opts := allowedSigners(t, sv)
			git(t, path, append(opts, "verify-commit", "HEAD")...)
			git(t, path, append(opts, "verify-commit", "HEAD~1")...)
			git(t, path, "fsck", "--strict", "--no-dangling")
			if got := strings.TrimSpace(git(t, path, "rev-parse", "HEAD~1")); got != first {
				t.Errorf("HEAD~1 = %s; want the first commit %s", got, first)
			}
			if got := strings.TrimSpace(git(t, path, "log", "-1", "--format=%cI %an <%ae>")); got != "2026-01-02T04:04:05+00:00 airvsx <airvsx@localhost>" {
				t.Errorf("commit time and identity = %q; want the catalog's time and the fixed identity", got)
			}
			msg := git(t, path, "log", "-1", "--format=%B")
			if !strings.HasPrefix(msg, "airvsx sync: catalog serial 2\n\nadded golang/go:universal-2.0.0\n") {
				t.Errorf("commit message = %q; want the writer's message, then the tag added", msg)
			}
			if kind == "reg" {
				if st := git(t, path, "status", "--porcelain"); st != "" {
					t.Errorf("git status after commits = %q; want a clean work tree", st)
				}
			}
			// A reader at HEAD, and one at the first commit.
			r, err := gitstore.Open(path, gitstore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if err := r.CheckSignature(t.Context(), []crypto.PublicKey{signtest.PublicKey(t, sv)}); err != nil {
				t.Errorf("CheckSignature(HEAD) = %v", err)
			}
			if err := r.CheckSignature(t.Context(), []crypto.PublicKey{signtest.PublicKey(t, signtest.Signer(t))}); !errors.Is(err, gitstore.ErrSignature) {
				t.Errorf("CheckSignature(another key) = %v; want ErrSignature", err)
			}
			if ok, err := r.Descends(t.Context(), first); !ok || err != nil {
				t.Errorf("Descends(first) = %v, %v; want true", ok, err)
			}
			old, err := gitstore.Open(path, gitstore.Options{Ref: first})
			if err != nil {
				t.Fatal(err)
			}
			defer old.Close()
			tags, err := old.Tags(t.Context(), "golang/go")
			if err != nil || len(tags) != 1 || tags[0].Tag != "universal-1.0.0" {
				t.Errorf("Tags at the first commit = %v, %v; want universal-1.0.0 only", tags, err)
			}
			if ok, err := old.Descends(t.Context(), r.Revision()); ok || err != nil {
				t.Errorf("first.Descends(HEAD) = %v, %v; want false", ok, err)
			}
		})
	}
}

// TestCommitReproducible makes the same change in two repositories: the
// commits are the same bytes but for the signature (ECDSA signatures are
// randomized), so their trees are the same.
func TestCommitReproducible(t *testing.T) {
	var trees []string
	for range 2 {
		path := filepath.Join(t.TempDir(), "reg.git")
		s := openWriter(t, path, signtest.Signer(t))
		commitChange(t, s, "1.0.0", "m")
		s.Close()
		trees = append(trees, strings.TrimSpace(git(t, path, "rev-parse", "HEAD^{tree}")))
	}
	if trees[0] != trees[1] {
		t.Errorf("the same change gave trees %s and %s", trees[0], trees[1])
	}
}

// TestCommitNeedsSigner: a writer without a key cannot commit.
func TestCommitNeedsSigner(t *testing.T) {
	s, err := gitstore.Open(filepath.Join(t.TempDir(), "reg.git"), gitstore.Options{Write: true, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	writeChange(t, s, "1.0.0", created)
	if err := s.Commit(t.Context(), "m"); err == nil {
		t.Error("Commit without a signer = nil; want an error")
	}
}

// committing wraps a git store so that every write is committed at once:
// the conformance suite then reads everything back from commits, not from
// the change in memory.
type committing struct {
	*gitstore.Store
}

func (c committing) commit(err error) error {
	if err != nil {
		return err
	}
	return c.Store.Commit(context.Background(), "write")
}

func (c committing) PutBlob(ctx context.Context, repo, digest string, size int64, r store.Content) error {
	return c.commit(c.Store.PutBlob(ctx, repo, digest, size, r))
}

func (c committing) Tag(ctx context.Context, repo, tag string, m store.Descriptor) error {
	return c.commit(c.Store.Tag(ctx, repo, tag, m))
}

func (c committing) Untag(ctx context.Context, repo, tag string) error {
	return c.commit(c.Store.Untag(ctx, repo, tag))
}

func (c committing) WriteMetadata(ctx context.Context, name string, data []byte) error {
	return c.commit(c.Store.WriteMetadata(ctx, name, data))
}

func (c committing) Quarantine(ctx context.Context, name, reason string, files map[string]io.Reader) (string, error) {
	loc, err := c.Store.Quarantine(ctx, name, reason, files)
	return loc, c.commit(err)
}

// TestConformanceCommitted runs the conformance suite with a commit after
// every write.
func TestConformanceCommitted(t *testing.T) {
	sv := signtest.Signer(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		s := openWriter(t, filepath.Join(t.TempDir(), "reg"), sv)
		t.Cleanup(func() { s.Close() })
		return committing{s}
	}, storetest.Options{Tamper: func(t *testing.T, st store.Store, repo, digest string) {
		s := st.(committing).Store
		h, ok, err := s.BlobObject(repo, digest)
		if err != nil || !ok {
			t.Fatalf("BlobObject(%s, %s) = %v, %v", repo, digest, ok, err)
		}
		gittest.TamperLoose(t, s.GitDir(), h)
	}})
}

// TestDamagedTree: a tree object changed on disk is not read as the tree
// its ID names; opening the registry fails, naming the damage.
func TestDamagedTree(t *testing.T) {
	path := filepath.Join(t.TempDir(), "reg.git")
	s := openWriter(t, path, signtest.Signer(t))
	commitChange(t, s, "1.0.0", "m")
	s.Close()
	r, err := gitstore.Open(path, gitstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	root, err := r.RootTree()
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	gittest.TamperLoose(t, path, root)
	if _, err := gitstore.Open(path, gitstore.Options{}); !errors.Is(err, gitstore.ErrDamaged) {
		t.Errorf("Open with a damaged root tree = %v; want ErrDamaged", err)
	}
}

// TestTakeOver: a writer that ends without committing (killed) leaves its
// change to the next writer on the same commit, which finds its blobs
// and commits them; a writer that starts from another commit drops it,
// and a damaged object is not taken over.
func TestTakeOver(t *testing.T) {
	sv := signtest.Signer(t)
	path := filepath.Join(t.TempDir(), "reg.git")
	s := openWriter(t, path, sv)
	b := writeChange(t, s, "1.0.0", created)
	d := index.DigestBytes(b)
	s.Close() // no Commit: as if killed

	s = openWriter(t, path, sv)
	if n, err := s.StatBlob(t.Context(), "golang/go", d); err != nil || n != int64(len(b)) {
		t.Fatalf("StatBlob after the take-over = %d, %v; want the blob the killed writer put", n, err)
	}
	if err := s.Commit(t.Context(), "finished"); err != nil {
		t.Fatal(err)
	}
	first := s.Revision()
	// A change left on top of the first commit, with one of its objects
	// damaged since.
	other := []byte("another blob")
	od := index.DigestBytes(other)
	if err := s.PutBlob(t.Context(), "golang/go", od, int64(len(other)), store.BytesContent(other)); err != nil {
		t.Fatal(err)
	}
	h, ok, err := s.BlobObject("golang/go", od)
	if err != nil || !ok {
		t.Fatal(err)
	}
	s.Close()
	gittest.TamperLoose(t, path, h)
	s = openWriter(t, path, sv)
	if _, err := s.StatBlob(t.Context(), "golang/go", od); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("StatBlob of a damaged object taken over = %v; want fs.ErrNotExist", err)
	}
	if s.Revision() != first {
		t.Errorf("Revision() = %s; want %s", s.Revision(), first)
	}
	s.Close()

	// A change made from another commit is dropped.
	if err := os.WriteFile(filepath.Join(path, "airvsx-change"), []byte("airvsx change 1 "+strings.Repeat("1", 40)+" refs/heads/main\n"+h.String()+" extensions/golang/go/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s = openWriter(t, path, sv)
	defer s.Close()
	if _, err := s.ReadMetadata(t.Context(), "timestamp.json", 100); err != nil {
		t.Errorf("ReadMetadata after dropping a stale change = %v", err)
	}
}

func appendFile(t *testing.T, name, text string) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// TestStaleTemps: the fixed-name temp files a killed writer left (the
// journal's, a work-tree file's) are replaced by the next writer, not in
// its way, and none is left after a commit.
func TestStaleTemps(t *testing.T) {
	sv := signtest.Signer(t)
	path := filepath.Join(t.TempDir(), "reg")
	s := openWriter(t, path, sv)
	commitChange(t, s, "1.0.0", "first")
	s.Close()
	stale := []string{
		filepath.Join(path, ".git", "airvsx-change.tmp"),
		filepath.Join(path, "metadata", ".tmp-timestamp.json"),
	}
	for _, p := range stale {
		if err := os.WriteFile(p, []byte("left by a killed writer"), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	s = openWriter(t, path, sv)
	defer s.Close()
	commitChange(t, s, "2.0.0", "second")
	for _, p := range stale {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s after a commit: %v; want it gone", p, err)
		}
	}
	if got, err := os.ReadFile(filepath.Join(path, "metadata", "timestamp.json")); err != nil || string(got) != "2.0.0" {
		t.Errorf("work-tree timestamp.json = %q, %v; want 2.0.0", got, err)
	}
}

// TestBranchLocked: a branch's .lock file (a git running, or one killed)
// stops a commit, which names the lock and leaves it and the branch as
// they were.
func TestBranchLocked(t *testing.T) {
	sv := signtest.Signer(t)
	path := filepath.Join(t.TempDir(), "reg.git")
	s := openWriter(t, path, sv)
	defer s.Close()
	commitChange(t, s, "1.0.0", "first")
	first := s.Revision()
	head, err := os.ReadFile(filepath.Join(path, "HEAD"))
	if err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(path, filepath.FromSlash(strings.TrimSpace(strings.TrimPrefix(string(head), "ref: "))))
	if err := os.WriteFile(ref+".lock", []byte("git at work\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeChange(t, s, "2.0.0", created)
	err = s.Commit(t.Context(), "second")
	if err == nil || !strings.Contains(err.Error(), "lock branch") || !strings.Contains(err.Error(), ref+".lock") {
		t.Fatalf("Commit with the branch locked = %v; want an error naming the lock", err)
	}
	if got, err := os.ReadFile(ref + ".lock"); string(got) != "git at work\n" {
		t.Errorf("the lock after a failed commit holds %q, %v; want it untouched", got, err)
	}
	if got, err := os.ReadFile(ref); err != nil || strings.TrimSpace(string(got)) != first {
		t.Errorf("the branch after a failed commit = %q, %v; want %s", got, err, first)
	}
}

// TestBranchLockLeftByKilledRun: a branch lock a killed commit left (its
// intent file names the lock and the commit, and the lock holds that
// commit, or a first part of it) is removed by the next commit, which
// goes through; a lock holding anything else beside the same intent is a
// git at work and is kept.
func TestBranchLockLeftByKilledRun(t *testing.T) {
	const killed = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name, lock string
		ok         bool
	}{
		{"the commit written", killed + "\n", true},
		{"killed while writing it", killed[:7], true},
		{"killed before writing it", "", true},
		{"another commit: a git at work", strings.Repeat("f", 40) + "\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sv := signtest.Signer(t)
			path := filepath.Join(t.TempDir(), "reg.git")
			s := openWriter(t, path, sv)
			defer s.Close()
			commitChange(t, s, "1.0.0", "first")
			head, err := os.ReadFile(filepath.Join(path, "HEAD"))
			if err != nil {
				t.Fatal(err)
			}
			ref := filepath.Join(path, filepath.FromSlash(strings.TrimSpace(strings.TrimPrefix(string(head), "ref: "))))
			filetest.WriteFile(t, filepath.Join(path, "airvsx-branch-intent"), []byte(ref+".lock\n"+killed+"\n"))
			filetest.WriteFile(t, ref+".lock", []byte(tc.lock))
			writeChange(t, s, "2.0.0", created)
			err = s.Commit(t.Context(), "second")
			if !tc.ok {
				if err == nil || !strings.Contains(err.Error(), "lock branch") {
					t.Fatalf("Commit beside a lock holding %q = %v; want it refused", tc.lock, err)
				}
				if got, _ := os.ReadFile(ref + ".lock"); string(got) != tc.lock {
					t.Errorf("the lock after a refused commit holds %q; want it untouched", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Commit after a killed run left the lock holding %q: %v", tc.lock, err)
			}
			if _, err := os.Stat(ref + ".lock"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the killed run's lock is still there: %v", err)
			}
			if _, err := os.Stat(filepath.Join(path, "airvsx-branch-intent")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the intent file outlived the commit: %v", err)
			}
		})
	}
}
