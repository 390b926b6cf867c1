package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/mirror"
)

func TestSyncProgressLine(t *testing.T) {
	plan := mirror.Progress{Planned: 3, PlannedBytes: 3072}
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
		{"nothing to fetch", []call{{0, mirror.Progress{}}}, nil},
		{"throttled", []call{{0, plan}, {10 * time.Millisecond, dl1}, {20 * time.Millisecond, st1}, {300 * time.Millisecond, dl2}},
			[]string{"sync: 0/3 done, 0 B of 3.0 KiB downloaded", "sync: 1/3 done, 2.0 KiB of 3.0 KiB downloaded"}},
		{"the end is always drawn", []call{{0, plan}, {1 * time.Millisecond, dl1}, {2 * time.Millisecond, st1}, {3 * time.Millisecond, dl2},
			{4 * time.Millisecond, rej}, {5 * time.Millisecond, dl3}, {6 * time.Millisecond, all}},
			[]string{"sync: 0/3 done, 0 B of 3.0 KiB downloaded", "sync: 3/3 done (1 rejected), 3.0 KiB of 3.0 KiB downloaded"}},
		{"finish draws what was held back", []call{{0, plan}, {1 * time.Millisecond, dl1}},
			[]string{"sync: 0/3 done, 0 B of 3.0 KiB downloaded", "sync: 0/3 done, 1.0 KiB of 3.0 KiB downloaded"}},
		{"unknown size", []call{{0, mirror.Progress{Planned: 1}}},
			[]string{"sync: 0/1 done, 0 B downloaded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			now := start
			var buf bytes.Buffer
			line := newProgressLine(&buf, true, 0)
			line.every, line.now = syncProgressEvery, func() time.Time { return now }
			show := showSyncProgress(line)
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
	if !strings.Contains(syncProgressLine(all), "3/3") {
		t.Error(syncProgressLine(all))
	}
}
