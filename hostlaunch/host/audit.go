package host

// The audit of the brokers: every brokered request and every refusal is
// a record, attributed by what the launcher knows (the host, its
// extensions), with whatever name the request carried kept apart as a
// claim. A flood is summarized: per host, at most auditRate records a
// second are written one by one, and a refusal for a limit
// (ERR_AIRVSX_BUSY) once per burst; the rest of each kind are counted
// into one record written when the second is over.

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/airvsx/airvsx/internal/termtext"
)

// KindAudit is the kind of the event of every brokered request and every
// broker refusal; Level is "allowed" or "denied", Capability the
// capability the broker serves, Audit the record.
const KindAudit = "audit"

// Audit is one brokered request or broker refusal, or a summary of many.
type Audit struct {
	Time time.Time `json:"time"`
	// Host lists the extensions of the host that made the request, as
	// the launcher started it: the identity a request cannot forge.
	Host []string `json:"host"`
	// Extension is the extension of Host the request named; "" when it
	// named none of them (Claimed then holds what it named, escaped).
	Extension string `json:"extension"`
	Claimed   string `json:"claimed,omitempty"`
	// Kind is "spawn", "fetch", or for a refusal for a limit the broker's
	// name ("workspace.fs", "spawn/kill" too).
	Kind string `json:"kind"`
	// Allowed is false for a refusal (Details.Reason says why).
	Allowed bool         `json:"allowed"`
	Details AuditDetails `json:"details"`
	// Repeated, in a summary, counts the records of this kind and verdict
	// in the second before Time that were not written one by one; this
	// record is the last of them.
	Repeated int `json:"repeated,omitempty"`

	// busy marks a refusal for a limit (a *busyError): once per burst.
	busy bool
}

// AuditDetails are what an Audit records of its request.
type AuditDetails struct {
	// Method, URL and Status of a fetch (Status 0: no response).
	Method string `json:"method,omitempty"`
	URL    string `json:"url,omitempty"`
	Status int    `json:"status,omitempty"`
	// Program (as resolved), Args and Dir of a spawn; ExitCode (nil when
	// it did not exit on its own), Signal and TimedOut how it ended.
	Program  string   `json:"program,omitempty"`
	Args     []string `json:"args,omitempty"`
	Dir      string   `json:"dir,omitempty"`
	ExitCode *int     `json:"exitCode,omitempty"`
	Signal   string   `json:"signal,omitempty"`
	TimedOut bool     `json:"timedOut,omitempty"`
	// Bytes is the size of a fetch's response body, or of what a spawned
	// program wrote (stdout and stderr, before any truncation).
	Bytes int64 `json:"bytes"`
	// Reason is why the broker refused, or how the request failed.
	Reason string `json:"reason,omitempty"`
}

// summary is the event text of a.
func (a Audit) summary() string {
	d := a.Details
	var s string
	switch a.Kind {
	case "spawn":
		s = "spawn " + strings.Join(append([]string{d.Program}, d.Args...), " ")
		if a.Allowed && d.Reason == "" {
			switch {
			case d.TimedOut:
				s += ": killed at the deadline"
			case d.ExitCode != nil:
				s += fmt.Sprintf(": exit %d", *d.ExitCode)
			case d.Signal != "":
				s += ": " + d.Signal
			}
			s += fmt.Sprintf(", %d bytes out", d.Bytes)
		}
	case "fetch":
		s = "fetch " + d.Method + " " + d.URL
		if a.Allowed && d.Reason == "" {
			s += fmt.Sprintf(": %d, %d bytes", d.Status, d.Bytes)
		}
	default:
		s = a.Kind
	}
	if d.Reason != "" {
		s += ": " + d.Reason
	}
	if a.Repeated > 0 {
		s += fmt.Sprintf(" (and %d more like it in the second before, not recorded one by one)", a.Repeated-1)
	}
	return s
}

