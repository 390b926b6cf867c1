package serve_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/serve"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
)

// noFiles is a directory store that hides its files (store.BlobFiler),
// as an OCI registry or a git repository has none.
type noFiles struct{ store.Store }

// TestStreamedBlobs: from a store without files a package is streamed
// through the verifying reader, byte for byte; a Range is still
// answered; a damaged blob is cut off before its last byte, so the
// client never holds a complete wrong file.
func TestStreamedBlobs(t *testing.T) {
	reg := demoreg.Get(t)
	dir := filepath.Join(t.TempDir(), "registry")
	filetest.CopyDir(t, reg.Dir1, dir)
	srv, err := serve.New(t.Context(), serve.Options{
		Open: func(context.Context) (store.Store, error) {
			st, err := dirstore.Open(dir, dirstore.Options{ReadOnly: true})
			return noFiles{st}, err
		},
		Anchor: trust.Anchor{Key: reg.Signer}, Now: func() time.Time { return demoreg.VerifyNow }, Poll: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{dir: dir, srv: srv, ts: newTestServer(t, srv), reg: reg}
	cat := catalog(t, dir)
	e, bad := &cat.Entries[0], &cat.Entries[1]
	path := func(e *index.Entry) string {
		return "/vscode/gallery/publishers/" + e.ID.Namespace + "/vsextensions/" + e.ID.Name + "/" + e.Version + "/vspackage?targetPlatform=" + string(e.Platform)
	}
	want := vsixBytes(t, dir, e)
	resp, got := f.get(t, path(e))
	if resp.StatusCode != http.StatusOK || !bytes.Equal(got, want) {
		t.Fatalf("streamed: %s, %d bytes; want %d", resp.Status, len(got), len(want))
	}
	if resp, got := f.get(t, path(e), "Range", "bytes=5-9"); resp.StatusCode != http.StatusPartialContent || !bytes.Equal(got, want[5:10]) {
		t.Errorf("Range: %s %q", resp.Status, got)
	}

	// Damage the other package's last byte.
	blob := filepath.Join(dir, filepath.FromSlash(artifact.BlobName(artifact.Repo(bad.ID), index.SHA256Digest(bad.VsixSHA256))))
	b := filetest.ReadFile(t, blob)
	b[len(b)-1] ^= 0xff
	if err := os.WriteFile(blob, b, 0o644); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(t.Context(), "GET", f.ts.URL+path(bad), nil)
	req.Header.Set("Accept-Encoding", "identity")
	r, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	body, err := io.ReadAll(r.Body)
	if err == nil || int64(len(body)) >= bad.VsixSize {
		t.Fatalf("a damaged blob: %s, %d of %d bytes, read error %v; want it cut off before its end", r.Status, len(body), bad.VsixSize, err)
	}
}
