// Package gittest makes and damages git registries for tests: a
// directory registry committed as it is (CommitDir), a loose object whose
// content no longer is what its ID says, as a failing disk or an attacker
// would leave it, and a commit on top no registry key signed (CommitOnTop)
// or another key signed (SignedOnTop).
package gittest

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index/store/gitstore"
)

// CommitDir commits the tree of the directory registry dir, as it is
// (damage included), on top of the git registry at path (made when
// missing), signed by signer, with message msg.
func CommitDir(tb testing.TB, path string, signer signature.Signer, dir, msg string) {
	tb.Helper()
	s, err := gitstore.Open(path, gitstore.Options{Write: true, Create: true, Signer: signer})
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	if err := s.ImportDir(tb.Context(), os.DirFS(dir)); err != nil {
		tb.Fatal(err)
	}
	if err := s.Commit(tb.Context(), msg); err != nil {
		tb.Fatal(err)
	}
}

// SignedOnTop adds a commit signed by signer on top of the git registry
// at path, as a holder of another key would: it quarantines one file, x,
// and commits. It returns the new head.
func SignedOnTop(tb testing.TB, path string, signer signature.Signer) plumbing.Hash {
	tb.Helper()
	s, err := gitstore.Open(path, gitstore.Options{Write: true, Signer: signer})
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Quarantine(tb.Context(), "x", "a change", nil); err != nil {
		tb.Fatal(err)
	}
	if err := s.Commit(tb.Context(), "signed by another key"); err != nil {
		tb.Fatal(err)
	}
	return s.Head()
}

// TamperLoose flips one byte of the content of the loose object h in the
// git directory gitDir, in place, keeping its name and size: a byte a
// quarter from the end, so that even a small object's header stays
// intact.
func TamperLoose(tb testing.TB, gitDir string, h plumbing.Hash) {
	tb.Helper()
	p := filepath.Join(gitDir, "objects", h.String()[:2], h.String()[2:])
	raw, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	zr, err := zlib.NewReader(bytes.NewReader(raw))
	if err != nil {
		tb.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	data[len(data)-1-len(data)/4] ^= 1
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// CommitOnTop adds a commit that is not signed on top of the branch HEAD
// names in the git directory gitDir, as someone with write access to the
// repository but not the registry's key would: its tree is the branch's
// with files (slash path → content) added, directories made as needed.
// It is made with stock git's plumbing (a private index, write-tree,
// commit-tree, update-ref); files with the same content share one blob, so
// a tree of many files costs little to make.
func CommitOnTop(tb testing.TB, gitDir string, files map[string][]byte) plumbing.Hash {
	tb.Helper()
	index := filepath.Join(tb.TempDir(), "index")
	git := func(stdin string, env []string, args ...string) string {
		tb.Helper()
		cmd := exec.Command("git", append([]string{"--git-dir", gitDir, "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(append(os.Environ(), "GIT_INDEX_FILE="+index), env...)
		cmd.Stdin = strings.NewReader(stdin)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return strings.TrimSpace(string(out))
	}
	branch := git("", nil, "symbolic-ref", "HEAD")
	parent := git("", nil, "rev-parse", branch)
	when := git("", nil, "log", "-1", "--format=%ct", parent)
	git("", nil, "read-tree", parent)
	blobs := map[string]string{}
	var entries strings.Builder
	for p, data := range files {
		h, ok := blobs[string(data)]
		if !ok {
			h = git(string(data), nil, "hash-object", "-w", "--stdin")
			blobs[string(data)] = h
		}
		fmt.Fprintf(&entries, "100644 %s\t%s\n", h, p)
	}
	git(entries.String(), nil, "update-index", "--add", "--index-info")
	tree := git("", nil, "write-tree")
	sec, err := strconv.ParseInt(when, 10, 64)
	if err != nil {
		tb.Fatalf("commit time of %s: %v", parent, err)
	}
	date := fmt.Sprintf("%d +0000", sec+1)
	commit := git("not signed\n", []string{
		"GIT_AUTHOR_NAME=intruder", "GIT_AUTHOR_EMAIL=intruder@example.com", "GIT_AUTHOR_DATE=" + date,
		"GIT_COMMITTER_NAME=intruder", "GIT_COMMITTER_EMAIL=intruder@example.com", "GIT_COMMITTER_DATE=" + date,
	}, "commit-tree", tree, "-p", parent)
	git("", nil, "update-ref", branch, commit, parent)
	return plumbing.NewHash(commit)
}
