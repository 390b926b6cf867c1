// Package gittest damages a git repository for tests: a loose object
// whose content no longer is what its ID says, as a failing disk or an
// attacker would leave it, and a commit on top no registry key signed.
package gittest

import (
	"bytes"
	"compress/zlib"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

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
// It moves the branch and returns the commit. Files of equal content
// share one blob, so a tree of many files costs little to make.
func CommitOnTop(tb testing.TB, gitDir string, files map[string][]byte) plumbing.Hash {
	tb.Helper()
	st := filesystem.NewStorage(osfs.New(gitDir), cache.NewObjectLRUDefault())
	defer st.Close()
	head, err := st.Reference(plumbing.HEAD)
	if err != nil {
		tb.Fatal(err)
	}
	branch := head.Target()
	ref, err := st.Reference(branch)
	if err != nil {
		tb.Fatal(err)
	}
	parent, err := object.GetCommit(st, ref.Hash())
	if err != nil {
		tb.Fatal(err)
	}
	blobs := map[string]plumbing.Hash{}
	tree := map[string]plumbing.Hash{}
	for p, data := range files {
		h, ok := blobs[string(data)]
		if !ok {
			h = store(tb, st, plumbing.BlobObject, data)
			blobs[string(data)] = h
		}
		tree[p] = h
	}
	root := addFiles(tb, st, parent.TreeHash, tree)
	sig := object.Signature{Name: "intruder", Email: "intruder@example.com", When: parent.Committer.When.Add(time.Second)}
	c := &object.Commit{Author: sig, Committer: sig, Message: "not signed\n", TreeHash: root, ParentHashes: []plumbing.Hash{parent.Hash}}
	o := st.NewEncodedObject()
	if err := c.Encode(o); err != nil {
		tb.Fatal(err)
	}
	h, err := st.SetEncodedObject(o)
	if err != nil {
		tb.Fatal(err)
	}
	if err := st.SetReference(plumbing.NewHashReference(branch, h)); err != nil {
		tb.Fatal(err)
	}
	return h
}

// addFiles writes the tree base (zero: empty) with files (slash path
// relative to it → blob) added, and returns it.
func addFiles(tb testing.TB, st *filesystem.Storage, base plumbing.Hash, files map[string]plumbing.Hash) plumbing.Hash {
	entries := map[string]object.TreeEntry{}
	if !base.IsZero() {
		t, err := object.GetTree(st, base)
		if err != nil {
			tb.Fatal(err)
		}
		for _, e := range t.Entries {
			entries[e.Name] = e
		}
	}
	subs := map[string]map[string]plumbing.Hash{}
	for p, h := range files {
		name, rest, isDir := strings.Cut(p, "/")
		if !isDir {
			entries[name] = object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h}
			continue
		}
		if subs[name] == nil {
			subs[name] = map[string]plumbing.Hash{}
		}
		subs[name][rest] = h
	}
	for name, sub := range subs {
		var b plumbing.Hash
		if e, ok := entries[name]; ok && e.Mode == filemode.Dir {
			b = e.Hash
		}
		entries[name] = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: addFiles(tb, st, b, sub)}
	}
	t := &object.Tree{}
	for _, e := range entries {
		t.Entries = append(t.Entries, e)
	}
	sortName := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	slices.SortFunc(t.Entries, func(a, b object.TreeEntry) int { return strings.Compare(sortName(a), sortName(b)) })
	o := st.NewEncodedObject()
	if err := t.Encode(o); err != nil {
		tb.Fatal(err)
	}
	h, err := st.SetEncodedObject(o)
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

// store writes one object.
func store(tb testing.TB, st *filesystem.Storage, typ plumbing.ObjectType, data []byte) plumbing.Hash {
	o := st.NewEncodedObject()
	o.SetType(typ)
	o.SetSize(int64(len(data)))
	w, err := o.Writer()
	if err != nil {
		tb.Fatal(err)
	}
	w.Write(data)
	w.Close()
	h, err := st.SetEncodedObject(o)
	if err != nil {
		tb.Fatal(err)
	}
	return h
}
