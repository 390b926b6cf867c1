package trust

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/testkit/signtest"
)

// checkRegistry makes a directory registry published by s with one
// catalog of each serial.
func checkRegistry(t *testing.T, s signature.Signer, serials ...int64) (*dirstore.Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "reg")
	st := storetest.OpenDir(t, dir, dirstore.Options{Create: true})
	t.Cleanup(func() { st.Close() })
	for _, n := range serials {
		mustPublish(t, Metadata(t.Context(), st), trustCatalog(t, n), s, t0)
	}
	return st, dir
}

func TestCheckAnchor(t *testing.T) {
	keyA, keyB := signtest.Signer(t), signtest.Signer(t)
	st, dir := checkRegistry(t, keyA, 1)
	state := OpenStateDir(t.TempDir())
	opts := CheckOptions{State: state, Now: at(t0)}

	// Key A: first use, recorded with A's key ID.
	c, err := Check(t.Context(), st, Anchor{Key: keyA}, opts)
	if err != nil || !c.FirstUse {
		t.Fatalf("Check(key A) = %+v, %v; want first use", c, err)
	}
	if _, err := c.Record(nil); err != nil {
		t.Fatal(err)
	}
	if c, err = Check(t.Context(), st, Anchor{Key: keyA}, opts); err != nil || c.FirstUse {
		t.Fatalf("second Check(key A) = %v; want no first use", err)
	}

	// Key B, with A's record in the state: refused, naming both key IDs.
	_, err = Check(t.Context(), st, Anchor{Key: keyB}, opts)
	idA, idB := keyIDOf(t, keyA), keyIDOf(t, keyB)
	if !errors.Is(err, ErrSignature) || !strings.Contains(err.Error(), idA) || !strings.Contains(err.Error(), idB) {
		t.Errorf("Check(key B) after key A = %v; want ErrSignature naming %s and %s", err, idB, idA)
	}
	// Without state, B is refused too.
	if _, err := Check(t.Context(), st, Anchor{Key: keyB}, CheckOptions{Now: at(t0)}); !errors.Is(err, ErrSignature) {
		t.Errorf("Check(key B, no state) = %v; want ErrSignature", err)
	}

	// Root mode: this registry's root passes; another registry's root,
	// even one of the same key, is not on this chain.
	root := filetest.ReadFile(t, filepath.Join(dir, "metadata", "1.root.json"))
	if _, err := Check(t.Context(), st, Anchor{Root: root}, CheckOptions{Now: at(t0)}); err != nil {
		t.Errorf("Check(own root) = %v", err)
	}
	_, otherDir := checkRegistry(t, keyB, 1)
	other := filetest.ReadFile(t, filepath.Join(otherDir, "metadata", "1.root.json"))
	if _, err := Check(t.Context(), st, Anchor{Root: other}, CheckOptions{Now: at(t0)}); err == nil {
		t.Error("Check(another registry's root) = nil error")
	}
	_, sameKeyDir := checkRegistry(t, keyA, 1)
	sameKey := filetest.ReadFile(t, filepath.Join(sameKeyDir, "metadata", "1.root.json"))
	if _, err := Check(t.Context(), st, Anchor{Root: sameKey}, CheckOptions{Now: at(t0)}); !errors.Is(err, ErrMismatch) {
		t.Errorf("Check(a root of the same key from another registry) = %v; want ErrMismatch: not on the chain", err)
	}
	if _, err := Check(t.Context(), st, Anchor{}, opts); !errors.Is(err, ErrNoAnchor) {
		t.Errorf("Check(no anchor) = %v; want ErrNoAnchor", err)
	}
}

