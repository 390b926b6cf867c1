package trust

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/testkit/signtest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/theupdateframework/go-tuf/v2/metadata"
)

// t0 is the pinned clock of the trust tests.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 500, time.UTC)

func at(t time.Time) func() time.Time { return func() time.Time { return t } }

// checkLoadErr checks what Load returned: an error wrapping wantErr (nil:
// no error) and, when there is one, a message that contains wantMsg.
func checkLoadErr(t *testing.T, err, wantErr error, wantMsg string) {
	t.Helper()
	if !errors.Is(err, wantErr) {
		t.Fatalf("Load = %v; want %v", err, wantErr)
	}
	if err != nil && !strings.Contains(err.Error(), wantMsg) {
		t.Errorf("Load error %q does not contain %q", err, wantMsg)
	}
}

func keyIDOf(t *testing.T, s signature.SignerVerifier) string {
	t.Helper()
	id, err := KeyID(signtest.PublicKey(t, s))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func trustCatalog(t *testing.T, serial int64) []byte {
	t.Helper()
	c := &index.Catalog{Format: 1, Serial: serial, Created: t0, Upstream: "https://open-vsx.example"}
	b, err := c.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustPublish(t *testing.T, fsys MetadataFS, catalog []byte, s signature.Signer, now time.Time) *PublishResult {
	t.Helper()
	res, err := Publish(t.Context(), fsys, catalog, s, PublishOptions{Now: at(now)})
	if err != nil {
		t.Fatalf("Publish: %v", err)
	}
	return res
}

func TestPublishLoad(t *testing.T) {
	ctx := t.Context()
	key := signtest.Signer(t)
	id := keyIDOf(t, key)
	dir := filepath.Join(t.TempDir(), "metadata")
	fsys := DirMetadata(dir)
	cat1, cat2 := trustCatalog(t, 1), trustCatalog(t, 2)

	res1 := mustPublish(t, fsys, cat1, key, t0)
	exp := t0.Add(DefaultExpires).Truncate(time.Second)
	rootExp := t0.Add(DefaultRootExpires).Truncate(time.Second)
	hex1 := index.SHA256Hex(cat1)
	want1 := &PublishResult{
		State:         State{Root: 1, Timestamp: 1, Snapshot: 1, Targets: 1},
		CatalogDigest: index.DigestBytes(cat1),
		KeyID:         id,
		Expires:       exp,
		RootExpires:   rootExp,
		RootWritten:   true,
		Written: []string{"1.root.json", "root.json", "targets/" + hex1 + ".catalog.json",
			"1.targets.json", "1.snapshot.json", "timestamp.json"},
	}
	if diff := cmp.Diff(want1, res1); diff != "" {
		t.Errorf("first Publish (-want +got):\n%s", diff)
	}
	root := filetest.ReadFile(t, filepath.Join(dir, "root.json"))
	if !bytes.Equal(root, filetest.ReadFile(t, filepath.Join(dir, "1.root.json"))) {
		t.Errorf("root.json differs from 1.root.json")
	}

	got, err := Load(ctx, fsys, root, LoadOptions{Now: at(t0)})
	if err != nil {
		t.Fatalf("Load after first publish: %v", err)
	}
	role := func(v int64, e time.Time) RoleInfo {
		return RoleInfo{Version: v, Expires: e, KeyIDs: []string{id}, Threshold: 1}
	}
	wantT := &Trusted{
		Catalog: cat1, CatalogDigest: index.DigestBytes(cat1), RootJSON: root,
		Root: role(1, rootExp), Timestamp: role(1, exp), Snapshot: role(1, exp), Targets: role(1, exp),
	}
	if diff := cmp.Diff(wantT, got, cmpopts.IgnoreUnexported(Trusted{})); diff != "" {
		t.Errorf("Load after first publish (-want +got):\n%s", diff)
	}

	later := t0.Add(time.Hour)
	res2 := mustPublish(t, fsys, cat2, key, later)
	exp2 := later.Add(DefaultExpires).Truncate(time.Second)
	hex2 := index.SHA256Hex(cat2)
	if diff := cmp.Diff([]string{"targets/" + hex2 + ".catalog.json", "2.targets.json", "2.snapshot.json", "timestamp.json"}, res2.Written); diff != "" {
		t.Errorf("second Publish wrote (-want +got):\n%s", diff)
	}
	got, err = Load(ctx, fsys, root, LoadOptions{Now: at(later), Previous: &State{Root: 1, Timestamp: 1, Snapshot: 1, Targets: 1}})
	if err != nil {
		t.Fatalf("Load after second publish: %v", err)
	}
	wantT = &Trusted{
		Catalog: cat2, CatalogDigest: index.DigestBytes(cat2), RootJSON: root,
		Root: role(1, rootExp), Timestamp: role(2, exp2), Snapshot: role(2, exp2), Targets: role(2, exp2),
	}
	if diff := cmp.Diff(wantT, got, cmpopts.IgnoreUnexported(Trusted{})); diff != "" {
		t.Errorf("Load after second publish (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(State{Root: 1, Timestamp: 2, Snapshot: 2, Targets: 2}, got.State()); diff != "" {
		t.Errorf("State (-want +got):\n%s", diff)
	}
	// The first catalog is still there, content-addressed.
	if !bytes.Equal(filetest.ReadFile(t, filepath.Join(dir, "targets", hex1+".catalog.json")), cat1) {
		t.Errorf("first catalog target changed")
	}
}

func TestPublishOptions(t *testing.T) {
	key := signtest.Signer(t)
	fsys := DirMetadata(t.TempDir())
	res, err := Publish(t.Context(), fsys, trustCatalog(t, 1), key, PublishOptions{
		Now: at(t0), Expires: 36 * time.Hour, RootExpires: 48*time.Hour + 1500*time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	wantExp := time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC)
	wantRoot := time.Date(2026, 3, 3, 12, 0, 1, 0, time.UTC)
	if !res.Expires.Equal(wantExp) || !res.RootExpires.Equal(wantRoot) {
		t.Errorf("Publish expires = %v, root %v; want %v, %v", res.Expires, res.RootExpires, wantExp, wantRoot)
	}
	for _, tt := range []struct {
		name string
		cat  []byte
		opts PublishOptions
	}{
		{"empty catalog", nil, PublishOptions{}},
		{"negative expiry", []byte("{}"), PublishOptions{Expires: -time.Hour}},
	} {
		if _, err := Publish(t.Context(), DirMetadata(t.TempDir()), tt.cat, key, tt.opts); err == nil {
			t.Errorf("Publish(%s) = nil error; want an error", tt.name)
		}
	}
}

func TestLoadExpiry(t *testing.T) {
	f := newFixture(t)
	exp := f.now.Add(DefaultExpires).Truncate(time.Second)
	rootExp := t0.Add(DefaultRootExpires).Truncate(time.Second)
	tests := []struct {
		name    string
		now     time.Time
		wantErr error
		wantMsg string
	}{
		{name: "just published", now: f.now},
		{name: "at expiry", now: exp},
		{name: "a second after expiry", now: exp.Add(time.Second), wantErr: ErrExpired,
			wantMsg: "metadata/timestamp.json: expired at " + exp.Format(time.RFC3339) + " (now " + exp.Add(time.Second).Format(time.RFC3339) + ")"},
		{name: "after the root expiry", now: rootExp.Add(time.Second), wantErr: ErrExpired, wantMsg: "metadata/1.root.json: expired at"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(t.Context(), DirMetadata(f.dir2), f.root, LoadOptions{Now: at(tt.now)})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Load(now %v) = %v; want %v", tt.now, err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("Load error %q does not contain %q", err, tt.wantMsg)
			}
		})
	}
	// Each role's expiry is checked, not only the timestamp's: re-sign the
	// chain with a short-lived targets role.
	dir := f.clone(t)
	editMeta(t, dir, "2.targets.json", metadata.Targets(), func(s *metadata.TargetsType) { s.Expires = f.now.Add(time.Minute) }, f.key)
	relink(t, dir, f.key, f.key)
	_, err := Load(t.Context(), DirMetadata(dir), f.root, LoadOptions{Now: at(f.now.Add(2 * time.Minute))})
	if !errors.Is(err, ErrExpired) || !strings.Contains(err.Error(), "metadata/2.targets.json: expired") {
		t.Errorf("Load with expired targets = %v; want ErrExpired naming 2.targets.json", err)
	}
}

func TestLoadRollback(t *testing.T) {
	f := newFixture(t)
	got, err := Load(t.Context(), DirMetadata(f.dir2), f.root, LoadOptions{Now: at(f.now)})
	if err != nil {
		t.Fatal(err)
	}
	recorded := got.State()
	tests := []struct {
		name    string
		dir     string
		prev    *State
		wantErr error
		wantMsg string
	}{
		{name: "same files, same state", dir: f.dir2, prev: &recorded},
		{name: "old files, no state", dir: f.dir1},
		{name: "old files restored", dir: f.dir1, prev: &recorded, wantErr: ErrRollback,
			wantMsg: "metadata/timestamp.json: version 1 is lower than the recorded 2"},
		{name: "recorded root newer", dir: f.dir2, prev: &State{Root: 2}, wantErr: ErrRollback, wantMsg: "metadata/1.root.json"},
		{name: "recorded snapshot newer", dir: f.dir2, prev: &State{Snapshot: 3}, wantErr: ErrRollback, wantMsg: "metadata/2.snapshot.json"},
		{name: "recorded targets newer", dir: f.dir2, prev: &State{Targets: 3}, wantErr: ErrRollback, wantMsg: "metadata/2.targets.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(t.Context(), DirMetadata(tt.dir), f.root, LoadOptions{Now: at(f.now), Previous: tt.prev})
			checkLoadErr(t, err, tt.wantErr, tt.wantMsg)
		})
	}
}

func TestPublishRefusesUntrustedKey(t *testing.T) {
	f := newFixture(t)
	dir := f.clone(t)
	before := filetest.Files(t, dir)
	_, err := Publish(t.Context(), DirMetadata(dir), trustCatalog(t, 3), f.other, PublishOptions{Now: at(f.now)})
	want := fmt.Sprintf("key %s is not trusted by root.json", keyIDOf(t, f.other))
	if !errors.Is(err, ErrSignature) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Publish with another key = %v; want ErrSignature containing %q", err, want)
	}
	if diff := cmp.Diff(before, filetest.Files(t, dir)); diff != "" {
		t.Errorf("refused Publish changed files (-before +after):\n%s", diff)
	}
}
