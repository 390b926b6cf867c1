package ocistore_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/ocistore"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/transfer"
)

// TestCopyLossless: the demo registry copied (transfer.Copy, what airvsx
// copy runs) from its directory into a distribution registry and from
// there into a new directory comes back byte for byte: every manifest,
// blob, index.json and metadata file.
func TestCopyLossless(t *testing.T) {
	r := startRegistry(t)
	demo := demoreg.Get(t)
	opts := transfer.Options{Anchor: trust.Anchor{Root: demo.Root}, Now: func() time.Time { return demoreg.VerifyNow }}

	src, err := dirstore.Open(demo.Dir, dirstore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	mid := r.open(t, ocistore.Options{})
	if _, err := transfer.Copy(t.Context(), src, mid, opts); err != nil {
		t.Fatalf("copy into the registry: %v", err)
	}
	back := filepath.Join(t.TempDir(), "back")
	dst, err := dirstore.Open(back, dirstore.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := transfer.Copy(t.Context(), mid, dst, opts); err != nil {
		t.Fatalf("copy out of the registry: %v", err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}

	// What a copy carries: the extensions' layouts and the metadata (not
	// the quarantine, which stays where it was written).
	carried := func(files map[string]string) map[string]string {
		out := map[string]string{}
		for p, b := range files {
			if strings.HasPrefix(p, "extensions/") || strings.HasPrefix(p, "metadata/") {
				out[p] = b
			}
		}
		return out
	}
	want, got := carried(filetest.Files(t, demo.Dir)), carried(filetest.Files(t, back))
	for p, b := range want {
		if g, ok := got[p]; !ok {
			t.Errorf("%s did not come back", p)
		} else if g != b {
			t.Errorf("%s came back changed", p)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s came back but was not there", p)
		}
	}
	if len(want) < 20 {
		t.Fatalf("only %d files compared", len(want))
	}
}
