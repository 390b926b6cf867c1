package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index/vsix/vsixtest"
	"github.com/airvsx/airvsx/internal/filetest"
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
// upgrade and an uninstall. Whatever the point,
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
		start := time.Now()
		run(append(op.args, "--extensions", timed)...)
		total := time.Since(start)
		t.Logf("%s: an uninterrupted run takes %v", op.name, total)
		for i := 1; i <= points; i++ {
			dir := filepath.Join(work, fmt.Sprintf("%s-%d", op.name, i))
			filetest.CopyDir(t, base, dir)
			cmd := child(append(op.args, "--extensions", dir)...)
			_, done := startCmd(t, cmd)
			select {
			case <-done:
			case <-time.After(total * time.Duration(i) / (points + 1)):
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
					t.Fatal(err)
				}
				var ee *exec.ExitError
				if err := <-done; errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled() {
					killed++
				}
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
