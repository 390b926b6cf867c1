package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestIsolationRecorded: how the last run isolated the extensions is
// kept beside installed.json and shown by the listing; degraded isolation
// says so, with what was missing; a damaged record is an error naming the
// file.
func TestIsolationRecorded(t *testing.T) {
	at := time.Date(2026, 12, 2, 1, 2, 3, 0, time.UTC)
	for _, tc := range []struct {
		name string
		iso  Isolation
		want string
	}{
		{"full", Isolation{Time: at, Layers: "user+network+mount namespaces, Landlock ABI 7, seccomp"},
			"isolation: kernel sandbox at the run of 2026-12-02T01:02:03Z: user+network+mount namespaces, Landlock ABI 7, seccomp\n"},
		{"degraded", Isolation{Time: at, Degraded: true, Missing: []string{"Landlock (not available)", "seccomp (no filter for GOARCH riscv64)"}},
			"isolation: DEGRADED (--insecure-degraded-isolation) at the run of 2026-12-02T01:02:03Z: missing Landlock (not available); seccomp (no filter for GOARCH riscv64)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			l, err := Load(t.Context(), dir, DirOptions{StateDir: t.TempDir()})
			if err != nil || l.Isolation != nil {
				t.Fatalf("before any run: %v, %v", l.Isolation, err)
			}
			if err := RecordIsolation(t.Context(), dir, tc.iso); err != nil {
				t.Fatal(err)
			}
			if l, err = Load(t.Context(), dir, DirOptions{StateDir: t.TempDir()}); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := l.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(b.String(), tc.want) {
				t.Errorf("listing:\n%s\nwant it to end with\n%s", b.String(), tc.want)
			}
		})
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, IsolationFile), []byte(`{"time":"x"`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(t.Context(), dir, DirOptions{StateDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), IsolationFile+" is damaged") {
		t.Errorf("damaged record: %v", err)
	}
}
