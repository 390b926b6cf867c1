package storetest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/index"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/dirstore"
)

// maxMetadata bounds what MemFromDir reads of one metadata file.
const maxMetadata = 1 << 30

// MemFromDir copies the directory registry at dir into a new Mem as it
// is, without verifying anything, so that a tampered registry stays
// tampered: every metadata file byte for byte, each repository's tags as
// its index.json lists them (an index.json that does not decode makes
// every tag read of that repository fail with its error, as in the
// directory), and every regular file under blobs/sha256 whose name is a
// digest, byte for byte, whatever its content. The quarantine is not
// copied, and neither are files the layout has no place for (oci-layout
// included): a Mem has no layout. Any other failure fails t.
func MemFromDir(t testing.TB, dir string) *Mem {
	t.Helper()
	ctx := t.Context()
	d, err := dirstore.Open(dir, dirstore.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("MemFromDir: %v", err)
	}
	defer d.Close()
	m := NewMem()
	names, err := d.ListMetadata(ctx)
	if err != nil {
		t.Fatalf("MemFromDir: %v", err)
	}
	for _, n := range names {
		b, err := d.ReadMetadata(ctx, n, maxMetadata)
		if err != nil {
			t.Fatalf("MemFromDir: %v", err)
		}
		m.meta[n] = b
	}
	repos, err := d.Repos(ctx)
	if err != nil {
		t.Fatalf("MemFromDir: %v", err)
	}
	for _, repo := range repos {
		r := m.repo(repo, true)
		tags, err := d.Tags(ctx, repo)
		if err != nil {
			r.err = err
			if inner := errors.Unwrap(err); inner != nil {
				r.err = inner // without the directory store's "tags of <repo>: ", which Mem adds again
			}
		}
		for _, te := range tags {
			r.tags[te.Tag] = te.Manifest
		}
		blobs := filepath.Join(dir, "extensions", filepath.FromSlash(repo), "blobs", "sha256")
		ents, err := os.ReadDir(blobs)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatalf("MemFromDir: %v", err)
		}
		for _, e := range ents {
			digest := index.SHA256Digest(e.Name())
			if !e.Type().IsRegular() || !store.ValidDigest(digest) {
				continue
			}
			b, err := os.ReadFile(filepath.Join(blobs, e.Name()))
			if err != nil {
				t.Fatalf("MemFromDir: %v", err)
			}
			r.blobs[digest] = b
		}
	}
	return m
}
