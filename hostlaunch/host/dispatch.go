package host

// What the host sends, taken with the launcher's knowledge: the host is
// one process, so any extension in it can send any message under any
// name. Identity is the launcher's: events are attributed only to this
// host's extensions (another name is kept as a claim, escaped), lifecycle
// events for an extension of another host are dropped, kinds the launcher
// itself reports cannot be forged, commands declared by another host's
// extension cannot be registered here, and every broker request passes
// the flow control first.

import (
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/airvsx/airvsx/internal/termtext"
)

// Limits on what the launcher keeps of one event.
const (
	// maxEventText caps an event's text: 8 KiB (then "… (truncated)").
	maxEventText = 8 << 10
	// maxEventField caps its other strings (name, level, a claim).
	maxEventField = 200
	// maxRegistered caps the commands one host may register.
	maxRegistered = 10000
	// maxEventURI caps an event's URI; maxEventData its Data (JSON).
	maxEventURI  = 4 << 10
	maxEventData = 64 << 10
)

// hostKinds are the event kinds a host may send; the others (audit,
// warning, stdout, stderr) are the launcher's own.
var hostKinds = map[string]bool{
	KindMessage: true, KindOutput: true, KindStatusBar: true, KindConsole: true,
	KindActivated: true, KindActivationFailed: true, KindDenied: true, KindError: true,
	KindEdit: true, KindSaved: true, KindShowDocument: true, KindDiagnostics: true, KindTreeChanged: true,
	KindTerminal: true, KindTask: true, KindProgress: true, KindOpenExternal: true, KindShowView: true,
}

// handle takes one message from the host.
func (h *Host) handle(m incoming) {
	switch {
	case m.Method == "ready":
		var info Info
		if json.Unmarshal(m.Params, &info) == nil {
			info.Node = clip(info.Node, maxEventField)
			select {
			case h.ready <- info:
			default:
			}
		}
	case m.Method == "event":
		h.takeEvent(m.Params)
	case m.Method == "commands/registered":
		h.takeRegistration(m.Params)
	case m.ID != nil && strings.HasPrefix(m.Method, "fs/"):
		h.admit(*m.ID, fsBroker, m.Params, 2*int64(len(m.Params)), func(t *ticket) { h.serveFS(*m.ID, m.Method, m.Params, t) })
	case m.ID != nil && m.Method == "spawn/run":
		// A running program holds up to 1 MiB of each output.
		h.admit(*m.ID, spawnBroker, m.Params, 2*int64(len(m.Params))+2*maxSpawnOutput, func(t *ticket) { h.serveBroker(*m.ID, m.Params, t, h.serveSpawn) })
	case m.ID != nil && m.Method == "spawn/start":
		// A stream holds one chunk of each output while the host takes it.
		h.admit(*m.ID, streamBroker, m.Params, 2*int64(len(m.Params))+4*streamChunk, func(t *ticket) { h.serveStart(*m.ID, m.Params, t) })
	case m.ID != nil && m.Method == "spawn/write":
		h.admit(*m.ID, writeBroker, m.Params, 2*int64(len(m.Params)), func(t *ticket) { h.serveBroker(*m.ID, m.Params, t, h.serveWrite) })
	case m.ID != nil && m.Method == "spawn/end":
		h.admit(*m.ID, writeBroker, m.Params, 2*int64(len(m.Params)), func(t *ticket) { h.serveBroker(*m.ID, m.Params, t, h.serveEnd) })
	case m.ID != nil && m.Method == "spawn/kill":
		h.admit(*m.ID, killBroker, m.Params, 2*int64(len(m.Params)), func(t *ticket) { h.serveBroker(*m.ID, m.Params, t, h.serveSpawnKill) })
	case m.ID != nil && strings.HasPrefix(m.Method, "ui/"):
		h.admit(*m.ID, uiBroker, m.Params, 2*int64(len(m.Params)), func(t *ticket) { h.serveUI(*m.ID, m.Method, m.Params) })
	case m.ID != nil && m.Method == "net/fetch":
		h.admit(*m.ID, fetchBroker, m.Params, 2*int64(len(m.Params)), func(t *ticket) { h.serveBroker(*m.ID, m.Params, t, h.serveFetch) })
	case m.ID != nil && m.Method == "":
		if m.Error == nil && m.Result == nil {
			m.Result = json.RawMessage("null")
		}
		h.conn.resolve(*m.ID, m.Result, m.Error)
	default:
		h.log.Warn("host sent an unexpected message", "method", clip(m.Method, maxEventField))
	}
}

