package main

import (
	"bufio"
	"context"
	"io"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
)

// TestSyncShowsPlanAndStall runs a sync without a terminal whose only
// download the upstream holds back: while it waits, the plan is already
// on stdout, and stderr gets a progress line every --progress-every that
// names the stalled package. The sync is then stopped.
func TestSyncShowsPlanAndStall(t *testing.T) {
	srv := openvsxtest.New(t, openvsxtest.Options{SlowDelay: 10 * time.Minute})
	// The package's body, from storage (not the HEAD that asks the API
	// where it lives).
	srv.Fault("/cdn/*/*/*/airvsx-demo.night-theme-2.1.0.vsix", openvsxtest.Slow, openvsxtest.Always)
	work := t.TempDir()
	key := filepath.Join(work, "k")
	if out, err := airvsxCmd(t.Context(), t, "keygen", "--out", key).CombinedOutput(); err != nil {
		t.Fatalf("keygen: %v\n%s", err, out)
	}
	policy := filepath.Join(work, "p.yaml")
	filetest.WriteFile(t, policy, []byte("version: 1\nextensions:\n  - id: airvsx-demo.night-theme\n"))

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := airvsxCmd(ctx, t, "sync", "--upstream", srv.URL, "--rate", "200", "--policy", policy,
		"--registry", filepath.Join(work, "reg"), "--key", key+".key", "--progress-every", "100ms")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cancel() // kills the sync (first of the deferred calls)

	// lineOf sends the first line of r that matches re, or "" at its end.
	lineOf := func(r io.Reader, re *regexp.Regexp) <-chan string {
		ch := make(chan string, 1)
		go func() {
			s := bufio.NewScanner(r)
			found := ""
			for s.Scan() {
				if found == "" && re.MatchString(s.Text()) {
					found = s.Text()
					ch <- found
				}
			}
			if found == "" {
				ch <- ""
			}
		}()
		return ch
	}
	plan := lineOf(stdout, regexp.MustCompile(`^plan: 1 new, 0 unchanged`))
	stall := lineOf(stderr, regexp.MustCompile(`^sync: 0/1 done, 0 B of .* downloaded; waiting \d+m?s on airvsx-demo\.night-theme@2\.1\.0 \(no bytes for \d+m?s\)$`))
	for _, want := range []struct {
		what string
		ch   <-chan string
	}{{"the plan on stdout", plan}, {"a progress line naming the stalled download on stderr", stall}} {
		select {
		case line := <-want.ch:
			if line == "" {
				t.Fatalf("the sync ended without %s", want.what)
			}
		case <-ctx.Done():
			t.Fatalf("%s did not show while the download was held back", want.what)
		}
	}
}
