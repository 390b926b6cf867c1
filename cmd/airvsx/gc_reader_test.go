package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/synthreg"
)

// TestGCWaitsForReader: a reader (here this test process) that has the
// registry open, as a verify that read the previous catalog has, makes
// an airvsx gc wait, saying so on stderr; the gc finishes once the
// reader closes it.
func TestGCWaitsForReader(t *testing.T) {
	ctx := t.Context()
	work := t.TempDir()
	signer, _ := demoreg.Signer(t, work, "k")
	reg := filepath.Join(work, "reg")
	cat, err := synthreg.Build(ctx, reg, synthreg.Options{Entries: 4, Signer: signer}, synthreg.RandomEntry("x", 1000))
	if err != nil {
		t.Fatal(err)
	}
	reader, err := dirstore.Open(reg, dirstore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	// What sync --prune leaves, signed while the reader has the registry
	// open: the reader may be about to read a blob gc would delete.
	w, err := dirstore.Open(reg, dirstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, digest := demoCatalogDigest(t, reg)
	next := index.Catalog{Format: index.CatalogFormat, Serial: 2, Created: cat.Created.Add(time.Second), Previous: digest, Entries: cat.Entries[:1]}
	if _, err := trust.PublishCatalog(ctx, trust.Metadata(ctx, w), &next, signer, trust.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	before := blobFiles(t, reg)
	cmd := airvsxCmd(ctx, t, "gc", "--registry", reg)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), "waiting for the readers of") {
		select {
		case err := <-done:
			t.Fatalf("gc finished (%v) while a reader had the registry open:\n%s", err, out.Bytes())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			sigkill(t, cmd, done)
			t.Fatalf("gc did not say it waits:\n%s", out.Bytes())
		}
	}
	time.Sleep(300 * time.Millisecond)
	if got := blobFiles(t, reg); got != before {
		t.Errorf("gc deleted %d blobs while the reader had the registry open", before-got)
	}
	reader.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("gc after the reader closed: %v\n%s", err, out.Bytes())
		}
	case <-time.After(20 * time.Second):
		sigkill(t, cmd, done)
		t.Fatalf("gc did not finish once the reader closed:\n%s", out.Bytes())
	}
	if !strings.Contains(out.String(), "untagged 3 tags") || blobFiles(t, reg) >= before {
		t.Errorf("gc once the reader closed:\n%s\nwant the 3 dropped entries collected", out.Bytes())
	}
}

// lockedBuffer is a buffer a child process writes to while the test
// reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *lockedBuffer) Bytes() []byte { return []byte(b.String()) }
