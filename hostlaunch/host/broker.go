package host

// The capability brokers: an extension granted spawn or network does not
// get node's child_process or sockets (the kernel sandbox denies every
// fork, exec and socket inside the host). Its brokered child_process and
// fetch (js/spawn.js, js/fetch.js) are requests to the launcher, which
// checks them against the extension's Programs or AllowedHosts, runs
// them, and audits every request and every refusal.

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/airvsx/airvsx/internal/termtext"
)

// codeDenied is the JSON-RPC error code of a broker refusal; the host
// turns it into an ERR_AIRVSX_DENIED error.
const codeDenied = -32002

// deniedError is a broker refusal: Msg is what the extension is told.
type deniedError struct{ Msg string }

func (e *deniedError) Error() string { return e.Msg }

func denyf(format string, args ...any) error {
	return &deniedError{Msg: fmt.Sprintf(format, args...)}
}

// brokerRequest is the part every broker request shares: the extension
// the host says asks (a claim: identify checks it) and the launcher
// request during which it asks.
type brokerRequest struct {
	Extension string `json:"extension"`
	Cause     *int64 `json:"cause"`
}

// extension returns the extension id of this host, if it has capability
// c; else a refusal naming c. Every extension of a host has the same
// grants (Launch refuses others), so which of them a request claims
// changes nothing it may do.
func (h *Host) extension(id string, c string) (*Extension, error) {
	e, ok := h.own(id)
	if !ok {
		return nil, denyf("airvsx: no extension %q in this host", termtext.Escape(clip(id, maxEventField)))
	}
	if !slices.Contains(e.Capabilities, c) {
		return e, denyf("airvsx: extension %s may not use the %s broker: it needs the %q capability, which it is not granted", e.ID, c, c)
	}
	return e, nil
}

// brokered begins the broker request a for capability: it returns the
// extension that asks, named by a.Extension (set to its ID), and deny,
// which records a as refused, with the error as its reason, and returns
// that error. When the extension may not use the broker, err is the
// refusal.
func (h *Host) brokered(a *Audit, capability string, cause *int64) (*Extension, func(error) (any, error), error) {
	claim := a.Extension
	h.identify(a)
	deny := func(err error) (any, error) {
		a.Details.Reason = err.Error()
		h.audit(*a, capability, cause)
		return nil, err
	}
	e, err := h.extension(claim, capability)
	if err != nil {
		return nil, deny, err
	}
	return e, deny, nil
}

// serveBroker answers the host's broker request id with serve's result
// (a fetch's response body encoded as it is written).
func (h *Host) serveBroker(id int64, params json.RawMessage, t *ticket, serve func(json.RawMessage, *ticket) (any, error)) {
	res, err := serve(params, t)
	rerr := rpcErrorOf(err)
	if r, ok := res.(*fetchResult); ok && rerr == nil {
		h.replyBlob(id, r, "body", r.Body, "fetch")
		return
	}
	h.reply(id, res, rerr, "broker")
}

// rpcErrorOf is the JSON-RPC error answering a broker request that failed
// with err (nil for nil): a refusal, a limit, or another failure.
func rpcErrorOf(err error) *rpcError {
	var de *deniedError
	var be *busyError
	switch {
	case errors.As(err, &de):
		return &rpcError{Code: codeDenied, Message: de.Msg}
	case errors.As(err, &be):
		return &rpcError{Code: codeBusy, Message: be.Msg}
	case err != nil:
		return &rpcError{Code: -32000, Message: err.Error()}
	}
	return nil
}
