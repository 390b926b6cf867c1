package storetest_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
)

func TestMemConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return storetest.NewMem() }, storetest.Options{
		Tamper: func(t *testing.T, s store.Store, repo, digest string) {
			m := s.(*storetest.Mem)
			b, ok := m.RawBlob(repo, digest)
			if !ok {
				t.Fatalf("no blob %s in %s", digest, repo)
			}
			b[len(b)/2] ^= 1
			m.SetRawBlob(repo, digest, b)
		},
	})
}

// TestMemFromDir copies a directory registry with a tampered blob, a
// truncated one and an index.json that does not decode, and checks the
// Mem holds exactly what the directory holds, damage included.
func TestMemFromDir(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "reg")
	d := storetest.OpenDir(t, dir, dirstore.Options{Create: true})
	put := func(repo, s string) store.Descriptor {
		b := []byte(s)
		dg := index.DigestBytes(b)
		if err := d.PutBlob(ctx, repo, dg, int64(len(b)), store.BytesContent(b)); err != nil {
			t.Fatal(err)
		}
		return store.Descriptor{MediaType: artifact.MediaTypeManifest, Digest: dg, Size: int64(len(b)), ArtifactType: artifact.ArtifactType}
	}
	good := put("a/good", `{"m":1}`)
	flipped := put("a/good", "flipped later")
	short := put("a/good", "truncated later")
	put("b/broken", `{"m":2}`)
	if err := d.Tag(ctx, "a/good", "universal-1.0.0", good); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"root.json": "r", "targets/x.catalog.json": "c"} {
		if err := d.WriteMetadata(ctx, name, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	d.Close()
	blob := func(repo, digest string) string {
		return filepath.Join(dir, filepath.FromSlash(artifact.BlobName(repo, digest)))
	}
	if err := os.WriteFile(blob("a/good", flipped.Digest), []byte("flipped LATER"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blob("a/good", short.Digest), []byte("trunc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "extensions", "b", "broken", "index.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}

	m := storetest.MemFromDir(t, dir)
	repos, err := m.Repos(ctx)
	if diff := cmp.Diff([]string{"a/good", "b/broken"}, repos); err != nil || diff != "" {
		t.Errorf("Repos() = %v (-want +got):\n%s", err, diff)
	}
	tags, err := m.Tags(ctx, "a/good")
	if diff := cmp.Diff([]store.TagEntry{{Tag: "universal-1.0.0", Manifest: good}}, tags); err != nil || diff != "" {
		t.Errorf("Tags(a/good) = %v (-want +got):\n%s", err, diff)
	}
	if _, err := m.Tags(ctx, "b/broken"); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Tags(b/broken) = %v; want the index.json's decoding error", err)
	}
	if names, err := m.ListMetadata(ctx); err != nil || !cmp.Equal(names, []string{"root.json", "targets/x.catalog.json"}) {
		t.Errorf("ListMetadata() = %q, %v", names, err)
	}
	tests := []struct {
		name    string
		d       store.Descriptor
		raw     string
		wantErr error
	}{
		{"intact", good, `{"m":1}`, nil},
		{"flipped", flipped, "flipped LATER", store.ErrMismatch},
		{"truncated", short, "trunc", store.ErrMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if b, ok := m.RawBlob("a/good", tt.d.Digest); !ok || string(b) != tt.raw {
				t.Errorf("RawBlob = %q, %v; want %q", b, ok, tt.raw)
			}
			if size, err := m.StatBlob(ctx, "a/good", tt.d.Digest); err != nil || size != int64(len(tt.raw)) {
				t.Errorf("StatBlob = %d, %v; want %d", size, err, len(tt.raw))
			}
			rc, err := m.OpenBlob(ctx, "a/good", tt.d.Digest, tt.d.Size)
			if err == nil {
				var got []byte
				got, err = io.ReadAll(rc)
				rc.Close()
				if err == nil && !bytes.Equal(got, []byte(tt.raw)) {
					t.Errorf("OpenBlob read %q; want %q", got, tt.raw)
				}
			}
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("reading through OpenBlob = %v; want %v", err, tt.wantErr)
			}
		})
	}
}
