package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/airvsx/airvsx/index"
	"github.com/airvsx/airvsx/mirror"
)

// syncProgressEvery is how often the sync progress line is redrawn at most.
const syncProgressEvery = 200 * time.Millisecond

// syncProgress draws a sync's progress on one line of a terminal, redrawn
// in place ("\r", erase line) at most every interval, and always when the
// last item is done. Log records written through it (logWriter) erase the
// line, and it is drawn again below them. It is safe for concurrent use.
type syncProgress struct {
	w     io.Writer
	every time.Duration
	now   func() time.Time

	mu      sync.Mutex
	last    time.Time       // when the line was last drawn
	latest  mirror.Progress // the counts last seen
	drawn   bool            // a line is on the screen
	pending bool            // latest was not drawn
}

// newSyncProgress returns a progress line on stderr when stderr is a
// terminal and the output is not JSON, and nil otherwise.
func newSyncProgress(stderr io.Writer, jsonOut bool) *syncProgress {
	f, ok := stderr.(*os.File)
	if jsonOut || !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &syncProgress{w: stderr, every: syncProgressEvery, now: time.Now}
}

// update is the mirror.Options.Progress callback.
func (s *syncProgress) update(p mirror.Progress) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latest, s.pending = p, true
	if p.Planned == 0 {
		return // nothing to fetch: no line
	}
	now := s.now()
	if s.drawn && p.Done() < p.Planned && now.Sub(s.last) < s.every {
		return
	}
	s.draw(now)
}

func (s *syncProgress) draw(now time.Time) {
	fmt.Fprintf(s.w, "\r\033[K%s", syncProgressLine(s.latest))
	s.last, s.drawn, s.pending = now, true, false
}

// finish draws the last counts, if they were not, and ends the line, so
// that what follows starts on a line of its own.
func (s *syncProgress) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending && s.latest.Planned > 0 {
		s.draw(s.now())
	}
	if s.drawn {
		fmt.Fprintln(s.w)
		s.drawn = false
	}
}

// logWriter returns a writer for the log that keeps log records and the
// progress line apart: each write erases the line, and the line is drawn
// again after it.
func (s *syncProgress) logWriter() io.Writer { return progressLogWriter{s} }

type progressLogWriter struct{ s *syncProgress }

func (w progressLogWriter) Write(p []byte) (int, error) {
	s := w.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.drawn {
		return s.w.Write(p)
	}
	fmt.Fprint(s.w, "\r\033[K")
	n, err := s.w.Write(p)
	fmt.Fprint(s.w, syncProgressLine(s.latest))
	return n, err
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
