package dirstore_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
)

func TestStagingAdoptBlob(t *testing.T) {
	ctx := t.Context()
	d := newDir(t)
	s, err := d.NewStaging()
	if err != nil {
		t.Fatal(err)
	}
	if rel, err := filepath.Rel(d.Path(), s.Dir()); err != nil || filepath.Dir(rel) != "." {
		t.Fatalf("staging %s is not directly in the registry %s", s.Dir(), d.Path())
	}
	write := func(name string, b []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(s.Dir(), name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	content := []byte("a package, hashed as it was downloaded")
	digest := sha(content)
	const repo = "ns/name"

	// Adopted: the blob is in place, readable and checked; the file is gone.
	write("a", content)
	if err := s.AdoptBlob(ctx, repo, digest, int64(len(content)), "a"); err != nil {
		t.Fatal(err)
	}
	r, err := d.OpenBlob(ctx, repo, digest, int64(len(content)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	r.Close()
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("adopted blob reads %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), "a")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the staged file is still there after adoption: %v", err)
	}
	if _, err := os.Stat(filepath.Join(d.Path(), "extensions", "ns", "name", "oci-layout")); err != nil {
		t.Errorf("no oci-layout beside the adopted blob: %v", err)
	}

	// Already present: kept; the staged file is left to its owner.
	write("b", content)
	if err := s.AdoptBlob(ctx, repo, digest, int64(len(content)), "b"); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, file string
		size       int64
		want       string
	}{
		{"wrong size", "b", 3, "38 bytes; want 3"},
		{"path, not a name", "../b", int64(len(content)), "not a file name"},
		{"dot dot", "..", int64(len(content)), "not a file name"},
		{"missing", "nope", int64(len(content)), "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			other := sha([]byte(tt.name)) // not stored yet
			err := s.AdoptBlob(ctx, repo, other, tt.size, tt.file)
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tt.want)) {
				t.Fatalf("AdoptBlob(%q, size %d) = %v, want an error containing %q", tt.file, tt.size, err, tt.want)
			}
			if _, err := d.StatBlob(ctx, repo, other); err == nil {
				t.Errorf("a blob was stored despite the error")
			}
		})
	}

	// A symlink in the staging directory is never followed.
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(s.Dir(), "link")); err == nil {
		if err := s.AdoptBlob(ctx, repo, sha([]byte("x")), 1, "link"); err == nil {
			t.Error("adopted a symlink")
		}
	}

	if err := s.Remove(); err != nil {
		t.Fatal(err)
	}
	if got := temps(t, d.Path()); len(got) != 0 {
		t.Errorf("temp files left after Remove: %v", got)
	}
}

func TestStagingLeftBehind(t *testing.T) {
	reg := filepath.Join(t.TempDir(), "reg")
	d := storetest.OpenDir(t, reg, dirstore.Options{Create: true})
	s, err := d.NewStaging()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir(), "vsix-1"), []byte("half a download"), 0o644); err != nil {
		t.Fatal(err)
	}
	d.Close() // a killed sync never removes it

	ro := storetest.OpenDir(t, reg, dirstore.Options{ReadOnly: true})
	if _, err := ro.NewStaging(); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("NewStaging on a read-only registry: %v, want ErrReadOnly", err)
	}
	if repos, err := ro.Repos(t.Context()); err != nil || len(repos) != 0 {
		t.Errorf("a reader sees %v, %v in a registry holding only a staging directory", repos, err)
	}
	ro.Close()

	d, err = dirstore.Open(reg, dirstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if got := temps(t, reg); len(got) != 0 {
		t.Errorf("the next writer left the staging directory: %v", got)
	}
}
