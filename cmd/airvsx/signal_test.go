package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/site/sitetest"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
)

// TestSignalStops sends SIGTERM to a verify, a site and a sync while they
// work: each stops within 2 s with a non-zero status and leaves no
// temporary file behind.
func TestSignalStops(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a large registry; skipped with -short")
	}
	work := t.TempDir()
	reg := filepath.Join(work, "reg")
	signer, key := demoreg.Signer(t, work, "k")
	if _, err := sitetest.Build(t.Context(), reg, sitetest.Synthetic(200, 1, 4<<10, 1), signer, sitetest.Options{}); err != nil {
		t.Fatal(err)
	}
	srv := openvsxtest.New(t, openvsxtest.Options{Latency: 200 * time.Millisecond})
	out, err := airvsxCmd(t.Context(), t, "keygen", "--out", filepath.Join(work, "sk")).CombinedOutput()
	if err != nil {
		t.Fatalf("keygen: %v\n%s", err, out)
	}
	policy := filepath.Join("..", "..", "policies", "examples", "demo.yaml")

	tests := []struct {
		name string
		args []string
		dir  string // where no temporary file may be left
		busy string // a glob that matches once the command is at work
	}{
		{"verify", []string{"verify", "--registry", reg, "--key", key, "--state", filepath.Join(work, "state"), "--no-cache"},
			work, filepath.Join(work, "state", "registries", "*")},
		{"site", []string{"site", "--registry", reg, "--key", key, "--state", filepath.Join(work, "state-site"), "--out", filepath.Join(work, "site")},
			work, filepath.Join(work, ".site.tmp-*")},
		{"sync", []string{"sync", "--upstream", srv.URL, "--rate", "1000", "--policy", policy, "--registry", filepath.Join(work, "synced"), "--key", filepath.Join(work, "sk.key")},
			filepath.Join(work, "synced"), filepath.Join(work, "synced", "airvsx-registry")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			cmd := airvsxCmd(ctx, t, tt.args...)
			buf, done := startCmd(t, cmd)
			// Signal as soon as the command is at work.
			for busy := time.Now().Add(10 * time.Second); ; time.Sleep(2 * time.Millisecond) {
				if m, _ := filepath.Glob(tt.busy); len(m) > 0 {
					break
				}
				select {
				case err := <-done:
					t.Skipf("finished (%v) before it could be signalled; this machine is faster than the test assumes", err)
				default:
				}
				if time.Now().After(busy) {
					t.Fatalf("no %s within 10 s\n%s", tt.busy, buf.String())
				}
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			select {
			case err = <-done:
			case <-time.After(2 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running 2 s after SIGTERM\n%s", buf.String())
			}
			t.Logf("stopped %v after SIGTERM: %v", time.Since(start).Round(time.Millisecond), err)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() == 0 {
				t.Errorf("exit %v after SIGTERM; want a non-zero status\n%s", err, buf.String())
			}
			if left := temps(t, tt.dir); len(left) > 0 {
				t.Errorf("left behind: %s", strings.Join(left, ", "))
			}
			// It says it was interrupted, and how to finish.
			if want := "airvsx: " + tt.name + ": interrupted before it finished"; !strings.Contains(buf.String(), want) || !strings.Contains(buf.String(), "again to finish") {
				t.Errorf("output lacks %q and how to finish:\n%s", want, buf.String())
			}
		})
	}
}

// temps lists the temporary files and directories under dir.
func temps(t *testing.T, dir string) []string {
	t.Helper()
	var left []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == dir {
			return nil
		}
		if err != nil {
			return err
		}
		if rel, _ := filepath.Rel(dir, p); strings.HasSuffix(filepath.ToSlash(rel), dirstore.CleanMark) {
			return nil // a registry writer's clean mark, not a temp file
		}
		if strings.Contains(d.Name(), ".tmp-") || strings.HasPrefix(d.Name(), ".tmp") {
			left = append(left, fmt.Sprint(p))
			if d.IsDir() {
				return fs.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return left
}

// TestInterruptedWording: a command stopped by a signal names itself once
// (not "run: … (run: …)"), says what it left and how to finish, and keeps
// the error it stopped with for the exit status; run and host, whose
// extension hosts keep nothing, do not tell of temporary files or of
// running them again to finish.
func TestInterruptedWording(t *testing.T) {
	tests := []struct {
		verb, path string
		err        error
		want       string
		wantNot    []string
	}{
		{"verify", "airvsx verify", fmt.Errorf("verify: hash blobs: %w", context.Canceled),
			`verify: interrupted before it finished (hash blobs: context canceled): what it wrote went through temporary files and renames, so nothing is half-written; run "airvsx verify" again to finish`, nil},
		{"run", "airvsx run", fmt.Errorf("run: launch host: no handshake: %w", context.Canceled),
			"run: interrupted (launch host: no handshake: context canceled): the extension hosts were stopped and their temporary files removed; nothing was left behind",
			[]string{"again to finish", ".tmp-", "temporary files and renames"}},
		{"host", "airvsx host", context.Canceled,
			"host: interrupted (context canceled): the extension hosts were stopped and their temporary files removed; nothing was left behind", nil},
	}
	for _, tt := range tests {
		err := interrupted(tt.verb, tt.path, tt.err)
		if err.Error() != tt.want {
			t.Errorf("%s: %q\nwant %q", tt.verb, err, tt.want)
		}
		for _, s := range tt.wantNot {
			if strings.Contains(err.Error(), s) {
				t.Errorf("%s: %q says %q", tt.verb, err, s)
			}
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: the error no longer wraps context.Canceled", tt.verb)
		}
	}
}
