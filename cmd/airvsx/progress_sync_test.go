package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/mirror"
)

func TestSyncProgressLine(t *testing.T) {
	plan := mirror.Progress{Planned: 3, PlannedBytes: 3072, PlanDone: true}
	step := func(p mirror.Progress, f func(*mirror.Progress)) mirror.Progress { f(&p); return p }
	dl1 := step(plan, func(p *mirror.Progress) { p.Downloaded, p.DownloadedBytes = 1, 1024 })
	st1 := step(dl1, func(p *mirror.Progress) { p.Stored, p.StoredBytes = 1, 1024 })
	dl2 := step(st1, func(p *mirror.Progress) { p.Downloaded, p.DownloadedBytes = 2, 2048 })
	rej := step(dl2, func(p *mirror.Progress) { p.Rejected = 1 })
	dl3 := step(rej, func(p *mirror.Progress) { p.Downloaded, p.DownloadedBytes = 3, 3072 })
	all := step(dl3, func(p *mirror.Progress) { p.Stored, p.StoredBytes = 2, 2048 })

	type call struct {
		at time.Duration // since the start
		p  mirror.Progress
	}
	tests := []struct {
		name  string
		calls []call
		want  []string // lines drawn, in order
	}{
		{"nothing to fetch", []call{{0, mirror.Progress{PlanDone: true}}, {time.Second, mirror.Progress{PlanDone: true, Heartbeat: true}}}, nil},
		{"throttled", []call{{0, plan}, {10 * time.Millisecond, dl1}, {20 * time.Millisecond, st1}, {300 * time.Millisecond, dl2}},
			[]string{"sync: 0/3 done, 0 B of 3.0 KiB downloaded", "sync: 1/3 done, 2.0 KiB of 3.0 KiB downloaded"}},
		{"the end is always drawn", []call{{0, plan}, {1 * time.Millisecond, dl1}, {2 * time.Millisecond, st1}, {3 * time.Millisecond, dl2},
			{4 * time.Millisecond, rej}, {5 * time.Millisecond, dl3}, {6 * time.Millisecond, all}},
			[]string{"sync: 0/3 done, 0 B of 3.0 KiB downloaded", "sync: 3/3 done (1 rejected), 3.0 KiB of 3.0 KiB downloaded"}},
		{"finish draws what was held back", []call{{0, plan}, {1 * time.Millisecond, dl1}},
			[]string{"sync: 0/3 done, 0 B of 3.0 KiB downloaded", "sync: 0/3 done, 1.0 KiB of 3.0 KiB downloaded"}},
		{"unknown size", []call{{0, mirror.Progress{Planned: 1, PlanDone: true}}},
			[]string{"sync: 0/1 done, 0 B downloaded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			now := start
			var buf bytes.Buffer
			line := newProgressLine(&buf, true, 0)
			line.every, line.now = syncProgressEvery, func() time.Time { return now }
			show := showSyncProgress(line, 5*time.Second)
			for _, c := range tt.calls {
				now = start.Add(c.at)
				show(c.p)
			}
			line.Finish()
			out := buf.String()
			var want string
			for _, l := range tt.want {
				want += "\r\033[K" + l
			}
			if len(tt.want) > 0 {
				want += "\n"
			}
			if out != want {
				t.Errorf("output %q; want %q", out, want)
			}
		})
	}
	if p := syncProgress(&globals{stderr: &bytes.Buffer{}}, false); p.On() {
		t.Error("syncProgress(a buffer).On() = true; want no progress off a terminal")
	}
	if l := syncProgressLine(all, time.Now(), time.Second); !strings.Contains(l, "3/3") {
		t.Error(l)
	}
}

// TestSyncProgressLineInFlight: the line names what has received nothing
// for stallAfter (the longest idle), or says how many requests are in
// flight; while planning, it counts what the planner found.
func TestSyncProgressLineInFlight(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	planned := mirror.Progress{Planned: 3, PlannedBytes: 3072, PlanDone: true, Downloaded: 1, DownloadedBytes: 1024, Stored: 1}
	with := func(p mirror.Progress, fs ...mirror.InFlight) mirror.Progress { p.InFlight = fs; return p }
	tests := []struct {
		name string
		p    mirror.Progress
		want string
	}{
		{"planning", mirror.Progress{Planned: 2},
			"sync: planning, 2 new versions found so far"},
		{"planning, a request stalled", with(mirror.Progress{Planned: 1}, mirror.InFlight{What: "versions of a.b", Since: ago(40 * time.Second)}),
			"sync: planning, 1 new version found so far; waiting 40s on versions of a.b"},
		{"downloads going", with(planned,
			mirror.InFlight{What: "a.b@1.0.0", Since: ago(10 * time.Second), Counted: true, Bytes: 512, LastByte: ago(time.Second)},
			mirror.InFlight{What: "sha256 of a.c@1.0.0", Since: ago(2 * time.Second)}),
			"sync: 1/3 done, 1.0 KiB of 3.0 KiB downloaded, 2 in flight"},
		{"a download sent nothing yet", with(planned,
			mirror.InFlight{What: "a.b@1.0.0", Since: ago(10 * time.Second), Counted: true, Bytes: 512, LastByte: ago(time.Second)},
			mirror.InFlight{What: "a.c@1.2.3", Since: ago(30 * time.Second), Counted: true}),
			"sync: 1/3 done, 1.0 KiB of 3.0 KiB downloaded; waiting 30s on a.c@1.2.3 (no bytes for 30s)"},
		{"a download stopped sending", with(planned,
			mirror.InFlight{What: "a.c@1.2.3", Since: ago(50 * time.Second), Counted: true, Bytes: 2048, LastByte: ago(20 * time.Second)}),
			"sync: 1/3 done, 1.0 KiB of 3.0 KiB downloaded; waiting 50s on a.c@1.2.3 (2.0 KiB received, no bytes for 20s)"},
	}
	for _, tt := range tests {
		if got := syncProgressLine(tt.p, now, 5*time.Second); got != tt.want {
			t.Errorf("%s: %q; want %q", tt.name, got, tt.want)
		}
	}
}

// TestPlainSyncProgress: without a terminal, a line per heartbeat and
// none for the changes between them.
func TestPlainSyncProgress(t *testing.T) {
	var buf bytes.Buffer
	show := plainSyncProgress(&buf, 5*time.Second)
	show(mirror.Progress{Planned: 1})
	show(mirror.Progress{Planned: 2, Heartbeat: true})
	show(mirror.Progress{Planned: 2, PlanDone: true})
	show(mirror.Progress{Planned: 2, PlanDone: true, Stored: 1, Downloaded: 1, DownloadedBytes: 2048, Heartbeat: true})
	want := "sync: planning, 2 new versions found so far\nsync: 1/2 done, 2.0 KiB downloaded\n"
	if buf.String() != want {
		t.Errorf("output %q; want %q", buf.String(), want)
	}
}
