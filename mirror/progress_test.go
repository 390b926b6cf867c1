package mirror_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/airvsx/airvsx/index/store/dirstore"
	"github.com/airvsx/airvsx/index/store/storetest"
	"github.com/airvsx/airvsx/mirror"
	"github.com/airvsx/airvsx/testkit/demoreg"
	"github.com/airvsx/airvsx/testkit/openvsxtest"
)

// TestSyncProgress: the Progress option sees each item as the planner finds
// it, the plan once it is made (PlanDone), then counts that never go down
// and end at the totals of the run.
func TestSyncProgress(t *testing.T) {
	const theme = "version: 1\nextensions:\n  - id: airvsx-demo.night-theme\n"
	tests := []struct {
		name   string
		policy string // "" means the demo policy
		dryRun bool
		fault  func(*openvsxtest.Server)
		// wantLast is the final Progress, bytes aside (checked against the
		// report).
		wantLast  mirror.Progress
		wantCalls int
	}{
		{name: "demo", wantLast: mirror.Progress{Planned: 7, Downloaded: 7, Stored: 7, PlanDone: true}, wantCalls: 7 + 1 + 7 + 7},
		{name: "dry run", dryRun: true, wantLast: mirror.Progress{Planned: 7, PlanDone: true}, wantCalls: 1},
		{name: "retried download", policy: theme,
			fault:    func(s *openvsxtest.Server) { s.Fault(vsixPattern, openvsxtest.Truncated, 1) },
			wantLast: mirror.Progress{Planned: 1, Downloaded: 1, Stored: 1, PlanDone: true}, wantCalls: 4},
		{name: "rejected", policy: theme,
			fault:    func(s *openvsxtest.Server) { s.Fault("*.sha256", openvsxtest.WrongSHA256, openvsxtest.Always) },
			wantLast: mirror.Progress{Planned: 1, Downloaded: 1, Rejected: 1, PlanDone: true}, wantCalls: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, openvsxtest.Options{})
			if tt.fault != nil {
				tt.fault(e.srv)
			}
			pol := demoreg.Policy(t)
			if tt.policy != "" {
				pol = demoreg.ParsePolicy(t, tt.policy)
			}
			st := storetest.OpenDir(t, e.dir, dirstore.Options{Create: true})
			defer st.Close()
			var seen []mirror.Progress
			rep, err := mirror.Sync(t.Context(), mirror.Options{
				Client: e.client, Policy: pol, Store: st, Signer: e.signer, DryRun: tt.dryRun,
				Now: func() time.Time { return demoreg.SyncNow1 }, TempDir: t.TempDir(),
				Progress: func(p mirror.Progress) { seen = append(seen, p) },
			})
			if err != nil {
				t.Fatalf("Sync: %v", err)
			}
			if len(seen) != tt.wantCalls {
				t.Fatalf("%d calls: %+v; want %d", len(seen), seen, tt.wantCalls)
			}
			if first := seen[0]; first.Downloaded != 0 || first.Planned == 0 {
				t.Errorf("first call %+v; want a planned item and nothing downloaded", first)
			}
			for i := 1; i < len(seen); i++ {
				a, b := seen[i-1], seen[i]
				if b.Planned < a.Planned || b.PlannedBytes < a.PlannedBytes || b.Downloaded > b.Planned ||
					b.Downloaded < a.Downloaded || b.DownloadedBytes < a.DownloadedBytes ||
					b.Stored < a.Stored || b.StoredBytes < a.StoredBytes || b.Rejected < a.Rejected ||
					b.Stored > b.Downloaded {
					t.Errorf("call %d went from %+v to %+v; want counts that only grow", i, a, b)
				}
			}
			last := seen[len(seen)-1]
			var stored int64
			if !tt.dryRun {
				for _, en := range e.catalog(t).Entries {
					stored += en.VsixSize
				}
			}
			if last.StoredBytes != stored || last.DownloadedBytes < stored || (last.Downloaded > 0) != (last.DownloadedBytes > 0) {
				t.Errorf("last call %+v; want StoredBytes %d (the catalog's), and DownloadedBytes at least that", last, stored)
			}
			if last.Planned != len(rep.Plan.New) || last.PlannedBytes != rep.Plan.FetchBytes {
				t.Errorf("last call %+v; want Planned %d and PlannedBytes %d, the plan's", last, len(rep.Plan.New), rep.Plan.FetchBytes)
			}
			last.PlannedBytes, last.DownloadedBytes, last.StoredBytes = 0, 0, 0
			if diff := cmp.Diff(tt.wantLast, last); diff != "" {
				t.Errorf("last call (-want +got):\n%s", diff)
			}
			if !tt.dryRun && last.Done() != last.Planned {
				t.Errorf("Done() = %d; want Planned %d", last.Done(), last.Planned)
			}
			if len(rep.Stored) != last.Stored || len(rep.Quarantined) != last.Rejected {
				t.Errorf("report: %d stored, %d quarantined; progress says %d and %d", len(rep.Stored), len(rep.Quarantined), last.Stored, last.Rejected)
			}
		})
	}
}

// TestSyncProgressNamesStall: with ProgressEvery, Progress is called
// while a download is stalled (the fixture holds its answer back), and
// those heartbeats name the item in flight, counted, with nothing
// received yet.
func TestSyncProgressNamesStall(t *testing.T) {
	const stall = 2 * time.Second
	e := newEnv(t, openvsxtest.Options{SlowDelay: stall})
	// The package's body, from storage (not the HEAD that asks the API
	// where it lives, which is in flight as "location of …").
	e.srv.Fault("/cdn/*/*/*/airvsx-demo.night-theme-2.1.0.vsix", openvsxtest.Slow, 1)
	st := storetest.OpenDir(t, e.dir, dirstore.Options{Create: true})
	defer st.Close()
	var beats []mirror.Progress
	rep, err := mirror.Sync(t.Context(), mirror.Options{
		Client: e.client, Policy: demoreg.ParsePolicy(t, "version: 1\nextensions:\n  - id: airvsx-demo.night-theme\n"),
		Store: st, Signer: e.signer, TempDir: t.TempDir(),
		ProgressEvery: 20 * time.Millisecond,
		Progress: func(p mirror.Progress) {
			if p.Heartbeat {
				beats = append(beats, p)
			}
		},
	})
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	if len(rep.Stored) != 1 {
		t.Fatalf("stored %v; want night-theme", rep.Stored)
	}
	var named bool
	for _, p := range beats {
		for _, f := range p.InFlight {
			if f.What == "airvsx-demo.night-theme@2.1.0" && f.Counted && f.Bytes == 0 && p.PlanDone && p.Done() == 0 {
				named = true
			}
		}
	}
	if !named {
		t.Errorf("%d heartbeats during a %s stall; want one naming airvsx-demo.night-theme@2.1.0 in flight, no bytes yet: %+v", len(beats), stall, beats)
	}
}
