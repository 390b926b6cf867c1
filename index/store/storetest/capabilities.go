package storetest

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
)

// The optional capabilities (index/store capability.go): Run runs each
// subtest only for a store that offers the capability.

// offers reports whether s offers T (store.As).
func offers[T any](s store.Store) bool {
	_, ok := store.As[T](s)
	return ok
}

// capability returns what s offers as T; the subtest fails when s does
// not offer it after all.
func capability[T any](t *testing.T, s store.Store) T {
	t.Helper()
	c, ok := store.As[T](s)
	if !ok {
		var zero T
		t.Fatalf("the store does not offer %T", &zero)
	}
	return c
}

func testBlobFile(t *testing.T, s store.Store) {
	bf := capability[store.BlobFiler](t, s)
	ctx := t.Context()
	b := randomBytes(3000, 11)
	d := put(t, s, repo, b)
	f, err := bf.OpenBlobFile(ctx, repo, d)
	if err != nil {
		t.Fatalf("OpenBlobFile: %v", err)
	}
	defer f.Close()
	got, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(got, b) {
		t.Errorf("OpenBlobFile read %d bytes, %v; want the %d stored", len(got), err, len(b))
	}
	at := make([]byte, 10)
	if _, err := f.ReadAt(at, 100); err != nil || !bytes.Equal(at, b[100:110]) {
		t.Errorf("ReadAt(100) = %x, %v; want %x", at, err, b[100:110])
	}
	if _, err := bf.OpenBlobFile(ctx, repo, digestOf([]byte("absent"))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenBlobFile(absent) = %v; want fs.ErrNotExist", err)
	}
	for _, bad := range [][2]string{{"../x", d}, {repo, "sha256:../../x"}} {
		if f, err := bf.OpenBlobFile(ctx, bad[0], bad[1]); !errors.Is(err, store.ErrInvalidName) {
			if f != nil {
				f.Close()
			}
			t.Errorf("OpenBlobFile(%q, %q) = %v; want ErrInvalidName", bad[0], bad[1], err)
		}
	}
}

func testReplaceBlob(t *testing.T, s store.Store, tamper func(*testing.T, store.Store, string, string)) {
	br := capability[store.BlobReplacer](t, s)
	ctx := t.Context()
	b := randomBytes(500, 12)
	d := put(t, s, repo, b)
	if loc, err := br.ReplaceBlob(ctx, repo, d, int64(len(b)), "test", store.BytesContent(b)); err == nil {
		t.Errorf("ReplaceBlob of an intact blob = %q, nil; want an error", loc)
	}
	absent := []byte("absent")
	if loc, err := br.ReplaceBlob(ctx, repo, digestOf(absent), int64(len(absent)), "test", store.BytesContent(absent)); err == nil {
		t.Errorf("ReplaceBlob of an absent blob = %q, nil; want an error", loc)
	}
	if tamper == nil {
		return
	}
	tamper(t, s, repo, d)
	loc, err := br.ReplaceBlob(ctx, repo, d, int64(len(b)), "test", store.BytesContent(b))
	if err != nil {
		t.Fatalf("ReplaceBlob of a damaged blob: %v", err)
	}
	if !strings.HasPrefix(loc, "quarantine/") {
		t.Errorf("ReplaceBlob kept the damaged blob in %q; want quarantine/...", loc)
	}
	if got, err := read(t, s, repo, d, int64(len(b))); err != nil || !bytes.Equal(got, b) {
		t.Errorf("after ReplaceBlob: read %d bytes, %v; want the good %d", len(got), err, len(b))
	}
}

func testLayoutRepair(t *testing.T, s store.Store) {
	lr := capability[store.LayoutRepairer](t, s)
	ctx := t.Context()
	if err := lr.CheckLayout(ctx, repo); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("CheckLayout(absent repository) = %v; want fs.ErrNotExist", err)
	}
	m := manifest(t, s, repo, "layout")
	if err := s.Tag(ctx, repo, "v1", m); err != nil {
		t.Fatal(err)
	}
	if err := lr.CheckLayout(ctx, repo); err != nil {
		t.Errorf("CheckLayout(intact) = %v", err)
	}
	if loc, err := lr.ReplaceLayout(ctx, repo, "test"); err == nil {
		t.Errorf("ReplaceLayout of an intact layout = %q, nil; want an error", loc)
	}
	if tags, err := s.Tags(ctx, repo); err != nil || len(tags) != 1 {
		t.Errorf("after a refused ReplaceLayout: Tags = %v, %v; want the one tag", tags, err)
	}
}

