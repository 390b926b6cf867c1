package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/airvsx/airvsx/transfer"
)

func TestProgressLine(t *testing.T) {
	const clear = "\r\033[K"
	type step struct {
		after time.Duration // since the previous step
		text  string        // Printf this; "" means Done
	}
	for _, tc := range []struct {
		name  string
		on    bool
		width int
		steps []step
		want  string
	}{
		{
			name:  "off: silent",
			on:    false,
			steps: []step{{0, "site: rendering 0/3 pages"}, {time.Second, "site: rendering 3/3 pages"}, {0, ""}},
			want:  "",
		},
		{
			name:  "on: drawn, redrawn, cleared",
			on:    true,
			steps: []step{{0, "site: rendering 0/3 pages"}, {time.Second, "site: rendering 3/3 pages"}, {0, ""}},
			want:  clear + "site: rendering 0/3 pages" + clear + "site: rendering 3/3 pages" + clear,
		},
		{
			name: "on: at most one redraw per interval",
			on:   true,
			steps: []step{
				{0, "1"}, {30 * time.Millisecond, "2"}, {30 * time.Millisecond, "3"},
				{40 * time.Millisecond, "4"}, {99 * time.Millisecond, "5"}, {time.Millisecond, "6"}, {0, ""},
			},
			want: clear + "1" + clear + "4" + clear + "6" + clear,
		},
		{
			name:  "on: nothing drawn, nothing cleared",
			on:    true,
			steps: []step{{0, ""}},
			want:  "",
		},
		{
			name:  "on: cleared once, drawn again at once",
			on:    true,
			steps: []step{{0, "a"}, {0, ""}, {0, ""}, {time.Millisecond, "b"}, {0, ""}},
			want:  clear + "a" + clear + clear + "b" + clear,
		},
		{
			name:  "on: cut to the terminal's width",
			on:    true,
			width: 8,
			steps: []step{{0, "rendering 1200/20000 pages"}, {time.Second, "ünïcödé…"}},
			want:  clear + "renderi" + clear + "ünïcödé",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w bytes.Buffer
			p := newProgressLine(&w, tc.on, tc.width)
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			p.now = func() time.Time { return now }
			for _, s := range tc.steps {
				now = now.Add(s.after)
				if s.text == "" {
					p.Done()
				} else {
					p.Printf("%s", s.text)
				}
			}
			if got := w.String(); got != tc.want {
				t.Errorf("output = %q; want %q", got, tc.want)
			}
		})
	}
}

// TestStderrProgressOff checks that progress is off when stderr is not a
// terminal, whatever the flags.
func TestStderrProgressOff(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, tc := range []struct {
		name   string
		stderr io.Writer
		quiet  bool
	}{
		{"buffer", &bytes.Buffer{}, false},
		{"pipe", w, false},
		{"pipe, --json", w, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := stderrProgress(&globals{stderr: tc.stderr}, tc.quiet)
			if p.On() {
				t.Fatalf("stderrProgress(%s).On() = true; want false", tc.name)
			}
			p.Printf("site: rendering %d/%d pages", 1, 2)
			p.Done()
			if b, ok := tc.stderr.(*bytes.Buffer); ok && b.Len() != 0 {
				t.Errorf("wrote %q", b.String())
			}
		})
	}
	w.Close()
	var got strings.Builder
	buf := make([]byte, 64)
	for {
		n, err := r.Read(buf)
		got.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if got.Len() != 0 {
		t.Errorf("wrote %q to a pipe", got.String())
	}
}

// TestProgressLogWriter checks that log records erase the line and that
// the latest text, drawn or held back, is drawn again below them.
func TestProgressLogWriter(t *testing.T) {
	const clear = "\r\033[K"
	var w bytes.Buffer
	p := newProgressLine(&w, true, 0)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return now }
	log := p.LogWriter()
	io.WriteString(log, "before\n")
	p.Printf("a")
	io.WriteString(log, "one\n")
	now = now.Add(time.Millisecond)
	p.Printf("b")
	io.WriteString(log, "two\n")
	p.Finish()
	io.WriteString(log, "after\n")
	want := "before\n" + clear + "a" + clear + "one\na" + clear + "two\nb" + clear + "b\n" + "after\n"
	if got := w.String(); got != want {
		t.Errorf("output = %q; want %q", got, want)
	}
	var off bytes.Buffer
	if got := newProgressLine(&off, false, 0).LogWriter(); got != io.Writer(&off) {
		t.Errorf("LogWriter() of a line turned off = %v; want the line's writer", got)
	}
}

// TestCopyProgressLine: the blob step tells its rate and the time left
// once a second has passed, and not before.
func TestCopyProgressLine(t *testing.T) {
	for _, tc := range []struct {
		p       transfer.Progress
		elapsed time.Duration
		want    string
	}{
		{transfer.Progress{Step: "plan"}, 0, "copy: checking the source's trust chain"},
		{transfer.Progress{Step: "plan", Entries: 3, PlannedEntries: 10}, 0, "copy: reading manifests 3/10"},
		{transfer.Progress{Step: "blobs", Blobs: 1, PlannedBlobs: 4, Bytes: 1 << 20, PlannedBytes: 4 << 20}, 500 * time.Millisecond,
			"copy: 1/4 blobs, 1.0 MiB of 4.0 MiB"},
		{transfer.Progress{Step: "blobs", Blobs: 1, PlannedBlobs: 4, Bytes: 10 << 20, PlannedBytes: 40 << 20}, 2 * time.Second,
			"copy: 1/4 blobs, 10.0 MiB of 40.0 MiB, 5.0 MiB/s, about 6s left"},
		{transfer.Progress{Step: "blobs", Blobs: 0, PlannedBlobs: 4, PlannedBytes: 40 << 20}, 3 * time.Second,
			"copy: 0/4 blobs, 0 B of 40.0 MiB"},
		{transfer.Progress{Step: "tags", Blobs: 2, PlannedBlobs: 7}, time.Minute, "copy: tags 2/7"},
	} {
		if got := copyProgressLine(tc.p, tc.elapsed); got != tc.want {
			t.Errorf("copyProgressLine(%+v, %v) = %q; want %q", tc.p, tc.elapsed, got, tc.want)
		}
	}
}
