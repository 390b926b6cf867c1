package trust

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/testkit/signtest"
	"github.com/google/go-cmp/cmp"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/theupdateframework/go-tuf/v2/metadata"
)

// rotated publishes cat with oldKey and rotates to newKey an hour later.
func rotated(t *testing.T, cat []byte, oldKey, newKey signature.Signer) (dir string, root1 []byte, res *PublishResult) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "metadata")
	mustPublish(t, DirMetadata(dir), cat, oldKey, t0)
	root1 = filetest.ReadFile(t, filepath.Join(dir, "1.root.json"))
	res, err := RotateRoot(t.Context(), DirMetadata(dir), oldKey, newKey, PublishOptions{Now: at(t0.Add(time.Hour))})
	if err != nil {
		t.Fatalf("RotateRoot: %v", err)
	}
	return dir, root1, res
}

func TestRotateRoot(t *testing.T) {
	a, b := signtest.Signer(t), signtest.Signer(t)
	cat := trustCatalog(t, 1)
	dir, root1, res := rotated(t, cat, a, b)
	later := t0.Add(time.Hour)
	if diff := cmp.Diff([]string{"2.targets.json", "2.snapshot.json", "timestamp.json", "2.root.json", "root.json"}, res.Written); diff != "" {
		t.Errorf("RotateRoot wrote (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(State{Root: 2, Timestamp: 2, Snapshot: 2, Targets: 2}, res.State); diff != "" {
		t.Errorf("RotateRoot state (-want +got):\n%s", diff)
	}

	got, err := Load(t.Context(), DirMetadata(dir), root1, LoadOptions{Now: at(later)})
	if err != nil {
		t.Fatalf("Load after rotation: %v", err)
	}
	idB := keyIDOf(t, b)
	if got.Root.Version != 2 || !cmp.Equal(got.Root.KeyIDs, []string{idB}) || !cmp.Equal(got.Timestamp.KeyIDs, []string{idB}) {
		t.Errorf("Load after rotation: root %+v, timestamp %+v; want version 2 and key %s", got.Root, got.Timestamp, idB)
	}
	if !bytes.Equal(got.Catalog, cat) || !bytes.Equal(got.RootJSON, filetest.ReadFile(t, filepath.Join(dir, "2.root.json"))) {
		t.Errorf("Load after rotation returned the wrong catalog or root")
	}

	// The old key is no longer trusted; the new one is.
	if _, err := Publish(t.Context(), DirMetadata(dir), trustCatalog(t, 2), a, PublishOptions{Now: at(later)}); !errors.Is(err, ErrSignature) {
		t.Errorf("Publish with the rotated-out key = %v; want ErrSignature", err)
	}
	mustPublish(t, DirMetadata(dir), trustCatalog(t, 2), b, later)
	got, err = Load(t.Context(), DirMetadata(dir), root1, LoadOptions{Now: at(later), Previous: &res.State})
	if err != nil {
		t.Fatalf("Load after publishing with the new key: %v", err)
	}
	if diff := cmp.Diff(State{Root: 2, Timestamp: 3, Snapshot: 3, Targets: 3}, got.State()); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
}

func TestRotateRootCrash(t *testing.T) {
	a, b := signtest.Signer(t), signtest.Signer(t)
	cat := trustCatalog(t, 1)
	for n := range 5 {
		t.Run(fmt.Sprint("crash at write ", n), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "metadata")
			mustPublish(t, DirMetadata(dir), cat, a, t0)
			root1 := filetest.ReadFile(t, filepath.Join(dir, "1.root.json"))
			crash := &failingFS{MetadataFS: DirMetadata(dir), n: n}
			if _, err := RotateRoot(t.Context(), crash, a, b, PublishOptions{Now: at(t0)}); !errors.Is(err, errCrash) {
				t.Fatalf("RotateRoot = %v; want the simulated crash", err)
			}
			got, err := Load(t.Context(), DirMetadata(dir), root1, LoadOptions{Now: at(t0)})
			if err != nil {
				t.Fatalf("Load after a crashed rotation: %v", err)
			}
			if !bytes.Equal(got.Catalog, cat) {
				t.Errorf("Load after a crashed rotation returned another catalog")
			}
			// The rotation can be run again.
			if _, err := RotateRoot(t.Context(), DirMetadata(dir), a, b, PublishOptions{Now: at(t0)}); err != nil && n < 4 {
				t.Errorf("RotateRoot again: %v", err)
			}
		})
	}
}