// TestCheckSavedRootOnChain: a registry whose root history was rewritten
// (same key, new 1.root.json bytes: a different registry or a replay)
// fails against the root saved before.
func TestCheckSavedRootOnChain(t *testing.T) {
	key := signtest.Signer(t)
	st, _ := checkRegistry(t, key, 1)
	state := OpenStateDir(t.TempDir())
	opts := CheckOptions{State: state, Now: at(t0)}
	c, err := Check(t.Context(), st, Anchor{Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := c.Decode(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Record(cat); err != nil {
		t.Fatal(err)
	}
	// Save a root of the same version that is not the registry's.
	_, otherDir := checkRegistry(t, key, 1)
	s, _, err := state.Load(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := state.Save(s, filetest.ReadFile(t, filepath.Join(otherDir, "metadata", "1.root.json"))); err != nil {
		t.Fatal(err)
	}
	if _, err := Check(t.Context(), st, Anchor{Key: key}, opts); !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "not on the registry's chain") {
		t.Errorf("Check with a saved root off the chain = %v; want ErrMismatch", err)
	}
}

func TestCheckCatalogHistory(t *testing.T) {
	key := signtest.Signer(t)
	st, _ := checkRegistry(t, key, 5)
	state := OpenStateDir(t.TempDir())
	c, err := Check(t.Context(), st, Anchor{Key: key}, CheckOptions{State: state, Now: at(t0)})
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := c.Decode(t.Context())
	for _, tt := range []struct {
		name string
		prev RegistryState
		want error
	}{
		{"none", RegistryState{}, nil},
		{"rollback", RegistryState{Serial: 6, Digest: "sha256:x"}, ErrCatalogRollback},
		{"fork", RegistryState{Serial: 5, Digest: "sha256:x"}, ErrCatalogFork},
		{"chain", RegistryState{Serial: 4, Digest: "sha256:x"}, ErrCatalogChain},
		{"same", RegistryState{Serial: 5, Digest: c.CatalogDigest}, nil},
	} {
		c.Previous = tt.prev
		if err := c.CheckCatalog(cat); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
			t.Errorf("%s: CheckCatalog = %v; want %v", tt.name, err, tt.want)
		}
	}
}

func TestStateDirDamaged(t *testing.T) {
	d := OpenStateDir(t.TempDir())
	if err := d.Save(RegistryState{Registry: "abc", Serial: 3}, []byte("root")); err != nil {
		t.Fatal(err)
	}
	s, root, err := d.Load("abc")
	if err != nil || s.Serial != 3 || string(root) != "root" || s.Format != StateFormat {
		t.Fatalf("Load = %+v, %q, %v", s, root, err)
	}
	if _, _, err := d.Load("other"); err != nil {
		t.Errorf("Load(never seen) = %v; want the zero state", err)
	}
	if err := os.WriteFile(filepath.Join(d.RegistryPath("abc"), "state.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.Load("abc"); !errors.Is(err, ErrState) || !strings.Contains(err.Error(), "remove it to start over") {
		t.Errorf("Load(damaged) = %v; want ErrState with a way out", err)
	}
}

// TestCheckNeverPublished: a registry that never published is ErrNoCatalog
// (and ErrMissing, naming timestamp.json) in both modes; one that
// published but lost a file is ErrMissing alone.
func TestCheckNeverPublished(t *testing.T) {
	key := signtest.Signer(t)
	empty, _ := checkRegistry(t, key)
	_, dir := checkRegistry(t, key, 1)
	root := filetest.ReadFile(t, filepath.Join(dir, "metadata", "1.root.json"))
	for name, a := range map[string]Anchor{"key": {Key: key}, "root": {Root: root}} {
		_, err := Check(t.Context(), empty, a, CheckOptions{Now: at(t0)})
		if !errors.Is(err, ErrNoCatalog) || !errors.Is(err, ErrMissing) || !strings.HasPrefix(err.Error(), "metadata/timestamp.json: ") {
			t.Errorf("%s: Check(empty) = %v; want ErrNoCatalog and ErrMissing naming timestamp.json", name, err)
		}
	}
	st, dir := checkRegistry(t, key, 1)
	snaps, _ := filepath.Glob(filepath.Join(dir, "metadata", "*.snapshot.json"))
	for _, p := range snaps {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Check(t.Context(), st, Anchor{Key: key}, CheckOptions{Now: at(t0)}); !errors.Is(err, ErrMissing) || errors.Is(err, ErrNoCatalog) {
		t.Errorf("Check(snapshot removed) = %v; want ErrMissing, not ErrNoCatalog", err)
	}
}

// TestCheckPinnedRootName: a pinned root off the registry's chain is named
// as the caller names it (Anchor.RootName), "the pinned root" by default.
func TestCheckPinnedRootName(t *testing.T) {
	key := signtest.Signer(t)
	st, _ := checkRegistry(t, key, 1)
	_, otherDir := checkRegistry(t, key, 1)
	other := filetest.ReadFile(t, filepath.Join(otherDir, "metadata", "1.root.json"))
	for _, tt := range []struct{ name, want string }{
		{"", "the pinned root (version 1) is not on the registry's chain"},
		{"the root of --root", "the root of --root (version 1) is not on the registry's chain"},
	} {
		_, err := Check(t.Context(), st, Anchor{Root: other, RootName: tt.name}, CheckOptions{Now: at(t0)})
		var fe *FileError
		if !errors.Is(err, ErrMismatch) || !errors.As(err, &fe) || !strings.HasPrefix(fe.Msg, tt.want) || fe.File != "metadata/1.root.json" {
			t.Errorf("Check(RootName %q) = %v; want metadata/1.root.json: %s…", tt.name, err, tt.want)
		}
	}
}
