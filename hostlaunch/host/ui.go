package host

// Questions for the user: window.showQuickPick, showInputBox,
// createQuickPick, createInputBox and the messages that offer choices
// are "ui/…" requests from the host, which the launcher puts to
// Options.UI (the driver's client, or run's --answer) and answers with
// what the user chose. With no UI, every question is dismissed, as a user
// pressing Escape would.

import (
	"context"
	"encoding/json"
	"strings"
	"time"
)

// Question kinds.
const (
	// QuickPick: Params {title, placeHolder, canPickMany, value, items:
	// [{label, description, detail, picked, kind}]}; the answer
	// {selected: [indexes]} (null: dismissed).
	QuickPick = "quickPick"
	// InputBox: Params {title, prompt, value, placeHolder, password,
	// validationMessage}; the answer {value} (null: dismissed).
	InputBox = "inputBox"
	// Message: Params {level, text, modal, items: [titles]}; the answer
	// {selected: index} (null: dismissed).
	Message = "message"
)

// Question is what an extension asks the user.
type Question struct {
	// Kind is QuickPick, InputBox or Message.
	Kind string `json:"kind"`
	// Extension is the extension that asks (one of the host's; a name it
	// claimed that is none of them is Claimed).
	Extension string `json:"extension,omitempty"`
	Claimed   string `json:"claimed,omitempty"`
	// Params are the question's details, as the extension gave them
	// (untrusted: escape before showing).
	Params json.RawMessage `json:"params"`
}

// UI answers questions. Answer returns the answer's JSON, or nil for a
// dismissed question; it is called on a goroutine of its own per
// question, at most four of one host at once.
type UI interface {
	Answer(ctx context.Context, q Question) (json.RawMessage, error)
}

// maxQuestionWait bounds how long a question waits for its answer.
const maxQuestionWait = 10 * time.Minute

// serveUI answers the host's ui request id.
func (h *Host) serveUI(id int64, method string, params json.RawMessage) {
	q := Question{Kind: strings.TrimPrefix(method, "ui/"), Params: params}
	var claim struct {
		Extension string `json:"extension"`
	}
	json.Unmarshal(params, &claim)
	if e, ok := h.own(claim.Extension); ok {
		q.Extension = e.ID
	} else {
		q.Claimed = clip(claim.Extension, maxEventField)
	}
	if h.opts.UI == nil || (q.Kind != QuickPick && q.Kind != InputBox && q.Kind != Message) {
		h.reply(id, nil, nil, "ui")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), maxQuestionWait)
	defer cancel()
	ctx, stop := h.untilExit(ctx)
	defer stop()
	ans, err := h.opts.UI.Answer(ctx, q)
	if err != nil {
		h.log.Warn("a question went unanswered", "kind", q.Kind, "extension", q.Extension, "err", err)
		ans = nil
	}
	if len(ans) == 0 || !json.Valid(ans) {
		ans = json.RawMessage("null")
	}
	h.reply(id, ans, nil, "ui")
}
