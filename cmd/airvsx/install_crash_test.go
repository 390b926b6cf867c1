package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index/vsix/vsixtest"
	"github.com/airvsx/airvsx/testkit/filetest"
)

// bigPackage writes a valid package of vsixtest's sample extension at
// version with 400 more files, so that unpacking, hashing and removing
// its folder take long enough for kills to land in them.
func bigPackage(t *testing.T, file, version string) {
	t.Helper()
	files := vsixtest.SampleFiles()
	files["extension/package.json"] = strings.Replace(files["extension/package.json"], `"version": "`+vsixtest.Version+`"`, `"version": "`+version+`"`, 1)
	files["extension.vsixmanifest"] = vsixtest.VSIXManifest(vsixtest.Publisher, vsixtest.Name, version, vsixtest.Asset{Type: vsixtest.AssetReadme, Path: "extension/README.md"})
	for i := range 400 {
		files[fmt.Sprintf("extension/data/%02d/f%04d.txt", i%20, i)] = strings.Repeat(fmt.Sprintf("%s %d\n", version, i*7919), 64)
	}
	if err := vsixtest.Write(file, vsixtest.Minimal(files)); err != nil {
		t.Fatal(err)
	}
}

// TestInstallKilled kills installs and uninstalls of a package of 400
// files (SIGKILL to a child process) at 4 points spread over each run: an
// upgrade and an uninstall. The points are fractions of the files an
// uninterrupted run makes and removes, counted as they come and go, not
// of its wall time, which the machine's load changes from one run to
// the next. Whatever the point,
// the next list exits 0 and leaves no staging folder, and the extension
// is enabled at the version before or after (an uninstall: installed or
// gone): a folder installed.json records is never lost, nothing is
// disabled. Some kill must have left a staging folder behind.
func TestInstallKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills 8 installs and uninstalls; skipped with -short")
	}
	work := t.TempDir()
	child := func(args ...string) *exec.Cmd {
		cmd := airvsxCmd(t.Context(), t, args...)
		cmd.Env = append(cmd.Env, "XDG_STATE_HOME="+filepath.Join(work, "state"))
		return cmd
	}
	restored := 0
	run := func(args ...string) []byte {
		t.Helper()
		cmd := child(args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("airvsx %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
		}
		restored += strings.Count(stderr.String(), "put an extension folder back")
		return out
	}
	v1, v2 := filepath.Join(work, "v1.vsix"), filepath.Join(work, "v2.vsix")
	bigPackage(t, v1, "1.0.0")
	bigPackage(t, v2, "1.1.0")
	base := filepath.Join(work, "base")
	run("install", v1, "--extensions", base)

	const points = 4
	killed, leftovers := 0, 0
	for _, op := range []struct {
		name     string
		args     []string
		versions []string // what list may show after; "" for nothing installed
	}{
		{"upgrade", []string{"install", v2}, []string{"1.0.0", "1.1.0"}},
		{"uninstall", []string{"uninstall", vsixtest.Publisher + "." + vsixtest.Name}, []string{"1.0.0", ""}},
	} {
		timed := filepath.Join(work, op.name+"-timed")
		filetest.CopyDir(t, base, timed)
		args := append(op.args, "--extensions", timed)
		cmd := child(args...)
		out, done := startCmd(t, cmd)
		total, err := killAt(t, cmd, done, newFileWork(timed), -1)
		if err != nil {
			t.Fatalf("airvsx %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		restored += strings.Count(out.String(), "put an extension folder back")
		t.Logf("%s: an uninterrupted run makes and removes %d files", op.name, total)
		for i := 1; i <= points; i++ {
			dir := filepath.Join(work, fmt.Sprintf("%s-%d", op.name, i))
			filetest.CopyDir(t, base, dir)
			cmd := child(append(op.args, "--extensions", dir)...)
			_, done := startCmd(t, cmd)
			_, err := killAt(t, cmd, done, newFileWork(dir), total*i/(points+1))
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled() {
				killed++
			}
			left, _ := filepath.Glob(filepath.Join(dir, ".*install-*"))
			leftovers += len(left)

			var l struct {
				Extensions []struct{ Version, State, Reason string }
				Warnings   []string
			}
			if err := json.Unmarshal(run("list", "--extensions", dir, "--json"), &l); err != nil {
				t.Fatal(err)
			}
			got := ""
			if len(l.Extensions) == 1 {
				got = l.Extensions[0].Version
				if l.Extensions[0].State != "enabled" {
					t.Errorf("%s point %d: %s %s: %s", op.name, i, got, l.Extensions[0].State, l.Extensions[0].Reason)
				}
			}
			if len(l.Extensions) > 1 || !slices.Contains(op.versions, got) || len(l.Warnings) != 0 {
				t.Errorf("%s point %d: list shows %+v; want one of versions %q, no warning", op.name, i, l, op.versions)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*install-*")); len(left) != 0 {
				t.Errorf("%s point %d: after list, staging folders %v are left", op.name, i, left)
			}
		}
	}
	t.Logf("%d of %d runs killed mid-run, %d staging folders left for list, %d folders put back", killed, 2*points, leftovers, restored)
	if killed < 2*points/2 || leftovers == 0 {
		t.Errorf("%d of %d runs killed, %d staging folders left: the points do not cover the runs", killed, 2*points, leftovers)
	}
}

// fileWork is how far a command that makes and removes files under dir
// has come: the files it has made since it started plus those it has
// removed since, as one sees them from outside.
type fileWork struct {
	dir        string
	start, top int
}

func newFileWork(dir string) *fileWork {
	n := countFiles(dir)
	return &fileWork{dir: dir, start: n, top: n}
}

// now counts the files under dir: the work done so far.
func (w *fileWork) now() int {
	n := countFiles(w.dir)
	w.top = max(w.top, n)
	return w.top - w.start + w.top - n
}

// countFiles counts the files under dir, staging folders included; the
// ones that go while it walks do not count.
func countFiles(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

// killAt sends SIGKILL to cmd, started with startCmd, once it has done
// at least at of work (at < 0: never), and waits for it to end; it
// returns the work done then and the error of cmd's Wait.
func killAt(t *testing.T, cmd *exec.Cmd, done <-chan error, w *fileWork, at int) (int, error) {
	t.Helper()
	for {
		select {
		case err := <-done:
			return w.now(), err
		default:
		}
		if n := w.now(); at >= 0 && n >= at {
			return n, sigkill(t, cmd, done)
		}
		time.Sleep(200 * time.Microsecond)
	}
}