func testFreeSpace(t *testing.T, s store.Store) {
	sp := capability[store.FreeSpacer](t, s)
	free, block, err := sp.FreeSpace()
	if errors.Is(err, errors.ErrUnsupported) {
		return
	}
	if err != nil || free < 0 || block <= 0 {
		t.Errorf("FreeSpace() = %d, %d, %v; want free >= 0 and a block size", free, block, err)
	}
}

func testStaging(t *testing.T, s store.Store) {
	sg := capability[store.Stager](t, s)
	ctx := t.Context()
	st, err := sg.NewStaging()
	if err != nil {
		t.Fatalf("NewStaging: %v", err)
	}
	b := randomBytes(2000, 13)
	d := digestOf(b)
	if err := os.WriteFile(filepath.Join(st.Dir(), "a"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := st.AdoptBlob(ctx, repo, d, int64(len(b))+1, "a"); err == nil {
		t.Error("AdoptBlob with the wrong size = nil; want an error")
	}
	if err := st.AdoptBlob(ctx, repo, d, int64(len(b)), "a"); err != nil {
		t.Fatalf("AdoptBlob: %v", err)
	}
	if got, err := read(t, s, repo, d, int64(len(b))); err != nil || !bytes.Equal(got, b) {
		t.Errorf("adopted blob: read %d bytes, %v; want %d", len(got), err, len(b))
	}
	if err := st.AdoptBlob(ctx, "../x", d, int64(len(b)), "a"); !errors.Is(err, store.ErrInvalidName) {
		t.Errorf("AdoptBlob(bad repository) = %v; want ErrInvalidName", err)
	}
	if err := st.Remove(); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if _, err := os.Stat(st.Dir()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("staging directory after Remove: %v; want it gone", err)
	}
	if got, err := read(t, s, repo, d, int64(len(b))); err != nil || !bytes.Equal(got, b) {
		t.Errorf("adopted blob after Remove: read %d bytes, %v", len(got), err)
	}
}

// commit commits s when it groups writes into changes (Run does not run
// the subtests that call it for a store that cannot: Options.CannotCommit).
func commit(t *testing.T, s store.Store) {
	t.Helper()
	if err := store.Commit(t.Context(), s, "test"); err != nil {
		t.Fatal(err)
	}
}

func testLayoutFS(t *testing.T, s store.Store) {
	lf := capability[store.LayoutFS](t, s)
	ctx := t.Context()
	b := randomBytes(700, 14)
	d := put(t, s, repo, b)
	m := manifest(t, s, repo, "fs")
	if err := s.Tag(ctx, repo, "v1", m); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteMetadata(ctx, "root.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	commit(t, s)
	fsys := lf.FS()
	if got, err := fs.ReadFile(fsys, artifact.BlobName(repo, d)); err != nil || !bytes.Equal(got, b) {
		t.Errorf("FS: %s: %d bytes, %v; want the %d stored", artifact.BlobName(repo, d), len(got), err, len(b))
	}
	raw, err := fs.ReadFile(fsys, "extensions/"+repo+"/index.json")
	if err != nil {
		t.Fatalf("FS: index.json: %v", err)
	}
	tags, err := artifact.DecodeIndex(raw)
	if err != nil || len(tags) != 1 || tags[0].Tag != "v1" || tags[0].Manifest.Digest != m.Digest {
		t.Errorf("FS: index.json holds %v, %v; want v1 -> %s", tags, err, m.Digest)
	}
	if got, err := fs.ReadFile(fsys, "metadata/root.json"); err != nil || string(got) != "{}" {
		t.Errorf("FS: metadata/root.json = %q, %v", got, err)
	}
}

func testDiscard(t *testing.T, s store.Store) {
	dc := capability[store.Discarder](t, s)
	b := randomBytes(100, 15)
	d := put(t, s, repo, b)
	commit(t, s)
	if gone, err := dc.Discard(); gone || err != nil {
		t.Errorf("Discard of a store holding a blob = %v, %v; want false, nil", gone, err)
	}
	if got, err := read(t, s, repo, d, int64(len(b))); err != nil || !bytes.Equal(got, b) {
		t.Errorf("after Discard: read %d bytes, %v; want the blob kept", len(got), err)
	}
}
