package safefile_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/airvsx/airvsx/internal/safefile"
)

// within fails the test if f does not return within 5 s: the point of the
// package is that nothing blocks.
func within(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("blocked for 5 s")
		return nil
	}
}

func TestReadFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("small", "hello")
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("small", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("fifo", filepath.Join(dir, "fifolink")); err != nil {
		t.Fatal(err)
	}
	// A sparse file far over its cap: refused by its size, not read.
	big, err := os.Create(filepath.Join(dir, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(20 << 30); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	big.Close()

	tests := []struct {
		name    string
		path    string // relative to dir unless absolute
		max     int64
		want    string // content, or
		wantErr string // substring of the error (both Open and OpenIn)
		inErr   string // OpenIn's error when it differs
		tooBig  bool
	}{
		{name: "regular", path: "small", max: 5, want: "hello"},
		{name: "no cap", path: "small", max: -1, want: "hello"},
		{name: "over the cap", path: "small", max: 4, wantErr: "small: 5 bytes, more than the 4 allowed", tooBig: true},
		{name: "sparse 20 GiB", path: "sparse", max: 512 << 20, wantErr: "more than the 536870912 allowed", tooBig: true},
		{name: "fifo", path: "fifo", max: 1 << 20, wantErr: "fifo is a named pipe (FIFO), not a regular file"},
		{name: "directory", path: "dir", max: 1 << 20, wantErr: "dir is a directory, not a regular file"},
		{name: "char device", path: "/dev/zero", max: 1 << 20, wantErr: "/dev/zero is a character device, not a regular file"},
		{name: "symlink", path: "link", max: 5, want: "hello", inErr: "link is a symbolic link, not a regular file"},
		{name: "symlink to fifo", path: "fifolink", max: 5, wantErr: "fifolink is a named pipe (FIFO), not a regular file", inErr: "fifolink is a symbolic link, not a regular file"},
		{name: "missing", path: "missing", max: 5, wantErr: "no such file"},
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	check := func(t *testing.T, what string, got []byte, err error, want, wantErr string, tooBig bool) {
		t.Helper()
		if wantErr == "" {
			if err != nil || string(got) != want {
				t.Fatalf("%s = %q, %v; want %q", what, got, err, want)
			}
			return
		}
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("%s: error %v; want one containing %q", what, err, wantErr)
		}
		if errors.Is(err, safefile.ErrTooLarge) != tooBig {
			t.Fatalf("%s: errors.Is(%v, ErrTooLarge) != %v", what, err, tooBig)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.path
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			var got []byte
			err := within(t, func() (err error) { got, err = safefile.ReadFile(p, tt.max); return err })
			check(t, "ReadFile", got, err, tt.want, tt.wantErr, tt.tooBig)
			if filepath.IsAbs(tt.path) {
				return
			}
			wantErr := tt.wantErr
			if tt.inErr != "" {
				wantErr = tt.inErr
			}
			err = within(t, func() (err error) { got, err = safefile.ReadIn(root, tt.path, tt.max); return err })
			check(t, "ReadIn", got, err, tt.want, wantErr, tt.tooBig)
		})
	}
}

// TestEscapes: os.Root's refusal of a path a link leads out of is
// recognised however deep in PathErrors it is, and nothing else is.
func TestEscapes(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	_, openErr := root.Open("out/x")
	mkdirErr := root.MkdirAll("out", 0o755) // "mkdirat out: statat out: path escapes from parent"
	_, missing := root.Open("nothing")
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"open through the link", openErr, true},
		{"MkdirAll of the link (nested PathErrors)", mkdirErr, true},
		{"ours", &os.PathError{Op: "open", Path: "x", Err: safefile.ErrEscapes}, true},
		{"wrapped", fmt.Errorf("open registry: %w", mkdirErr), true},
		{"a missing file", missing, false},
		{"nil", nil, false},
		{"another error", errors.New("path escapes from parent"), false},
	}
	for _, tt := range tests {
		if got := safefile.Escapes(tt.err); got != tt.want {
			t.Errorf("%s: Escapes(%v) = %v; want %v", tt.name, tt.err, got, tt.want)
		}
	}
}
