package atomicfile_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/airvsx/airvsx/internal/atomicfile"
)

// wantOnly fails t unless dir holds name and nothing else: no temporary
// file is left behind.
func wantOnly(t *testing.T, dir, name string) {
	t.Helper()
	ds, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range ds {
		names = append(names, d.Name())
	}
	if len(names) != 1 || names[0] != name {
		t.Errorf("directory holds %q; want only %s", names, name)
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state.json")
	for _, content := range []string{"one", "two, longer"} {
		if err := atomicfile.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != content {
			t.Fatalf("after WriteFile(%q): %q, %v", content, got, err)
		}
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, %v; want 0600", fi.Mode(), err)
	}
	wantOnly(t, dir, "state.json")
}

func TestWriteFailureLeavesOld(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := atomicfile.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := atomicfile.Write(p, 0o644, func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write = %v; want boom", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "old" {
		t.Errorf("after a failed write the file holds %q; want old", got)
	}
	wantOnly(t, dir, "f")
}

func TestWriteExclusive(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "k.key")
	if err := atomicfile.WriteExclusive(p, []byte("first"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteExclusive(p, []byte("second"), 0o600); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second WriteExclusive = %v; want fs.ErrExist", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "first" {
		t.Errorf("file holds %q; want first", got)
	}
	wantOnly(t, dir, "k.key")
}
