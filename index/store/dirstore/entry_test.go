package dirstore_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/testkit/filetest"
)

// plainStore hides what a directory store offers besides store.Store, so
// the helpers take their generic path.
type plainStore struct{ store.Store }

// entryOf returns the catalog entry of a manifest stored by testEntry.
func entryOf(m *artifact.Manifest) *index.Entry {
	l, _ := m.Layer(artifact.RoleVsix)
	return &index.Entry{ID: m.Info.ID, Version: m.Info.Version, Platform: m.Info.Platform,
		ManifestDigest: m.Digest, ManifestSize: m.Size,
		VsixSHA256: strings.TrimPrefix(l.Digest, "sha256:"), VsixSize: l.Size}
}

func TestEntryManifest(t *testing.T) {
	d := newDir(t)
	m := testEntry(t, d, "golang.go", "0.40.0", index.Universal)
	e := entryOf(m)
	for _, s := range []store.Store{d, plainStore{d}} {
		got, err := artifact.EntryManifest(t.Context(), s, e)
		if err != nil || got.Digest != m.Digest {
			t.Fatalf("EntryManifest = %v, %v", got, err)
		}
	}
	tests := []struct {
		name string
		edit func(*index.Entry)
	}{
		{"other version", func(e *index.Entry) { e.Version = "0.41.0" }},
		{"other platform", func(e *index.Entry) { e.Platform = "linux-x64" }},
		{"other vsix", func(e *index.Entry) { e.VsixSHA256 = strings.Repeat("a", 64) }},
		{"other vsix size", func(e *index.Entry) { e.VsixSize++ }},
		{"manifest size lies", func(e *index.Entry) { e.ManifestSize-- }},
		{"manifest too large", func(e *index.Entry) { e.ManifestSize = artifact.MaxManifestBytes + 1 }},
	}
	for _, tt := range tests {
		bad := *e
		tt.edit(&bad)
		if _, err := artifact.EntryManifest(t.Context(), d, &bad); err == nil {
			t.Errorf("%s: EntryManifest = nil error", tt.name)
		}
	}
}

func TestOpenBlobAt(t *testing.T) {
	d := newDir(t)
	content := bytes.Repeat([]byte("vsix bytes "), 50_000)
	digest := putBlob(t, d, "golang/go", content)
	for name, s := range map[string]store.Store{"dir": d, "plain": plainStore{d}} {
		var also bytes.Buffer
		f, err := store.OpenBlobAt(t.Context(), s, "golang/go", digest, int64(len(content)), &also, t.TempDir())
		if err != nil {
			t.Fatalf("%s: OpenBlobAt: %v", name, err)
		}
		got := make([]byte, len(content))
		if _, err := f.ReadAt(got, 0); err != nil && err != io.EOF {
			t.Fatalf("%s: ReadAt: %v", name, err)
		}
		f.Close()
		if !bytes.Equal(got, content) || !bytes.Equal(also.Bytes(), content) {
			t.Errorf("%s: the file or the also writer does not hold the blob", name)
		}
		if _, err := store.OpenBlobAt(t.Context(), s, "golang/go", digest, int64(len(content))-1, nil, t.TempDir()); !errors.Is(err, store.ErrMismatch) {
			t.Errorf("%s: OpenBlobAt(wrong size) = %v; want ErrMismatch", name, err)
		}
	}
	// A blob changed on disk: both paths refuse it, and the spool leaves
	// no file behind.
	filetest.FlipByte(t, blobFile(d, "golang/go", digest))
	for name, s := range map[string]store.Store{"dir": d, "plain": plainStore{d}} {
		tmp := t.TempDir()
		if _, err := store.OpenBlobAt(t.Context(), s, "golang/go", digest, int64(len(content)), nil, tmp); !errors.Is(err, store.ErrMismatch) {
			t.Errorf("%s: OpenBlobAt(tampered) = %v; want ErrMismatch", name, err)
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("%s: spool left %v", name, left)
		}
	}
	if _, err := store.ReadBlob(t.Context(), d, "golang/go", digest, int64(len(content)), 10); !errors.Is(err, store.ErrTooLarge) {
		t.Errorf("ReadBlob(over max) = %v; want ErrTooLarge", err)
	}
}
