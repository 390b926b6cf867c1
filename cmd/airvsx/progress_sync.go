package main

import (
	"fmt"
	"io"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/mirror"
)

const (
	// syncProgressEvery is how often the sync progress line is redrawn at
	// most on a terminal.
	syncProgressEvery = 200 * time.Millisecond
	// syncTerminalBeat is how often the line on a terminal is redrawn
	// when nothing changes, so that what a stalled sync waits on shows.
	syncTerminalBeat = time.Second
	// defaultSyncPlainEvery is --progress-every's default: how often a
	// sync without a terminal prints a progress line on stderr.
	defaultSyncPlainEvery = 5 * time.Second
)

// syncProgress returns the progress line of a sync on the command's
// stderr: on when stderr is a terminal and the output is not JSON,
// redrawn at most every syncProgressEvery.
func syncProgress(g *globals, jsonOut bool) *progressLine {
	p := stderrProgress(g, jsonOut)
	p.every = syncProgressEvery
	return p
}

// showSyncProgress returns the mirror.Options.Progress callback that shows
// the counts on line: none while there is nothing to fetch, and the count
// that completes the plan always. Whatever has received nothing for
// stallAfter is named.
func showSyncProgress(line *progressLine, stallAfter time.Duration) func(mirror.Progress) {
	return func(p mirror.Progress) {
		switch {
		case p.Planned == 0 && (p.PlanDone || !p.Heartbeat):
			// nothing to fetch (yet): no line, but a heartbeat while the
			// sync plans
		case p.PlanDone && p.Done() >= p.Planned:
			line.PrintfNow("%s", syncProgressLine(p, time.Now(), stallAfter))
		default:
			line.Printf("%s", syncProgressLine(p, time.Now(), stallAfter))
		}
	}
}

// plainSyncProgress returns the mirror.Options.Progress callback of a
// sync without a terminal: a line on w at each heartbeat (every
// --progress-every), nothing on the changes between them, so that a log
// shows how a long sync goes, and what it waits on, without a line per
// package. Whatever has received nothing for stallAfter is named.
func plainSyncProgress(w io.Writer, stallAfter time.Duration) func(mirror.Progress) {
	return func(p mirror.Progress) {
		if p.Heartbeat {
			fmt.Fprintln(w, syncProgressLine(p, time.Now(), stallAfter))
		}
	}
}

// syncProgressLine is the text of the progress line at now: the counts
// (while planning, the new versions found so far), and what has received
// nothing for stallAfter, if anything has, or how many requests are in
// flight.
func syncProgressLine(p mirror.Progress, now time.Time, stallAfter time.Duration) string {
	var line string
	if !p.PlanDone {
		line = fmt.Sprintf("sync: planning, %s found so far", count(p.Planned, "new version", "new versions"))
	} else {
		line = fmt.Sprintf("sync: %d/%d done", p.Done(), p.Planned)
		if p.Rejected > 0 {
			line += fmt.Sprintf(" (%d rejected)", p.Rejected)
		}
		line += ", " + index.FormatBytes(p.DownloadedBytes)
		if p.PlannedBytes > 0 {
			line += " of " + index.FormatBytes(p.PlannedBytes)
		}
		line += " downloaded"
	}
	if len(p.InFlight) == 0 {
		return line
	}
	stalled := p.InFlight[0]
	for _, f := range p.InFlight[1:] {
		if f.Idle(now) > stalled.Idle(now) {
			stalled = f
		}
	}
	idle := stalled.Idle(now)
	if idle < stallAfter {
		return line + fmt.Sprintf(", %d in flight", len(p.InFlight))
	}
	line += fmt.Sprintf("; waiting %s on %s", waitText(now.Sub(stalled.Since)), stalled.What)
	switch {
	case stalled.Counted && stalled.Bytes > 0:
		line += fmt.Sprintf(" (%s received, no bytes for %s)", index.FormatBytes(stalled.Bytes), waitText(idle))
	case stalled.Counted:
		line += fmt.Sprintf(" (no bytes for %s)", waitText(idle))
	}
	return line
}

// waitText is a wait for a progress line: whole seconds, or milliseconds
// below a second.
func waitText(d time.Duration) string {
	if d >= time.Second {
		return d.Truncate(time.Second).String()
	}
	return d.Truncate(time.Millisecond).String()
}
