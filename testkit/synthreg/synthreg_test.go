package synthreg_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/artifact"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/testkit/synthreg"
)

var now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// entry stores a package.json-only artifact of ns.ext-i.
func entry(ctx context.Context, st store.Store, i int) (index.Entry, error) {
	id := index.ID{Namespace: "ns", Name: fmt.Sprintf("ext-%d", i)}
	a := synthreg.NewArtifact(st, id)
	pkg := []byte(fmt.Sprintf(`{"name":%q}`, id.Name))
	if err := a.Add(ctx, artifact.RoleVsix, id.String()+".vsix", pkg); err != nil {
		return index.Entry{}, err
	}
	sum := index.DigestBytes(pkg)[len("sha256:"):]
	m, err := a.Put(ctx, artifact.ArtifactInfo{ID: id, Version: "1.0.0", Platform: index.Universal, Created: now, UpstreamSHA256: sum})
	if err != nil {
		return index.Entry{}, err
	}
	return index.Entry{ID: id, Version: "1.0.0", Platform: index.Universal, Published: now, ManifestDigest: m.Digest, ManifestSize: m.Size,
		VsixSHA256: sum, VsixSize: int64(len(pkg)), Engine: "^1.80.0"}, nil
}

// TestBuild builds a small registry and reads its catalog back through
// the trust path with the signer's key.
func TestBuild(t *testing.T) {
	sv, _, err := synthreg.NewSigner()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "reg")
	cat, err := synthreg.Build(t.Context(), dir, synthreg.Options{Entries: 5, Workers: 3, Signer: sv, Now: now,
		Catalog: index.Catalog{Created: now, Upstream: "https://open-vsx.example"}}, entry)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	st := storetest.OpenDir(t, dir, dirstore.Options{ReadOnly: true})
	defer st.Close()
	checked, err := trust.Check(t.Context(), st, trust.Anchor{Key: sv}, trust.CheckOptions{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatalf("trust.Check: %v", err)
	}
	got, err := checked.Decode(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cat, got); diff != "" {
		t.Errorf("catalog read back (-built +read):\n%s", diff)
	}
	for i, e := range got.Entries {
		if want := fmt.Sprintf("ns.ext-%d@1.0.0", i); e.String() != want || got.Serial != 1 {
			t.Errorf("entry %d = %s, serial %d; want %s in order, serial 1", i, e.String(), got.Serial, want)
		}
	}
}

// TestBuildErrors: a failing entry, and a missing signer, fail the build.
func TestBuildErrors(t *testing.T) {
	sv, _, err := synthreg.NewSigner()
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	tests := []struct {
		name   string
		signer bool
		entry  synthreg.EntryFunc
		want   error
	}{
		{"entry fails", true, func(ctx context.Context, st store.Store, i int) (index.Entry, error) {
			if i == 2 {
				return index.Entry{}, boom
			}
			return entry(ctx, st, i)
		}, boom},
		{"no signer", false, entry, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := synthreg.Options{Entries: 4, Now: now, Catalog: index.Catalog{Created: now}}
			if tt.signer {
				o.Signer = sv
			}
			_, err := synthreg.Build(t.Context(), filepath.Join(t.TempDir(), "reg"), o, tt.entry)
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Errorf("Build = %v; want an error wrapping %v", err, tt.want)
			}
		})
	}
}
