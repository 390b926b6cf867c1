package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/airvsx/airvsx/site/sitetest"
	"github.com/airvsx/airvsx/testkit/demoreg"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeSIGTERM: airvsx serve answers until SIGTERM, then finishes
// the request in flight (a package being downloaded slowly), shuts down
// and exits 0.
func TestServeSIGTERM(t *testing.T) {
	work := t.TempDir()
	reg := filepath.Join(work, "reg")
	signer, key := demoreg.Signer(t, work, "k")
	cat, err := sitetest.Build(t.Context(), reg, sitetest.Synthetic(3, 1, 4<<20, 1), signer, sitetest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := cat.Entries[0]
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := airvsxCmd(ctx, t, "serve", "--registry", reg, "--key", key, "--no-state", "--addr", "127.0.0.1:0", "--no-site")
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	re := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)\n`)
	var base string
	for deadline := time.Now().Add(15 * time.Second); base == ""; time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start within 15 s\n%s", out.String())
		}
	}
	resp, err := http.Get(base + "/vscode/gallery/publishers/" + e.ID.Namespace + "/vsextensions/" + e.ID.Name + "/" + e.Version + "/vspackage")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// Read a little, signal, then read the rest slowly: the download in
	// flight finishes.
	first := make([]byte, 1<<10)
	if _, err := io.ReadFull(resp.Body, first); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	rest, err := io.ReadAll(resp.Body)
	if err != nil || int64(len(first)+len(rest)) != e.VsixSize {
		t.Fatalf("the download in flight at SIGTERM: %d of %d bytes, %v", len(first)+len(rest), e.VsixSize, err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve exited with %v after SIGTERM; want 0\n%s", err, out.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("serve still running 15 s after SIGTERM\n%s", out.String())
	}
	if !bytes.Contains([]byte(out.String()), []byte("serve: shut down\n")) {
		t.Errorf("no shutdown line\n%s", out.String())
	}
}