// admit runs serve for the broker request id on a goroutine of its own if
// the flow control lets it in; else it answers at once with the refusal,
// which is audited (summarized when it repeats).
func (h *Host) admit(id int64, b broker, params json.RawMessage, cost int64, serve func(*ticket)) {
	t, err := h.flow.admit(b, cost)
	if err != nil {
		var claim struct {
			Extension string `json:"extension"`
		}
		json.Unmarshal(params, &claim)
		a := Audit{Extension: claim.Extension, Kind: b.name, Details: AuditDetails{Reason: err.Error()}, busy: true}
		h.identify(&a)
		h.audit(a, "", nil)
		h.reply(id, nil, &rpcError{Code: codeBusy, Message: err.Error()}, b.name)
		return
	}
	go func() {
		defer t.finish()
		serve(t)
	}()
}

// own returns this host's extension named claim (case is ignored).
func (h *Host) own(claim string) (*Extension, bool) {
	for i := range h.opts.Extensions {
		if strings.EqualFold(h.opts.Extensions[i].ID, claim) {
			return &h.opts.Extensions[i], true
		}
	}
	return nil, false
}

// takeEvent checks an event the host sent and passes it on.
func (h *Host) takeEvent(params json.RawMessage) {
	var ev wireEvent
	if err := json.Unmarshal(params, &ev); err != nil {
		h.log.Warn("host sent a malformed event", "err", err)
		return
	}
	ev.Time = time.Now()
	if !hostKinds[ev.Kind] || ev.Audit != nil {
		h.log.Warn("host sent an event of a kind only the launcher reports: dropped", "kind", clip(ev.Kind, maxEventField))
		return
	}
	if ev.Extension != "" {
		if e, ok := h.own(ev.Extension); ok {
			ev.Extension = e.ID
		} else {
			ev.Claimed, ev.Extension = clip(termtext.Escape(ev.Extension), maxEventField), ""
		}
	}
	if (ev.Kind == KindActivated || ev.Kind == KindActivationFailed) && ev.Extension == "" {
		h.log.Warn("host reported the activation of an extension it does not run: dropped", "claimed", ev.Claimed)
		return
	}
	ev.Text = clip(ev.Text, maxEventText)
	ev.Name, ev.Level, ev.Capability = clip(ev.Name, maxEventField), clip(ev.Level, maxEventField), clip(ev.Capability, maxEventField)
	ev.URI = clip(ev.URI, maxEventURI)
	if len(ev.Data) > maxEventData || (len(ev.Data) > 0 && !json.Valid(ev.Data)) {
		ev.Data = json.RawMessage(`{"truncated":true}`)
	}
	if ev.Kind == KindActivated {
		h.noteActivated(ev.Extension)
	}
	h.deliver(ev.Event, ev.Cause)
}

// takeRegistration records a command the host registered, unless an
// extension of another host declares it (that host's command is not this
// one's to answer).
func (h *Host) takeRegistration(params json.RawMessage) {
	var r struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(params, &r) != nil || r.Command == "" || len(r.Command) > 1024 {
		return
	}
	if owner, ok := h.declaredElsewhere(r.Command); ok {
		h.log.Warn("host registered a command an extension of another host declares: ignored", "command", termtext.Escape(r.Command), "declaredBy", owner)
		return
	}
	h.amu.Lock()
	defer h.amu.Unlock()
	if h.registered == nil {
		h.registered = map[string]bool{}
	}
	if len(h.registered) < maxRegistered {
		h.registered[r.Command] = true
	}
}

// declaredElsewhere names the extension of another host that declares
// command (onCommand), if one does.
func (h *Host) declaredElsewhere(command string) (string, bool) {
	for _, e := range h.opts.Elsewhere {
		for _, ev := range e.ActivationEvents {
			if ev == "onCommand:"+command {
				return e.ID, true
			}
		}
	}
	return "", false
}

// Registered reports whether the host registered command.
func (h *Host) Registered(command string) bool {
	h.amu.Lock()
	defer h.amu.Unlock()
	return h.registered[command]
}

// clip cuts s to at most n bytes, on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "… (truncated)"
}
