package vsix_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index/vsix"
)

// tree returns every path below dir (slash-separated, relative) with its
// content, or "/" for a directory, failing on anything else.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || !filepath.IsLocal(rel) {
			t.Errorf("%s is outside %s", p, dir)
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case info.Mode().IsRegular():
			if perm := info.Mode().Perm(); perm&0o111 != 0 || perm&0o200 == 0 {
				t.Errorf("%s has mode %v; want rw, no exec", rel, perm)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			got[filepath.ToSlash(rel)] = string(b)
		case info.IsDir():
			got[filepath.ToSlash(rel)+"/"] = "/"
		default:
			t.Errorf("%s has mode %v; want a regular file or directory", rel, info.Mode())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// layeredArchive opens the layered package (layered) and returns it with
// its files.
func layeredArchive(t *testing.T) (*vsix.Archive, map[string]string) {
	t.Helper()
	data, files := layered(t)
	a, err := newReader(data, vsix.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a, files
}

func TestExtract(t *testing.T) {
	a, files := layeredArchive(t)
	dir := filepath.Join(t.TempDir(), "out")
	if err := a.Extract(t.Context(), dir); err != nil {
		t.Fatalf("Extract: %v", err)
	}
	want := map[string]string{}
	for name, content := range files {
		want[name] = content
		for d := filepath.ToSlash(filepath.Dir(name)); d != "."; d = filepath.ToSlash(filepath.Dir(d)) {
			want[d+"/"] = "/"
		}
	}
	if diff := cmp.Diff(want, tree(t, dir)); diff != "" {
		t.Errorf("extracted tree (-want +got):\n%s", diff)
	}

	// A second extraction into the same directory fails and leaves it.
	if err := a.Extract(t.Context(), dir); err == nil || !errors.Is(err, fs.ErrExist) {
		t.Errorf("Extract into an existing directory = %v; want fs.ErrExist", err)
	}
	if diff := cmp.Diff(want, tree(t, dir)); diff != "" {
		t.Errorf("failed Extract changed the existing directory (-want +got):\n%s", diff)
	}
	// So does one into an existing empty directory, or a missing parent.
	empty := t.TempDir()
	if err := a.Extract(t.Context(), empty); err == nil {
		t.Errorf("Extract into an existing empty directory succeeded")
	}
	if _, err := os.Stat(empty); err != nil {
		t.Errorf("failed Extract removed the existing directory: %v", err)
	}
	if err := a.Extract(t.Context(), filepath.Join(t.TempDir(), "a", "b")); err == nil {
		t.Errorf("Extract with a missing parent succeeded")
	}
}

// countdown is a context whose Err starts to report cancellation after n
// calls, so a test can cancel extraction midway.
type countdown struct {
	context.Context
	n atomic.Int64
}

func (c *countdown) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func TestExtractCancelled(t *testing.T) {
	a, _ := layeredArchive(t)
	// Cancel after each possible number of checks, until extraction
	// completes: every earlier cancellation must leave nothing behind.
	for n := int64(0); ; n++ {
		ctx := &countdown{Context: t.Context()}
		ctx.n.Store(n)
		dir := filepath.Join(t.TempDir(), "out")
		err := a.Extract(ctx, dir)
		if err == nil {
			if n < 3 {
				t.Fatalf("Extract completed after %d context checks; the test cancels nothing", n)
			}
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Extract cancelled after %d checks = %v; want context.Canceled", n, err)
		}
		if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Extract cancelled after %d checks left %s behind (%v)", n, dir, err)
		}
	}
}

func TestExtractBadData(t *testing.T) {
	a := changed(t) // the data no longer matches the CRC-32 that Open checked
	dir := filepath.Join(t.TempDir(), "out")
	err := a.Extract(t.Context(), dir)
	var pe *vsix.ProblemsError
	if !errors.As(err, &pe) || len(pe.Problems) != 1 || pe.Problems[0].Rule != vsix.RuleChecksum {
		t.Errorf("Extract(changed) = %v; want a crc-mismatch", err)
	}
	if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("failed Extract left %s behind (%v)", dir, err)
	}
}

func TestExtractExactBytes(t *testing.T) {
	// A file whose data fills its declared size exactly, and an empty one.
	data := zipOf(t, func(zw *zip.Writer) error {
		for _, f := range []struct {
			name   string
			method uint16
			data   []byte
		}{
			{"a.bin", zip.Deflate, bytes.Repeat([]byte{0, 1, 2, 3}, 1<<14)},
			{"b.bin", zip.Store, bytes.Repeat([]byte{4, 5, 6, 7}, 1<<14)},
			{"empty", zip.Deflate, nil},
		} {
			w, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: f.method})
			if err != nil {
				return err
			}
			w.Write(f.data)
		}
		return nil
	})
	a, err := newReader(data, vsix.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := a.Extract(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	for _, e := range a.Entries() {
		fi, err := os.Stat(filepath.Join(dir, e.Name))
		if err != nil || fi.Size() != e.Size {
			t.Errorf("%s: %v, %v; want %d bytes", e.Name, fi, err, e.Size)
		}
	}
}
