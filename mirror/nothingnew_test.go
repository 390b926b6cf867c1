package mirror_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index/store"
	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/gitstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/index/trust"
	"github.com/airvsx/airvsx/mirror"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/filetest"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
)

// A sync with nothing new upstream: what it leaves as it was, and what it
// still finishes or signs again.

// TestSyncNothingNew: a sync that finds nothing new upstream leaves the
// registry byte for byte as it was (no new serial) and reports its current
// catalog; it signs again, as a new serial, once the metadata expires
// within half of catalog.expires, and when asked to (Renew).
func TestSyncNothingNew(t *testing.T) {
	e := newEnv(t, openvsxtest.Options{})
	pol := demoreg.Policy(t) // catalog.expires: 90d
	sync := func(now time.Time, renew bool) *mirror.Report {
		t.Helper()
		st := storetest.OpenDir(t, e.dir, dirstore.Options{Create: true})
		defer st.Close()
		rep, err := mirror.Sync(t.Context(), mirror.Options{
			Client: e.client, Policy: pol, Store: st, Signer: e.signer, Renew: renew,
			Now: func() time.Time { return now }, TempDir: t.TempDir(),
		})
		if err != nil {
			t.Fatalf("Sync: %v", err)
		}
		return rep
	}
	first := sync(demoreg.SyncNow1, false)
	if c := first.Catalog; c == nil || c.Serial != 1 || c.Unchanged || c.Renewed {
		t.Fatalf("first sync: catalog %+v; want serial 1 signed", c)
	}
	before := filetest.Files(t, e.dir)

	tests := []struct {
		name    string
		now     time.Time
		renew   bool
		serial  int64
		reason  string // the RenewReason wanted; "" for an unchanged registry
		changed bool
	}{
		{"an hour later", demoreg.SyncNow1.Add(time.Hour), false, 1, "", false},
		{"44 days later", demoreg.SyncNow1.Add(44 * 24 * time.Hour), false, 1, "", false},
		{"asked to renew", demoreg.SyncNow1.Add(2 * time.Hour), true, 2, "asked to renew", true},
		// Serial 2 expires 90 days after SyncNow1 + 2h.
		{"within half of catalog.expires", demoreg.SyncNow1.Add(46 * 24 * time.Hour), false, 3, "within half of catalog.expires (90d)", true},
		{"after the expiry", demoreg.SyncNow1.Add(200 * 24 * time.Hour), false, 4, "expired", true},
		{"just renewed", demoreg.SyncNow1.Add(201 * 24 * time.Hour), false, 4, "", false},
	}
	for _, tt := range tests {
		rep := sync(tt.now, tt.renew)
		after := filetest.Files(t, e.dir)
		c := rep.Catalog
		switch {
		case c == nil:
			t.Fatalf("%s: no catalog in the report", tt.name)
		case c.Serial != tt.serial || c.Entries != 7:
			t.Errorf("%s: catalog serial %d, %d entries; want serial %d, 7 entries", tt.name, c.Serial, c.Entries, tt.serial)
		case tt.reason == "" && (!c.Unchanged || c.Renewed):
			t.Errorf("%s: catalog %+v; want it unchanged", tt.name, c)
		case tt.reason != "" && (c.Unchanged || !c.Renewed || !strings.Contains(c.RenewReason, tt.reason)):
			t.Errorf("%s: catalog %+v; want it renewed: %q", tt.name, c, tt.reason)
		}
		if len(rep.Stored) != 0 || len(rep.Plan.New) != 0 {
			t.Errorf("%s: stored %v; want nothing new", tt.name, rep.Stored)
		}
		if diff := cmp.Diff(before, after); (diff != "") != tt.changed {
			t.Errorf("%s: registry changed: %v, want %v:\n%s", tt.name, diff != "", tt.changed, diff)
		}
		if got := catalogOf(t, e.dir).Serial; tt.reason == "" && got != tt.serial {
			t.Errorf("%s: the registry's catalog is serial %d; want %d", tt.name, got, tt.serial)
		}
		before = after
	}
}

// failingCommit is a store whose commits fail: a sync killed after it
// signed its catalog and before the commit that publishes it.
type failingCommit struct{ store.Store }

func (failingCommit) Commit(context.Context, string) error {
	return errors.New("killed before the commit")
}

// TestSyncFinishesUncommittedChange: a git sync that signed its catalog but
// was stopped before its commit leaves the change in the repository's
// journal; the next sync, which finds nothing new against that catalog,
// commits it instead of reporting an unchanged registry whose branch still
// points at the old commit.
func TestSyncFinishesUncommittedChange(t *testing.T) {
	e := newEnv(t, openvsxtest.Options{})
	path := filepath.Join(t.TempDir(), "reg.git")
	sync := func(wrap func(store.Store) store.Store) (*mirror.Report, error) {
		st, err := gitstore.Open(path, gitstore.Options{Write: true, Create: true, Signer: e.signer})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		return mirror.Sync(t.Context(), mirror.Options{
			Client: e.client, Policy: demoreg.Policy(t), Store: wrap(st), Signer: e.signer,
			Now: func() time.Time { return demoreg.SyncNow1 }, TempDir: t.TempDir(),
		})
	}
	if _, err := sync(func(s store.Store) store.Store { return failingCommit{s} }); err == nil {
		t.Fatal("Sync with a failing commit succeeded")
	}
	rep, err := sync(func(s store.Store) store.Store { return s })
	if err != nil {
		t.Fatalf("second Sync: %v", err)
	}
	if c := rep.Catalog; c == nil || c.Serial != 1 {
		t.Fatalf("second Sync: catalog %+v; want serial 1", c)
	}
	st, err := gitstore.Open(path, gitstore.Options{})
	if err != nil {
		t.Fatalf("open the committed registry: %v", err)
	}
	defer st.Close()
	cat, _, err := trust.ReadCatalog(t.Context(), st, trust.CatalogOptions{Load: trust.LoadOptions{Now: func() time.Time { return demoreg.VerifyNow }}})
	if err != nil {
		t.Fatalf("the branch holds no catalog after the second sync: %v", err)
	}
	if cat.Serial != 1 || len(cat.Entries) != 7 {
		t.Errorf("committed catalog: serial %d, %d entries; want serial 1, 7 entries", cat.Serial, len(cat.Entries))
	}
}