func TestLoadRootRotationRules(t *testing.T) {
	a, b := signtest.Signer(t), signtest.Signer(t)
	later := t0.Add(time.Hour)
	// newRoot writes 2.root.json with b's key for every role.
	newRoot := func(t *testing.T, dir string, version int64, signers ...signature.Signer) {
		r := metadata.Root(t0.Add(DefaultRootExpires))
		r.Signed.Version = version
		k, _, err := signerKey(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, role := range []string{metadata.ROOT, metadata.TARGETS, metadata.SNAPSHOT, metadata.TIMESTAMP} {
			r.Signed.AddKey(k, role)
		}
		data, err := signed(r, signers)
		if err != nil {
			t.Fatal(err)
		}
		filetest.WriteFile(t, filepath.Join(dir, "2.root.json"), data)
	}
	tests := []struct {
		name    string
		tamper  func(t *testing.T, dir string)
		wantErr error
		wantMsg string
	}{
		{name: "signed by old and new", tamper: func(t *testing.T, dir string) { newRoot(t, dir, 2, a, b) }},
		{name: "signed only by the new key", tamper: func(t *testing.T, dir string) { newRoot(t, dir, 2, b) },
			wantErr: ErrSignature, wantMsg: "metadata/2.root.json"},
		{name: "signed only by the old key", tamper: func(t *testing.T, dir string) { newRoot(t, dir, 2, a) },
			wantErr: ErrSignature, wantMsg: "metadata/2.root.json"},
		{name: "version 3 in 2.root.json", tamper: func(t *testing.T, dir string) { newRoot(t, dir, 3, a, b) },
			wantErr: ErrMismatch, wantMsg: "metadata/2.root.json: version 3, want 2"},
		{name: "garbage 2.root.json", tamper: func(t *testing.T, dir string) { filetest.WriteFile(t, filepath.Join(dir, "2.root.json"), []byte("{")) },
			wantErr: ErrMalformed, wantMsg: "metadata/2.root.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, root1, _ := rotated(t, trustCatalog(t, 1), a, b)
			tt.tamper(t, dir)
			_, err := Load(t.Context(), DirMetadata(dir), root1, LoadOptions{Now: at(later)})
			checkLoadErr(t, err, tt.wantErr, tt.wantMsg)
		})
	}
}

func TestLoadRotationResetsRecordedVersions(t *testing.T) {
	a, b := signtest.Signer(t), signtest.Signer(t)
	dir, root1, _ := rotated(t, trustCatalog(t, 1), a, b)
	later := t0.Add(time.Hour)
	// Versions fast-forwarded by someone who held the old key are forgotten
	// when a newer root rotates the timestamp and snapshot keys...
	ff := &State{Root: 1, Timestamp: 99, Snapshot: 99, Targets: 99}
	if _, err := Load(t.Context(), DirMetadata(dir), root1, LoadOptions{Now: at(later), Previous: ff}); err != nil {
		t.Errorf("Load with fast-forwarded state before a rotation = %v; want nil", err)
	}
	// ...but not when the rotation was already recorded.
	ff.Root = 2
	if _, err := Load(t.Context(), DirMetadata(dir), root1, LoadOptions{Now: at(later), Previous: ff}); !errors.Is(err, ErrRollback) {
		t.Errorf("Load with fast-forwarded state after the rotation = %v; want ErrRollback", err)
	}
}

