package host

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Event kinds.
const (
	// KindMessage: window.show{Information,Warning,Error}Message; Level is
	// info, warning or error.
	KindMessage = "message"
	// KindOutput: a line written to an output channel named Name.
	KindOutput = "output"
	// KindStatusBar: a status bar item Name shown or changed to Text.
	KindStatusBar = "statusBar"
	// KindConsole: console.* of an extension; Level is the method.
	KindConsole = "console"
	// KindActivated and KindActivationFailed: an extension's activation.
	KindActivated        = "activated"
	KindActivationFailed = "activationFailed"
	// KindDenied: the seat belt refused something; Capability names what
	// would have allowed it ("" when nothing would), Data what was refused
	// (DeniedData).
	KindDenied = "denied"
	// KindError: an uncaught exception or rejection in the host.
	KindError = "error"
	// KindStdout and KindStderr: a line the host process wrote outside
	// the extension API.
	KindStdout = "stdout"
	KindStderr = "stderr"
	// KindAudit (broker.go): a brokered spawn or fetch, or a broker's
	// refusal.
	// KindWarning: from the launcher itself (events dropped, ...).
	KindWarning = "warning"

	// What an editor follows (the driver streams them): KindEdit, an
	// extension changed the document URI (Data: {version, edits: [{range,
	// text}]}, or {version, full: true} when too large to carry: read the
	// text); KindSaved, the host saved URI; KindShowDocument, an extension
	// showed URI in an editor; KindDiagnostics, a diagnostic collection
	// Name set URI's diagnostics (Data: {diagnostics, count});
	// KindTreeChanged, tree view Name's data changed; KindTerminal, a
	// terminal Name was opened, shown, hidden or closed, or given input or
	// output (Level says which, Text holds it); KindTask, a task Name
	// started or ended; KindProgress, a progress report; KindOpenExternal,
	// an extension asked to open URI outside the editor.
	KindEdit         = "edit"
	KindSaved        = "saved"
	KindShowDocument = "showDocument"
	KindDiagnostics  = "diagnostics"
	KindTreeChanged  = "treeChanged"
	KindTerminal     = "terminal"
	KindTask         = "task"
	KindProgress     = "progress"
	KindOpenExternal = "openExternal"
	// KindShowView: an extension ran a workbench command that shows a
	// view or panel (Name), which the editor may show.
	KindShowView = "showView"
)

// Event is something the host reports: what an extension showed, wrote
// or was refused, attributed to the extension when the host knows it.
type Event struct {
	Kind       string `json:"kind"`
	Extension  string `json:"extension,omitempty"`
	Level      string `json:"level,omitempty"`
	Name       string `json:"name,omitempty"`
	Text       string `json:"text,omitempty"`
	Capability string `json:"capability,omitempty"`
	// URI is the document or resource the event concerns; Data the
	// kind's details (see the kinds), at most 64 KiB of JSON.
	URI  string          `json:"uri,omitempty"`
	Data json.RawMessage `json:"data,omitempty"`
	// Claimed is the extension the host named when it is none of the
	// host's own (escaped): a claim, never an attribution.
	Claimed string    `json:"claimed,omitempty"`
	Time    time.Time `json:"time"`
	// Audit is the record of a KindAudit event.
	Audit *Audit `json:"audit,omitempty"`
}

// DeniedData is the Data of a KindDenied event: the operation refused
// ("call child_process.execFile") and, when the call named one, its first
// argument (the program, the URL or the path asked for; at most 512
// bytes).
type DeniedData struct {
	Operation string `json:"operation"`
	Target    string `json:"target,omitempty"`
}

// maxEvents bounds the events buffered for Events, and those kept with
// one request; each event's text is at most maxEventText, so what a host
// can make the launcher hold in events is bounded too.
const maxEvents = 1024

// wireEvent is an event as the host sends it: Cause is the id of the
// launcher request during which it happened.
type wireEvent struct {
	Event
	Cause *int64 `json:"cause"`
}

// limiter caps the events of each extension (and of the host's own
// output, under "") to rate a second; the first event dropped in a second
// is replaced by one warning.
type limiter struct {
	rate int
	now  func() time.Time
	mu   sync.Mutex
	win  map[string]*window
}

type window struct {
	start  time.Time
	n      int
	warned bool
}

// allow says whether ext may send one more event now; when it may not and
// has not been told this second, warn is the warning to deliver instead.
func (l *limiter) allow(ext string) (ok bool, warn *Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	w := l.win[ext]
	if w == nil || now.Sub(w.start) >= time.Second {
		w = &window{start: now}
		l.win[ext] = w
	}
	w.n++
	if w.n <= l.rate {
		return true, nil
	}
	if w.warned {
		return false, nil
	}
	w.warned = true
	who := ext
	if who == "" {
		who = "the host"
	}
	return false, &Event{Kind: KindWarning, Extension: ext, Time: now,
		Text: fmt.Sprintf("events from %s dropped: more than %d a second", who, l.rate)}
}

// Equal reports whether e and o are the same event (Data compared as
// bytes, Audit as the same record).
func (e Event) Equal(o Event) bool {
	return e.Kind == o.Kind && e.Extension == o.Extension && e.Level == o.Level && e.Name == o.Name && e.Text == o.Text &&
		e.Capability == o.Capability && e.Claimed == o.Claimed && e.Time.Equal(o.Time) && e.URI == o.URI &&
		string(e.Data) == string(o.Data) && e.Audit == o.Audit
}
