package host

import (
	"bufio"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"syscall"
	"time"
)

// The host process's events, output and liveness: what it reports, what
// it prints, the heartbeat and the kill.

// noteActivated records that this host's extension id activated (once).
func (h *Host) noteActivated(id string) {
	h.amu.Lock()
	defer h.amu.Unlock()
	if !slices.Contains(h.activated, id) {
		h.activated = append(h.activated, id)
	}
}

// Activating lists the extensions whose activation the launcher asked
// for (Activate) and that had not finished: after the host has ended,
// those its end is blamed on. What the host claims never enters it.
func (h *Host) Activating() []string {
	h.amu.Lock()
	defer h.amu.Unlock()
	out := make([]string, 0, len(h.activating))
	for id := range h.activating {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// Activated lists the extensions this host activated, in order.
func (h *Host) Activated() []string {
	h.amu.Lock()
	defer h.amu.Unlock()
	return slices.Clone(h.activated)
}

// deliver passes ev, within the rate cap, to its request and to Events.
func (h *Host) deliver(ev Event, cause *int64) {
	ok, warn := h.limit.allow(ev.Extension)
	if !ok {
		if warn == nil {
			return
		}
		ev = *warn
		h.log.Warn(warn.Text)
	}
	if cause != nil {
		h.conn.attach(*cause, ev)
	}
	select {
	case h.events <- ev:
	default:
		h.dropped.Add(1)
	}
}

// output turns the lines the host writes on r into events.
func (h *Host) output(r io.ReadCloser, kind string) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			text := string(line)
			if n := len(text); text[n-1] == '\n' {
				text = text[:n-1]
			}
			h.log.Debug("host output", "stream", kind, "text", text)
			if kind == KindStderr && strings.TrimSpace(text) != "" {
				last := text[:min(len(text), 1000)]
				h.lastStderr.Store(&last)
			}
			h.deliver(Event{Kind: kind, Text: text, Time: time.Now()}, nil)
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

// heartbeat pings the host; two pings unanswered mean it is hung,
// unless the host read some of what the launcher sent it since the last
// beat: its event loop runs, and the ping waits behind a long reply (a
// flood of large file reads on a loaded machine took 10 s and more, and
// the host was killed as hung while it worked).
func (h *Host) heartbeat() {
	beats := h.opts.beats
	if beats == nil {
		beats = wallBeats
	}
	ticks, stop := beats(h.info.PID, h.opts.Heartbeat)
	defer stop()
	read := h.conn.consumed()
	h.on(ticks, func() bool {
		if n := h.conn.consumed(); n > read {
			read = n
			h.missed.Store(0)
		}
		if h.missed.Load() >= 2 {
			h.log.Warn("extension host hung: killed", "pid", h.info.PID)
			h.kill("hung: missed 2 heartbeats")
			return false
		}
		h.missed.Add(1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*h.opts.Heartbeat)
			defer cancel()
			if _, err := h.call(ctx, "ping", nil, nil); err == nil {
				h.missed.Store(0)
			}
		}()
		return true
	})
}

// wallBeats is the heartbeat of every host: a tick every d.
func wallBeats(_ int, d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}

// every calls tick every d until the host ends or tick returns false.
func (h *Host) every(d time.Duration, tick func() bool) {
	t := time.NewTicker(d)
	defer t.Stop()
	h.on(t.C, tick)
}

// on calls tick on each value of ticks until the host ends or tick
// returns false.
func (h *Host) on(ticks <-chan time.Time, tick func() bool) {
	for {
		select {
		case <-h.done:
			return
		case <-ticks:
		}
		if !tick() {
			return
		}
	}
}

// kill ends the host's process group, once, recording why.
func (h *Host) kill(reason string) {
	h.killOnce.Do(func() {
		if h.cmd == nil || h.cmd.Process == nil {
			return
		}
		h.reason.Store(&reason)
		syscall.Kill(-h.cmd.Process.Pid, syscall.SIGKILL)
	})
}