func TestPublishRenewsRoot(t *testing.T) {
	key := signtest.Signer(t)
	dir := filepath.Join(t.TempDir(), "metadata")
	mustPublish(t, DirMetadata(dir), trustCatalog(t, 1), key, t0)
	root1 := filetest.ReadFile(t, filepath.Join(dir, "1.root.json"))

	// 300 days later the 365-day root would expire before a 90-day catalog.
	later := t0.Add(300 * 24 * time.Hour)
	res := mustPublish(t, DirMetadata(dir), trustCatalog(t, 2), key, later)
	if !res.RootWritten || res.State.Root != 2 || !res.RootExpires.Equal(later.Add(DefaultRootExpires).Truncate(time.Second)) {
		t.Errorf("Publish near root expiry = %+v; want a renewed root 2", res)
	}
	if !bytes.Equal(filetest.ReadFile(t, filepath.Join(dir, "root.json")), filetest.ReadFile(t, filepath.Join(dir, "2.root.json"))) {
		t.Errorf("root.json is not the renewed root")
	}
	// Valid after the first root's expiry, from the first root.
	check := later.Add(80 * 24 * time.Hour)
	got, err := Load(t.Context(), DirMetadata(dir), root1, LoadOptions{Now: at(check)})
	if err != nil {
		t.Fatalf("Load after the first root's expiry: %v", err)
	}
	if got.Root.Version != 2 {
		t.Errorf("Load root version = %d; want 2", got.Root.Version)
	}
	// A publish well before expiry does not renew.
	res = mustPublish(t, DirMetadata(dir), trustCatalog(t, 3), key, later.Add(time.Hour))
	if res.RootWritten || res.State.Root != 2 {
		t.Errorf("Publish far from root expiry = %+v; want root 2 kept", res)
	}
}

func TestTrustOnFirstUse(t *testing.T) {
	a, b := signtest.Signer(t), signtest.Signer(t)
	dir := filepath.Join(t.TempDir(), "metadata")
	mustPublish(t, DirMetadata(dir), trustCatalog(t, 1), a, t0)
	root1 := filetest.ReadFile(t, filepath.Join(dir, "1.root.json"))

	got, err := TrustOnFirstUse(t.Context(), DirMetadata(dir), a)
	if err != nil || !bytes.Equal(got, root1) {
		t.Fatalf("TrustOnFirstUse(right key) = %d bytes, %v; want 1.root.json", len(got), err)
	}
	if _, err := Load(t.Context(), DirMetadata(dir), got, LoadOptions{Now: at(t0)}); err != nil {
		t.Errorf("Load from the TOFU root: %v", err)
	}
	if _, err := TrustOnFirstUse(t.Context(), DirMetadata(dir), b); !errors.Is(err, ErrSignature) || !strings.Contains(err.Error(), "is not a root key") {
		t.Errorf("TrustOnFirstUse(other key) = %v; want ErrSignature, not a root key", err)
	}
	if _, err := TrustOnFirstUse(t.Context(), DirMetadata(t.TempDir()), a); !errors.Is(err, ErrMissing) {
		t.Errorf("TrustOnFirstUse(empty dir) = %v; want ErrMissing", err)
	}
	// A root that lists a's key but was signed by b.
	editMeta(t, dir, "1.root.json", metadata.Root(), func(*metadata.RootType) {}, b)
	if _, err := TrustOnFirstUse(t.Context(), DirMetadata(dir), a); !errors.Is(err, ErrSignature) || !strings.Contains(err.Error(), "not signed by key") {
		t.Errorf("TrustOnFirstUse(root signed by another key) = %v; want ErrSignature, not signed", err)
	}
}

func TestRotateRootRefuses(t *testing.T) {
	a, b := signtest.Signer(t), signtest.Signer(t)
	if _, err := RotateRoot(t.Context(), DirMetadata(t.TempDir()), a, b, PublishOptions{}); !errors.Is(err, ErrMissing) {
		t.Errorf("RotateRoot(empty) = %v; want ErrMissing", err)
	}
	dir := filepath.Join(t.TempDir(), "metadata")
	mustPublish(t, DirMetadata(dir), trustCatalog(t, 1), a, t0)
	if _, err := RotateRoot(t.Context(), DirMetadata(dir), b, b, PublishOptions{Now: at(t0)}); !errors.Is(err, ErrSignature) {
		t.Errorf("RotateRoot(not the root key) = %v; want ErrSignature", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "2.root.json")); err == nil {
		t.Errorf("a refused RotateRoot wrote 2.root.json")
	}
}
