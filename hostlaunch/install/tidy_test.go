package install_test

import (
	"bytes"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/airvsx/airvsx/hostlaunch/install"
	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/testkit/filetest"
)

// Where a killed install or uninstall leaves things: the staging folders
// (names as os.MkdirTemp makes them) and ok.x's folder.
const (
	okDir      = "ok.x-1.0.0"
	inStaging  = ".install-123456"
	outStaging = ".uninstall-654321"
)

var otherID = index.ID{Namespace: "other", Name: "y"}

// mkdirs makes the directories of dir named in names.
func mkdirs(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := os.MkdirAll(filepath.Join(dir, n), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// rename renames within dir, failing the test on an error.
func rename(t *testing.T, dir, from, to string) {
	t.Helper()
	if err := os.Rename(filepath.Join(dir, from), filepath.Join(dir, to)); err != nil {
		t.Fatal(err)
	}
}

// names lists dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestTidy builds on disk what an install or uninstall killed at each
// step leaves, and checks that the next Tidy, install, uninstall or other
// write puts back the folder a record still names (only a copy that
// matches its files, never through a symbolic link) and removes the
// staging folders.
func TestTidy(t *testing.T) {
	tests := []struct {
		name string
		// kill makes, in the extensions directory holding ok.x and
		// other.y, what the kill left.
		kill     func(t *testing.T, dir string)
		restored string // the copy put back, "" for none
		ok       string // ok.x's state after: "enabled", "missing", "gone"
	}{
		{"install: only what it unpacked", func(t *testing.T, dir string) {
			mkdirs(t, dir, inStaging+"/pkg-1/extension/out")
			filetest.WriteFile(t, filepath.Join(dir, inStaging, "pkg-1/extension/out/x.js"), []byte("x"))
			filetest.WriteFile(t, filepath.Join(dir, inStaging, "blob-1234"), []byte("partial vsix"))
		}, "", "enabled"},
		{"install: folder moved aside, the new one not yet in", func(t *testing.T, dir string) {
			mkdirs(t, dir, inStaging+"/pkg-1/extension")
			rename(t, dir, okDir, inStaging+"/old-0-"+okDir)
		}, inStaging + "/old-0-" + okDir, "enabled"},
		{"install: the new folder in, installed.json not written", func(t *testing.T, dir string) {
			mkdirs(t, dir, inStaging)
			rename(t, dir, okDir, inStaging+"/old-3-"+okDir)
			mkdirs(t, dir, okDir)
			filetest.WriteFile(t, filepath.Join(dir, okDir, "extension.js"), []byte("the new build"))
		}, inStaging + "/old-3-" + okDir, "enabled"},
		{"uninstall: folder moved aside, installed.json not written", func(t *testing.T, dir string) {
			mkdirs(t, dir, outStaging)
			rename(t, dir, okDir, outStaging+"/"+okDir)
		}, outStaging + "/" + okDir, "enabled"},
		{"uninstall: installed.json written", func(t *testing.T, dir string) {
			mkdirs(t, dir, outStaging)
			rename(t, dir, okDir, outStaging+"/"+okDir)
			forge(t, dir, func(x *install.Index) {
				x.Extensions = slices.DeleteFunc(x.Extensions, func(r install.Record) bool { return r.ID.Equal(okID) })
			})
		}, "", "gone"},
		{"a copy whose files changed", func(t *testing.T, dir string) {
			mkdirs(t, dir, outStaging)
			rename(t, dir, okDir, outStaging+"/"+okDir)
			filetest.WriteFile(t, filepath.Join(dir, outStaging, okDir, "extension.js"), []byte("evil()"))
		}, "", "missing"},
		{"a copy through a symbolic link", func(t *testing.T, dir string) {
			mkdirs(t, dir, outStaging)
			elsewhere := filepath.Join(t.TempDir(), okDir)
			filetest.CopyDir(t, filepath.Join(dir, okDir), elsewhere)
			if err := os.RemoveAll(filepath.Join(dir, okDir)); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(elsewhere, filepath.Join(dir, outStaging, okDir)); err != nil {
				t.Skip(err)
			}
		}, "", "missing"},
		{"a staging folder that is a symbolic link", func(t *testing.T, dir string) {
			elsewhere := t.TempDir()
			rename(t, dir, okDir, "moved")
			if err := os.Rename(filepath.Join(dir, "moved"), filepath.Join(elsewhere, okDir)); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(elsewhere, filepath.Join(dir, outStaging)); err != nil {
				t.Skip(err)
			}
		}, "", "missing"},
		{"the folder in place, a copy in staging", func(t *testing.T, dir string) {
			filetest.CopyDir(t, filepath.Join(dir, okDir), filepath.Join(dir, outStaging, okDir))
		}, "", "enabled"},
	}
	for _, tt := range tests {
		for _, via := range []string{"Tidy", "FromFile", "Uninstall", "Disable"} {
			t.Run(tt.name+"/"+via, func(t *testing.T) {
				opts := options(t)
				installOK(t, opts)
				if _, err := install.FromFile(t.Context(), writePkg(t, "other", "y", "1.0.0", nil, nil), opts); err != nil {
					t.Fatal(err)
				}
				tt.kill(t, opts.Dir)
				var logs bytes.Buffer
				opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
				dopts := install.DirOptions{StateDir: opts.StateDir, Logger: opts.Logger}
				ctx := t.Context()
				switch via {
				case "Tidy":
					got, err := install.Tidy(ctx, opts.Dir, dopts)
					if err != nil {
						t.Fatal(err)
					}
					var want []install.Restored
					if tt.restored != "" {
						want = []install.Restored{{Extension: "ok.x@1.0.0", Dir: okDir, From: filepath.FromSlash(tt.restored)}}
					}
					if !slices.Equal(got.Restored, want) || got.Busy || len(got.Removed) != 1 || !strings.HasPrefix(got.Removed[0], ".") {
						t.Errorf("Tidy = %+v; want restored %v and one staging folder removed", got, want)
					}
				case "FromFile":
					if _, err := install.FromFile(ctx, writePkg(t, "other", "z", "1.0.0", nil, nil), opts); err != nil {
						t.Fatal(err)
					}
				case "Uninstall":
					if _, err := install.Uninstall(ctx, opts.Dir, otherID, false, dopts); err != nil {
						t.Fatal(err)
					}
				case "Disable":
					if err := install.Disable(ctx, opts.Dir, otherID, "crashed", dopts); err != nil {
						t.Fatal(err)
					}
				}
				for _, n := range names(t, opts.Dir) {
					if strings.HasPrefix(n, ".install-") || strings.HasPrefix(n, ".uninstall-") {
						t.Errorf("staging folder %s left", n)
					}
				}
				if put := strings.Contains(logs.String(), "put an extension folder back"); put != (tt.restored != "") {
					t.Errorf("logged:\n%s\nwant a line of a folder put back: %v", logs.String(), tt.restored != "")
				}
				if !strings.Contains(logs.String(), "removed a staging folder left by an interrupted install or uninstall") {
					t.Errorf("logged:\n%s\nwant a line of the staging folder removed", logs.String())
				}
				l := loaded(t, opts)
				switch r := l.Find(okID); {
				case tt.ok == "gone":
					if r != nil {
						t.Errorf("ok.x: %+v; want no record", r)
					}
					if _, err := os.Lstat(filepath.Join(opts.Dir, okDir)); err == nil {
						t.Errorf("ok.x's folder is back, with no record")
					}
				case tt.ok == "enabled" && !r.Enabled:
					t.Errorf("ok.x disabled: %s", r.Reason)
				case tt.ok == "missing" && (r.Enabled || !strings.Contains(r.Reason, "its folder "+okDir+" is missing")):
					t.Errorf("ok.x: enabled %v, %q; want its folder missing", r.Enabled, r.Reason)
				}
			})
		}
	}
}

// TestTidyNothingLeft: with no staging folder Tidy changes nothing, and
// an extensions directory that does not exist is an error.
func TestTidyNothingLeft(t *testing.T) {
	opts := options(t)
	installOK(t, opts)
	before := names(t, opts.Dir)
	got, err := install.Tidy(t.Context(), opts.Dir, install.DirOptions{})
	if err != nil || got.Busy || len(got.Restored)+len(got.Removed) != 0 {
		t.Errorf("Tidy = %+v, %v; want nothing done", got, err)
	}
	if after := names(t, opts.Dir); !slices.Equal(before, after) {
		t.Errorf("Tidy changed %v into %v", before, after)
	}
	if _, err := install.Tidy(t.Context(), filepath.Join(t.TempDir(), "none"), install.DirOptions{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Tidy of a missing directory = %v; want an error wrapping fs.ErrNotExist", err)
	}
}
