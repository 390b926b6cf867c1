package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// progressInterval is how often a progress line is redrawn at most,
// unless the command sets another interval.
const progressInterval = 100 * time.Millisecond

// progressLine shows how far long work has come as one line on a
// terminal, redrawn in place ("\r") at most every interval. Done clears
// it; Finish leaves the latest text on the terminal. Log records written
// through LogWriter erase the line, and it is drawn again below them.
// Turned off (not a terminal, or --json), it writes nothing. Commands use
// one per long step (site pages, sync entries); it is safe for concurrent
// use.
type progressLine struct {
	w     io.Writer
	on    bool
	width int              // the terminal's columns; 0: unknown, no cut
	every time.Duration    // the least time between two redraws
	now   func() time.Time // the clock the redraws are throttled by

	mu      sync.Mutex
	last    time.Time // when the line was last drawn
	text    string    // the latest text, cut to the width
	shown   bool      // a line is on the terminal
	pending bool      // text was not drawn
}

// newProgressLine returns a progress line on w, which is a terminal of
// width columns (0 if unknown) when on is true, redrawn at most every
// progressInterval.
func newProgressLine(w io.Writer, on bool, width int) *progressLine {
	return &progressLine{w: w, on: on, width: width, every: progressInterval, now: time.Now}
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

// loggerBeside is the command's logger, writing through prog's
// LogWriter when the progress line is on, so that log records keep clear
// of it.
func (g *globals) loggerBeside(prog *progressLine) *slog.Logger {
	if !prog.On() {
		return g.logger()
	}
	lg := *g
	lg.stderr = prog.LogWriter()
	return lg.logger()
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
// drawn less than the interval ago; then the text is held back until the
// next redraw (or Finish). Text wider than the terminal is cut, so that
// "\r" still returns to its start.
func (p *progressLine) Printf(format string, args ...any) {
	p.printf(false, format, args...)
}

// PrintfNow is Printf that draws the text whatever the interval, for a
// step's last count.
func (p *progressLine) PrintfNow(format string, args ...any) {
	p.printf(true, format, args...)
}

func (p *progressLine) printf(now bool, format string, args ...any) {
	if !p.on {
		return
	}
	s := fmt.Sprintf(format, args...)
	if r := []rune(s); p.width > 1 && len(r) > p.width-1 {
		s = string(r[:p.width-1])
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.text, p.pending = s, true
	t := p.now()
	if !now && p.shown && t.Sub(p.last) < p.every {
		return
	}
	fmt.Fprint(p.w, "\r\033[K"+s)
	p.last, p.shown, p.pending = t, true, false
}

// Done clears the line, so that what is written next starts on an empty
// line. The line can be drawn again after.
func (p *progressLine) Done() { p.end(false) }

// Finish draws the latest text, if it was held back, and ends the line,
// which stays on the terminal, so that what is written next starts on a
// line of its own. The line can be drawn again after.
func (p *progressLine) Finish() { p.end(true) }

// end clears the line, or with keep draws what was held back and moves
// below it.
func (p *progressLine) end(keep bool) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if keep && p.pending {
		fmt.Fprint(p.w, "\r\033[K"+p.text)
		p.shown = true
	}
	p.pending = false
	switch {
	case !p.shown:
	case keep:
		fmt.Fprintln(p.w)
	default:
		fmt.Fprint(p.w, "\r\033[K")
	}
	p.shown = false
}

// LogWriter returns a writer for the log that keeps log records and the
// line apart: each write erases the line, and the line is drawn again
// after it. Turned off, it is the line's writer itself.
func (p *progressLine) LogWriter() io.Writer {
	if !p.on {
		return p.w
	}
	return progressLogWriter{p}
}

type progressLogWriter struct{ p *progressLine }

func (w progressLogWriter) Write(b []byte) (int, error) {
	p := w.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.shown {
		return p.w.Write(b)
	}
	fmt.Fprint(p.w, "\r\033[K")
	n, err := p.w.Write(b)
	fmt.Fprint(p.w, p.text)
	return n, err
}
