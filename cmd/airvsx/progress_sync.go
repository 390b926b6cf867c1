package main

import (
	"fmt"
	"time"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/mirror"
)

// syncProgressEvery is how often the sync progress line is redrawn at most.
const syncProgressEvery = 200 * time.Millisecond

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
// that completes the plan always.
func showSyncProgress(line *progressLine) func(mirror.Progress) {
	return func(p mirror.Progress) {
		switch {
		case p.Planned == 0:
			// nothing to fetch: no line
		case p.Done() < p.Planned:
			line.Printf("%s", syncProgressLine(p))
		default:
			line.PrintfNow("%s", syncProgressLine(p))
		}
	}
}

// syncProgressLine is the text of the progress line.
func syncProgressLine(p mirror.Progress) string {
	line := fmt.Sprintf("sync: %d/%d done", p.Done(), p.Planned)
	if p.Rejected > 0 {
		line += fmt.Sprintf(" (%d rejected)", p.Rejected)
	}
	line += ", " + index.FormatBytes(p.DownloadedBytes)
	if p.PlannedBytes > 0 {
		line += " of " + index.FormatBytes(p.PlannedBytes)
	}
	return line + " downloaded"
}
