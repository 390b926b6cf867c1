//go:build unix

package tempdir

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSweep makes the directories a sweep meets: one a killed process left
// (old, unlocked), one another process has only just made (young,
// unlocked), one a live process holds (old, locked), a symlink to a
// directory, and a directory of another prefix. New removes only the
// first.
func TestSweep(t *testing.T) {
	parent := t.TempDir()
	const prefix = "airvsx-test-"
	old := time.Now().Add(-2 * minAge)
	mkdir := func(name string, mtime time.Time) string {
		t.Helper()
		p := filepath.Join(parent, name)
		if err := os.MkdirAll(filepath.Join(p, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "sub", "f"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := mkdir(prefix+"stale", old)
	young := mkdir(prefix+"young", time.Now())
	other := mkdir("other-stale", old)
	target := mkdir("target", old)
	link := filepath.Join(parent, prefix+"link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	held, err := New(parent, prefix, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(held.Path, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the abandoned directory is still there (%v)", err)
	}

	d, err := New(parent, prefix, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{young, other, link, filepath.Join(target, "sub", "f"), held.Path, d.Path} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if fi, err := os.Stat(d.Path); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("new directory: %v, %v; want mode 0700", fi, err)
	}
	for _, x := range []*Dir{held, d} {
		if err := x.Remove(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(x.Path); !os.IsNotExist(err) {
			t.Errorf("%s still there after Remove (%v)", x.Path, err)
		}
	}
}
