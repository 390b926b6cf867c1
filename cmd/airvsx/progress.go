package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// progressInterval is how often a progress line is redrawn at most.
const progressInterval = 100 * time.Millisecond

// progressLine shows how far long work has come as one line on a
// terminal, redrawn in place ("\r") at most every progressInterval; Done
// clears it. Turned off (not a terminal, or --json), it writes nothing.
// Commands use one per long step (site pages, sync entries); it is safe
// for concurrent use.
type progressLine struct {
	w     io.Writer
	on    bool
	width int              // the terminal's columns; 0: unknown, no cut
	now   func() time.Time // the clock the redraws are throttled by

	mu    sync.Mutex
	last  time.Time // when the line was last drawn
	shown bool      // a line is on the terminal
}

// newProgressLine returns a progress line on w, which is a terminal of
// width columns (0 if unknown) when on is true.
func newProgressLine(w io.Writer, on bool, width int) *progressLine {
	return &progressLine{w: w, on: on, width: width, now: time.Now}
}

// stderrProgress returns a progress line on the command's stderr, on
// when stderr is a terminal and quiet (--json) is false.
func stderrProgress(g *globals, quiet bool) *progressLine {
	fd, ok := terminalFd(g.stderr)
	if !ok || quiet {
		return newProgressLine(g.stderr, false, 0)
	}
	width, _, err := term.GetSize(fd)
	if err != nil {
		width = 0
	}
	return newProgressLine(g.stderr, true, width)
}

// terminalFd returns w's file descriptor when w is a terminal.
func terminalFd(w io.Writer) (int, bool) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0, false
	}
	return int(f.Fd()), true
}

// On reports whether the line is shown at all, so that callers can skip
// the work of reporting progress.
func (p *progressLine) On() bool { return p.on }

// Printf replaces the line with the formatted text, unless the line was
// drawn less than progressInterval ago. Text wider than the terminal is
// cut, so that "\r" still returns to its start.
func (p *progressLine) Printf(format string, args ...any) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.shown && now.Sub(p.last) < progressInterval {
		return
	}
	s := fmt.Sprintf(format, args...)
	if r := []rune(s); p.width > 1 && len(r) > p.width-1 {
		s = string(r[:p.width-1])
	}
	fmt.Fprint(p.w, "\r\033[K"+s)
	p.last, p.shown = now, true
}

// Done clears the line, so that what is written next starts on an empty
// line. The line can be drawn again after.
func (p *progressLine) Done() {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}
