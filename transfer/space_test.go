package transfer_test

import (
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/transfer"
)

// TestCopySpace: a copy into a directory reports the file system's free
// space and what the copy needs there, and what it needs is no less than
// the space the copied registry then takes on disk.
func TestCopySpace(t *testing.T) {
	reg := demoreg.Get(t)
	dir := filepath.Join(t.TempDir(), "dst")
	dst := openDir(t, dir)
	before := diskUsage(t, dir) // the new registry's marker and lock
	rep, err := transfer.Copy(t.Context(), readOnly(t, reg.Dir), dst, options(reg))
	if err != nil {
		t.Fatal(err)
	}
	if rep.DestFree <= 0 || rep.Needs < rep.Bytes {
		t.Fatalf("DestFree %d, Needs %d for %d bytes; want free space and at least the bytes", rep.DestFree, rep.Needs, rep.Bytes)
	}
	if used := diskUsage(t, dir) - before; used > rep.Needs {
		t.Errorf("the copy takes %d bytes on disk; it said it needs %d", used, rep.Needs)
	}
}

// diskUsage is the space the files and directories under dir take on
// disk (du).
func diskUsage(t *testing.T, dir string) int64 {
	t.Helper()
	var used int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		used += fi.Sys().(*syscall.Stat_t).Blocks * 512
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return used
}