// identify sets a's Host from the launcher's knowledge, and turns the
// name a.Extension carries into one of the host's extensions, or into a
// claim.
func (h *Host) identify(a *Audit) {
	a.Host = h.ids()
	if e, ok := h.own(a.Extension); ok {
		a.Extension = e.ID
		return
	}
	a.Claimed, a.Extension = clip(termtext.Escape(a.Extension), maxEventField), ""
}

// ids are the IDs of the host's extensions.
func (h *Host) ids() []string {
	out := make([]string, 0, len(h.opts.Extensions))
	for _, e := range h.opts.Extensions {
		out = append(out, e.ID)
	}
	return out
}

// audit records a, within the host's audit rate (see auditLimiter).
func (h *Host) audit(a Audit, capability string, cause *int64) {
	a.Time = time.Now()
	h.audits.add(a, capability, cause)
}

// writeAudit writes one record: an event of kind KindAudit attributed to
// its extension and to the request cause, an INFO line in the launcher's
// log, and Options.Audit.
func (h *Host) writeAudit(a Audit, capability string, cause *int64) {
	level := "allowed"
	if !a.Allowed {
		level = "denied"
	}
	h.log.Info("audit", "ext", a.Extension, "host", a.Host, "claimed", a.Claimed, "kind", a.Kind, "allowed", a.Allowed, "repeated", a.Repeated, "details", a.Details)
	if h.opts.Audit != nil {
		h.opts.Audit(a)
	}
	h.deliver(Event{Kind: KindAudit, Extension: a.Extension, Claimed: a.Claimed, Level: level, Capability: capability, Text: a.summary(), Time: a.Time, Audit: &a}, cause)
}

// auditRate is how many audit records of one host are written one by one
// in a second; past it they are summarized.
const auditRate = 20

// auditLimiter holds back a flood of audit records: within a second, the
// first auditRate records (and the first refusal for a limit) are written
// at once; the others are counted by kind and verdict, and the last of
// each is written, with the count, when the second is over.
type auditLimiter struct {
	write func(Audit, string, *int64)

	mu     sync.Mutex
	start  time.Time
	n      int
	busy   bool               // a refusal for a limit was written this second
	held   map[string]*pended // by kind and verdict
	timer  *time.Timer
	closed bool
}

type pended struct {
	a          Audit
	capability string
	n          int
}

func newAuditLimiter(write func(Audit, string, *int64)) *auditLimiter {
	return &auditLimiter{write: write, held: map[string]*pended{}}
}

// add writes a now, or holds it back for the summary.
func (l *auditLimiter) add(a Audit, capability string, cause *int64) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		l.write(a, capability, cause)
		return
	}
	if a.Time.Sub(l.start) >= time.Second {
		l.start, l.n, l.busy = a.Time, 0, false
	}
	busy := a.busy
	l.n++
	now := l.n <= auditRate && !(busy && l.busy)
	if busy {
		l.busy = true
	}
	if now {
		l.mu.Unlock()
		l.write(a, capability, cause)
		return
	}
	key := fmt.Sprintf("%s %v %v", a.Kind, a.Allowed, busy)
	p := l.held[key]
	if p == nil {
		p = &pended{}
		l.held[key] = p
	}
	p.a, p.capability = a, capability
	p.n++
	if l.timer == nil {
		l.timer = time.AfterFunc(time.Second, l.flush)
	}
	l.mu.Unlock()
}

// flush writes the summaries held back.
func (l *auditLimiter) flush() {
	l.mu.Lock()
	held := l.held
	l.held, l.timer = map[string]*pended{}, nil
	l.mu.Unlock()
	for _, p := range held {
		p.a.Repeated = p.n
		p.a.Time = time.Now()
		l.write(p.a, p.capability, nil)
	}
}

// close writes what is held back and lets every later record through
// (the host has ended: nothing floods any more).
func (l *auditLimiter) close() {
	l.mu.Lock()
	l.closed = true
	if l.timer != nil {
		l.timer.Stop()
	}
	l.mu.Unlock()
	l.flush()
}
